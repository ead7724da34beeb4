"""Exports of found moments for editing tools and tables, by file suffix.

`--export` (`export(path, found)`, `EXPORTERS`): markers on the source clips for editing
tools (`.fcpxml` Final Cut Pro, `.xml` FCP7 XML for Premiere and Resolve, `.otio`
OpenTimelineIO, `.edl` CMX 3600 with locators), and `.csv`, `.srt`, `.vtt`.
`--selects` (`export_selects`, `SELECTS`): one clip per moment cut back to back (`.otio`,
`.edl`).

The formats come from well-kept libraries (OpenTimelineIO and its CMX 3600, FCP7 XML and
FCPXML adapters, pysubs2), installed by the `export` extra; the CSV needs nothing.
`check_rates` refuses, before any search, a video whose frame rate a chosen format cannot
count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from ..atomic import atomic_open
from ..errors import UserError
from .clock import SourceClock, check_smpte, read_clock
from .edl import check_edl_rates, write_edl, write_selects_edl
from .fcp7 import write_fcp7
from .fcpxml import write_fcpxml
from .found import Found, frame_range
from .found_lines import write_found_lines
from .otio_timelines import marker_timeline, selects_timeline, write_otio, write_selects_otio
from .subtitles import subtitle_writer
from .table import boxes_path, write_box_csv, write_csv

Writer = Callable[[Sequence[Found], IO[str]], None]

# Suffix -> writer; adding a format is adding an entry.
EXPORTERS: dict[str, Writer] = {
    ".csv": write_csv,
    ".srt": subtitle_writer("srt"),
    ".vtt": subtitle_writer("vtt"),
    ".edl": write_edl,
    ".otio": write_otio,
    ".fcpxml": write_fcpxml,
    ".xml": write_fcp7,
    ".jsonl": write_found_lines,
}
SELECTS: dict[str, Writer] = {".otio": write_selects_otio, ".edl": write_selects_edl}
#: Files written beside an export whose moments carry tracks: suffix -> (the companion's
#: path from the export's, its writer).
COMPANIONS: dict[str, tuple[Callable[[Path], Path], Writer]] = {
    ".csv": (boxes_path, write_box_csv),
}


def exporter(path: Path, option: str = "--export") -> Writer:
    """The writer for `path`'s suffix (`--selects`: the selects writers).

    Raises:
        UserError: no export has that suffix (the message lists those there are).

    >>> exporter(Path("moments.csv")).__name__
    'write_csv'
    """
    writers = SELECTS if option == "--selects" else EXPORTERS
    writer = writers.get(Path(path).suffix.lower())
    if writer is None:
        known = ", ".join(writers)
        suffix = Path(path).suffix
        raise UserError(f"{option} {path}: unknown format {suffix!r}; use one of {known}")
    return writer


def check_rates(path: Path, clocks: Sequence[tuple[Path, SourceClock]], option: str) -> None:
    """Refuse, before a search, videos whose rate the format of `path` cannot count: an EDL
    needs one SMPTE rate (and one drop-frame counting), FCP7 XML SMPTE rates; the others
    hold any rate.

    Raises:
        UserError: one line naming the file, the video and its rate.
    """
    suffix, where = Path(path).suffix.lower(), f"{option} {path}"
    if suffix == ".edl":
        check_edl_rates(clocks, where)
    elif suffix == ".xml":
        check_smpte(clocks, where, "the FCP7 XML adapter writes timecode, so it")


def companion(path: Path, option: str = "--export") -> Path | None:
    """The file written beside `path` when the moments carry tracks, if its format has one.

    >>> companion(Path("m.csv")).name, companion(Path("m.edl"))
    ('m.boxes.csv', None)
    """
    if option != "--export" or Path(path).suffix.lower() not in COMPANIONS:
        return None
    return COMPANIONS[Path(path).suffix.lower()][0](Path(path))


def export(path: Path, found: Sequence[Found], option: str = "--export") -> list[Path]:
    """Write `found` to `path` in the format its suffix names, atomically, and the companion
    file (`companion`) when the moments carry tracks; returns the files written."""
    writer = exporter(path, option)
    with atomic_open(path) as handle:
        writer(found, handle)
    beside = companion(path, option)
    if beside is None or all(item.tracks is None for item in found):
        return [Path(path)]
    with atomic_open(beside) as handle:
        COMPANIONS[Path(path).suffix.lower()][1](found, handle)
    return [Path(path), beside]


def export_selects(path: Path, found: Sequence[Found]) -> None:
    """Write `found` as a selects timeline (a clip per moment) to `path`."""
    export(path, found, "--selects")


__all__ = ["COMPANIONS", "EXPORTERS", "SELECTS", "Found", "SourceClock", "check_rates",
           "companion", "export", "export_selects", "exporter", "frame_range",
           "marker_timeline", "read_clock", "selects_timeline"]  # fmt: skip
