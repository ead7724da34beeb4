"""Track files: one `Track` per JSON line (`Track.to_dict`'s layout, other fields kept aside).

Every track read from a file goes through `read_tracks`, so a box outside the frame, a
negative size, NaN, or a time that goes backwards is refused with one line naming the file,
the line and the bad box, before anything is computed from the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..track import Track
from .lines import write_jsonl
from .records import Where, records


def track_of(record: object, where: Where) -> Track:
    """The track of one record, or a `BadInputFile` naming the file and line.

    >>> track_of({"times_s": [0.0], "boxes": [[0.2, 0.1, 1.3, 0.5]]}, Where("t.jsonl", 4))
    Traceback (most recent call last):
    longground.errors.BadInputFile: t.jsonl:4: box 0 [0.2, 0.1, 1.3, 0.5] lies outside the frame ...
    """
    if not isinstance(record, dict):
        raise where.error("expected a JSON object holding a track")
    try:
        return Track.from_dict(record)
    except ValueError as exc:
        raise where.error(str(exc)) from None


def read_tracks(path: str | Path) -> list[Track]:
    """Every track of a JSONL file, in file order.

    Raises:
        BadInputFile: the first unreadable line or bad box, as `FILE:LINE: why`.
    """
    tracks = []
    for record in records(Path(path)):
        where = Where(Path(path), record.line)
        if record.error is not None:
            raise where.error(record.error)
        tracks.append(track_of(record.value, where))
    return tracks


def write_tracks(path: str | Path, tracks: Iterable[Track], **fields) -> int:
    """Write tracks atomically, one line each, with `fields` added to every line; the count."""
    return write_jsonl(path, ({**fields, **track.to_dict()} for track in tracks))
