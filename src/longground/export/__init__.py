"""Exports of found moments for editing tools, by file suffix: .csv, .srt, .vtt, .edl, .otio.

`export(path, found)` picks the writer from the suffix; `EXPORTERS` lists them. The formats
come from well-kept libraries (OpenTimelineIO and its CMX 3600 adapter, pysubs2), installed
by the `export` extra; the CSV needs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from ..atomic import atomic_open
from ..errors import UserError
from .found import Found, frame_range
from .subtitles import subtitle_writer
from .table import write_csv
from .timeline import build_timeline, write_edl, write_otio

Writer = Callable[[Sequence[Found], IO[str]], None]

# Suffix -> writer; adding a format is adding an entry.
EXPORTERS: dict[str, Writer] = {
    ".csv": write_csv,
    ".srt": subtitle_writer("srt"),
    ".vtt": subtitle_writer("vtt"),
    ".edl": write_edl,
    ".otio": write_otio,
}


def exporter(path: Path, option: str = "--export") -> Writer:
    """The writer for `path`'s suffix.

    Raises:
        UserError: no export has that suffix (the message lists those there are).

    >>> exporter(Path("moments.csv")).__name__
    'write_csv'
    """
    writer = EXPORTERS.get(Path(path).suffix.lower())
    if writer is None:
        known = ", ".join(EXPORTERS)
        suffix = Path(path).suffix
        raise UserError(f"{option} {path}: unknown format {suffix!r}; use one of {known}")
    return writer


def export(path: Path, found: Sequence[Found]) -> None:
    """Write `found` to `path` in the format its suffix names, atomically."""
    writer = exporter(path)
    with atomic_open(path) as handle:
        writer(found, handle)


__all__ = ["EXPORTERS", "Found", "build_timeline", "export", "exporter", "frame_range"]
