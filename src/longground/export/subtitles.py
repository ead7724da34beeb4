"""SubRip (.srt) and WebVTT (.vtt) through pysubs2: one cue per moment, the query as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from ..errors import require
from .found import Found


def subtitle_writer(format_name: str):
    """A writer of `found` as pysubs2's `format_name` ("srt" or "vtt")."""

    def write(found: Sequence[Found], handle: IO[str]) -> None:
        handle.write(subtitles(found).to_string(format_name))

    return write


def subtitles(found: Sequence[Found]):
    """A `pysubs2.SSAFile` with one event per moment, in time order (milliseconds, rounded).

    With more than one video, each cue names its video: `bikes.mp4: a car`.

    >>> from pathlib import Path
    >>> from longground.moments import Moments
    >>> subs = subtitles([Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]]))])
    >>> [(e.start, e.end, e.text) for e in subs]
    [(1200, 4800, 'a car')]
    """
    pysubs2 = require("pysubs2", "export")
    named = len({item.video for item in found}) > 1
    subs = pysubs2.SSAFile()
    for item in found:
        text = f"{item.video.name}: {item.query}" if named else item.query
        for start_s, end_s in item.moments.spans:
            start, end = round(start_s * 1000), round(end_s * 1000)
            subs.append(pysubs2.SSAEvent(start=start, end=end, text=text))
    subs.sort()
    return subs
