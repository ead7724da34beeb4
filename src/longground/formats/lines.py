"""The one JSONL line writer: every benchmark, prediction, stage and export file is written
through `json_line`, so all of them agree on the encoding (UTF-8 text, not `\\u` escapes) and
refuse NaN and infinity, which JSON has no words for.

`write_lines` writes onto a text handle the caller opened (an `atomic_open` target, or one
that a checked output path hands out); `write_jsonl` opens `path` with the atomic writer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from ..atomic import atomic_open


def json_line(record: Mapping[str, Any]) -> str:
    """One record as a JSONL line, newline included.

    Raises:
        ValueError: a value is NaN or infinite.

    >>> json_line({"qid": "é", "intervals": [[1.0, 2.0]]})
    '{"qid": "é", "intervals": [[1.0, 2.0]]}\\n'
    """
    return json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"


def write_lines(handle: TextIO, records: Iterable[Mapping[str, Any]]) -> int:
    """Write `records` onto an open text handle, one line each; the number written.

    >>> import io
    >>> buffer = io.StringIO()
    >>> write_lines(buffer, [{"a": 1}, {"b": 2}]), buffer.getvalue()
    (2, '{"a": 1}\\n{"b": 2}\\n')
    """
    count = 0
    for record in records:
        handle.write(json_line(record))
        count += 1
    return count


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write `records` to `path` atomically (a temporary file, then a rename); the number
    written. A crash leaves the old file or none, never half a file."""
    with atomic_open(Path(path)) as handle:
        return write_lines(handle, records)
