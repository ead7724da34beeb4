"""Writing a transcript as subtitles (.srt, .vtt) with pysubs2: one event per voice-activity
segment that holds recognised words."""

from __future__ import annotations

from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError, require
from .evidence import Transcript

FORMATS = {".srt": "srt", ".vtt": "vtt"}


def subtitle_format(path: Path) -> str:
    """pysubs2's format name for a file's suffix.

    >>> subtitle_format(Path("talk.vtt"))
    'vtt'
    """
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise UserError(f"{path}: a subtitle file ends in .srt or .vtt")
    return kind


def subtitle_text(transcript: Transcript, kind: str) -> str:
    """The transcript as the text of a subtitle file of format `kind` ("srt" or "vtt")."""
    pysubs2 = require("pysubs2", "channels")
    subs = pysubs2.SSAFile()
    for start_s, end_s, text in transcript.lines():
        subs.append(pysubs2.SSAEvent(start=round(start_s * 1000), end=round(end_s * 1000),
                                     text=text))  # fmt: skip
    return subs.to_string(kind)


def write_subtitles(transcript: Transcript, path: Path) -> None:
    """Write `path` (.srt or .vtt) atomically."""
    text = subtitle_text(transcript, subtitle_format(path))
    with atomic_open(path) as handle:
        handle.write(text)
