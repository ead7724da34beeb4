"""Video durations for benchmark files that do not carry them (Charades-STA)."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError
from .records import csv_records, read_text

_ID_KEYS = ("id", "video", "vid", "video_id")
_LENGTH_KEYS = ("length", "duration", "duration_s", "video_duration_s")


def read_durations(path: str | Path) -> dict[str, float]:
    """Video durations from a JSON object `{video: seconds}` or a CSV with an id column
    (id, video, vid, video_id) and a length column (length, duration, duration_s,
    video_duration_s), such as Charades_v1_test.csv.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = p.write_text("id,subject,length\\nAB12C,x,30.5\\n")
    >>> read_durations(p)
    {'AB12C': 30.5}
    """
    path = Path(path)
    text = read_text(path)
    try:
        return _table(path, text)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{path}: not a table of video durations ({exc})") from None


def _table(path: Path, text: str) -> dict[str, float]:
    if path.suffix.lower() == ".json":
        table = json.loads(text)
        if not isinstance(table, dict):
            raise ValueError("expected a JSON object {video: seconds}")
        return {str(k): float(v) for k, v in table.items()}
    rows = [r.value for r in csv_records(text)]
    id_key = next((k for k in _ID_KEYS if rows and k in rows[0]), None)
    length_key = next((k for k in _LENGTH_KEYS if rows and k in rows[0]), None)
    if id_key is None or length_key is None:
        raise ValueError("needs an id column and a length column")
    return {row[id_key]: float(row[length_key]) for row in rows}
