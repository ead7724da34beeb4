"""The records of an input file (JSON Lines, a JSON array, or CSV), each with its line number."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..errors import BadInputFile, UserError
from ..outputs import check_input_file
from ..text import undecodable
from .fast_json import loader_for


@dataclass(frozen=True)
class Where:
    """A place in an input file, for error messages; `prefix` starts every message (e.g.
    `"video v1: "` where no qid applies yet).

    >>> str(Where(Path("gt.jsonl"), 4).at("q1").error("end < start"))
    'gt.jsonl:4: qid q1: end < start'
    """

    path: Path
    line: int | None
    qid: str | None = None
    prefix: str = ""

    def at(self, qid: str | None) -> Where:
        """The same place, now known to hold query `qid`."""
        return Where(self.path, self.line, qid)  # not `replace`: this runs once per record

    def error(self, message: str) -> BadInputFile:
        """A `BadInputFile` naming this file, line and qid."""
        return BadInputFile(str(self.path), self.line, self.prefix + message, qid=self.qid)


class Record(NamedTuple):
    """One record: `value` (usually a dict) or the `error` that kept it from being read;
    `line` is None where it cannot be known. (A named tuple: made once per line, it costs a
    fifth of a frozen dataclass.)"""

    line: int | None
    value: object = None
    error: str | None = None
    raw: str = ""


def read_text(path: Path) -> str:
    """The whole file as text, or a `UserError` naming it (a folder, a FIFO or a device is
    refused before it is opened: reading a FIFO nobody writes to would wait for ever)."""
    check_input_file(Path(path))
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        line, reason = undecodable(Path(path).read_bytes()) or (None, "not UTF-8")
        raise BadInputFile(str(path), line, f"is not valid text ({reason})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc})") from None


def jsonl_records(text: str) -> Iterator[Record]:
    """One record per non-blank line; a malformed line becomes a record with `error`."""
    loads = loader_for(text)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield Record(number, loads(line), raw=line)
        except (ValueError, RecursionError) as exc:
            reason = getattr(exc, "msg", "nested too deeply")
            yield Record(number, error=f"malformed JSON ({reason})", raw=line)


def json_array_records(text: str, path: Path) -> Iterator[Record]:
    """The elements of a JSON array, each with the line it starts on, or of the one list
    inside a JSON object (`{"data": [...]}`), without line numbers.

    An array is decoded element by element in one pass (linear in the file's size); a
    malformed element raises `BadInputFile` naming its line once the elements before it are
    read.

    >>> [(r.line, r.value) for r in json_array_records('[1,\\n {"a": 2}\\n]', Path("x.json"))]
    [(1, 1), (2, {'a': 2})]
    """
    start = _WHITESPACE.match(text).end()
    if text.startswith("[", start):
        yield from _array_records(text, path, start + 1)
        return
    try:
        top = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputFile(str(path), exc.lineno, f"malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise BadInputFile(str(path), None, "malformed JSON (nested too deeply)") from None
    lists = [v for v in top.values() if isinstance(v, list)] if isinstance(top, dict) else []
    if len(lists) != 1:
        raise BadInputFile(str(path), None, "expected a JSON array of records")
    yield from (Record(None, value) for value in lists[0])  # lines unknown inside a wrapper


_WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace


def _array_records(text: str, path: Path, pos: int) -> Iterator[Record]:
    """The elements of the JSON array whose `[` ends just before `pos`.

    Lines are counted from the previous element on, never from the start of the file, so
    the whole pass is linear (counting from the start for each element made a 100k-record
    file quadratic).
    """
    decoder = json.JSONDecoder()
    line, counted = 1 + text.count("\n", 0, pos), pos
    pos = _WHITESPACE.match(text, pos).end()
    if text.startswith("]", pos):
        return _array_end(text, path, pos + 1)
    while True:
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise BadInputFile(str(path), exc.lineno, f"malformed JSON ({exc.msg})") from None
        except RecursionError:
            raise BadInputFile(str(path), line, "malformed JSON (nested too deeply)") from None
        yield Record(line, value)
        pos = _WHITESPACE.match(text, pos).end()
        if text.startswith("]", pos):
            return _array_end(text, path, pos + 1)
        if not text.startswith(",", pos):
            raise _malformed(text, path, pos, "Expecting ',' delimiter")
        pos = _WHITESPACE.match(text, pos + 1).end()


def _array_end(text: str, path: Path, pos: int) -> None:
    """Check that only whitespace follows the array's closing `]`."""
    pos = _WHITESPACE.match(text, pos).end()
    if pos < len(text):
        raise _malformed(text, path, pos, "Extra data")


def _malformed(text: str, path: Path, pos: int, reason: str) -> BadInputFile:
    """The error for a syntax error at character `pos` (its line counted once, here)."""
    return BadInputFile(str(path), text.count("\n", 0, pos) + 1, f"malformed JSON ({reason})")


def csv_records(text: str, delimiter: str = ",") -> Iterator[Record]:
    """One record per CSV row (a dict keyed by the header), numbered by the line it ends on."""
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    for row in reader:
        if any((v or "").strip() for v in row.values() if isinstance(v, str)):
            yield Record(reader.line_num, {k.strip(): v for k, v in row.items() if k})


def records(path: Path, text: str | None = None) -> Iterator[Record]:
    """The records of `path`: CSV/TSV by extension, a JSON array when the text starts with `[`
    (or a `.json` file with `{`), JSON Lines otherwise.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.jsonl"
    >>> _ = p.write_text('{"qid": 1}\\n\\nnot json\\n')
    >>> [(r.line, r.value, r.error) for r in records(p)]
    [(1, {'qid': 1}, None), (3, None, 'malformed JSON (Expecting value)')]
    """
    path = Path(path)
    text = read_text(path) if text is None else text
    suffix = path.suffix.lower()
    start = text.lstrip()[:1]
    if suffix in (".csv", ".tsv"):
        return csv_records(text, "\t" if suffix == ".tsv" else ",")
    if start == "[" or (suffix == ".json" and start == "{" and _is_one_json(text)):
        return json_array_records(text, path)
    return jsonl_records(text)


def _is_one_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def read_qid(value: object) -> str | None:
    """A qid as text: strings and whole numbers; None for anything else.

    >>> read_qid(2579), read_qid("v_x#0"), read_qid(3.0), read_qid(True), read_qid("")
    ('2579', 'v_x#0', '3', None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


_QID_IN_TEXT = re.compile(r'"qid"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+))')


def qid_in_text(raw: str) -> str | None:
    """The qid written in a line that is not valid JSON, if it can be read.

    >>> qid_in_text('{"qid": "q7", "intervals": [[1, 2]')
    'q7'
    """
    match = _QID_IN_TEXT.search(raw)
    if match is None:
        return None
    return read_qid(match.group(1) if match.group(1) is not None else int(match.group(2)))


def first_record(path: Path, text: str, limit: int = 50) -> dict | None:
    """The first readable record of a file that is a dict (within `limit` records)."""
    try:
        for count, record in enumerate(records(path, text)):
            if isinstance(record.value, dict):
                return record.value
            if count >= limit:
                break
    except (UserError, ValueError):
        return None
    return None
