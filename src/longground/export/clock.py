"""`SourceClock`: how an editing tool counts a video's frames (rate, drop-frame display,
the timecode of its first frame), read once from the file.

Editors' formats place a marker by frame on the clip's own timecode, so a video whose file
carries a start timecode (a camera's `01:00:00;00`) gets its markers at that timecode plus
the moment, and a 29.97 fps file tagged with `;` is counted drop-frame.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..errors import UserError, require

#: The frame rates drop-frame timecode exists for (SMPTE 12M): 30000/1001 and 60000/1001.
DROP_FRAME_RATES = frozenset({Fraction(30000, 1001), Fraction(60000, 1001)})
#: The frame rates SMPTE timecode counts (those OpenTimelineIO's `to_timecode` takes).
SMPTE_RATES = frozenset({Fraction(24000, 1001), Fraction(24), Fraction(25), Fraction(30000, 1001),
                         Fraction(30), Fraction(48), Fraction(50), Fraction(60000, 1001),
                         Fraction(60)})  # fmt: skip


@dataclass(frozen=True)
class SourceClock:
    """A video's frame clock as editing tools read it.

    Args:
        fps: the exact frame rate, e.g. `Fraction(30000, 1001)`.
        duration_s: the video's length in seconds.
        drop_frame: its timecode is shown drop-frame (only at 30000/1001 and 60000/1001).
        start_frame: the frame number of its first frame on its timecode (0 without one).
        width, height: the picture's size in pixels (0 when unknown).

    >>> SourceClock(Fraction(25), 10.0).frames
    250
    >>> SourceClock(Fraction(25), 10.0, drop_frame=True)
    Traceback (most recent call last):
    ValueError: drop-frame timecode exists only at 30000/1001 and 60000/1001 fps, not 25
    """

    fps: Fraction
    duration_s: float
    drop_frame: bool = False
    start_frame: int = 0
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "fps", Fraction(self.fps))
        if self.fps <= 0:
            raise ValueError(f"fps must be positive, got {self.fps}")
        if self.drop_frame and self.fps not in DROP_FRAME_RATES:
            raise ValueError("drop-frame timecode exists only at 30000/1001 and 60000/1001 "
                             f"fps, not {self.fps}")  # fmt: skip
        if self.duration_s < 0 or self.start_frame < 0:
            raise ValueError("duration and start frame cannot be negative")

    @property
    def frames(self) -> int:
        """The video's length in whole frames (at least one)."""
        return max(1, round(Fraction(self.duration_s) * self.fps))


def rate_text(rate: Fraction) -> str:
    """A frame rate as people write it: `25`, `12.5`, `30000/1001`.

    >>> rate_text(Fraction(25)), rate_text(Fraction(25, 2)), rate_text(Fraction(30000, 1001))
    ('25', '12.5', '30000/1001')
    """
    if rate.denominator == 1:
        return str(rate.numerator)
    short = f"{float(rate):g}"
    return short if Fraction(short) == rate else str(rate)


def check_smpte(clocks: Iterable[tuple[Path, SourceClock]], what: str, why: str) -> None:
    """Refuse a video whose rate SMPTE timecode does not count, for a format that writes
    timecode.

    Args:
        clocks: `(video, clock)` pairs.
        what: the file, as the message names it (e.g. "--export m.edl").
        why: what in the format needs timecode.

    Raises:
        UserError: one line naming the video, its rate, the rates there are and what to
            export instead.

    >>> check_smpte([(Path("a.mp4"), SourceClock(Fraction(5), 1.0))], "--export m.edl", "CMX 3600")
    Traceback (most recent call last):
    longground.errors.UserError: --export m.edl: CMX 3600 cannot hold a.mp4 at 5 fps (...)...
    """
    for video, clock in clocks:
        if clock.fps not in SMPTE_RATES:
            rates = ", ".join(rate_text(r) for r in sorted(SMPTE_RATES))
            raise UserError(f"{what}: {why} cannot hold {video} at {rate_text(clock.fps)} fps "
                            f"(SMPTE timecode counts {rates} fps); export .otio, .fcpxml or "
                            ".csv instead")  # fmt: skip


def read_clock(video: Path) -> SourceClock:
    """The clock of `video`: rate, length and size from `video.probe`, drop-frame and start
    from the timecode its container carries (a QuickTime `tmcd` track or a `timecode` tag).

    Raises:
        UserError: the file cannot be read as a video.
    """
    from ..video import probe

    info = probe(video)
    tag = _timecode_tag(video)
    drop = tag is not None and (";" in tag or "." in tag) and info.fps in DROP_FRAME_RATES
    start = 0 if tag is None else _frames_of(tag, info.fps, drop)
    return SourceClock(info.fps, info.duration_s, drop, start, info.width, info.height)


def _timecode_tag(video: Path) -> str | None:
    """The `timecode` tag of the file's streams or container, if any."""
    from ..video.container import open_video

    with open_video(video) as source:
        for stream in source.container.streams:
            tag = stream.metadata.get("timecode")
            if tag:
                return tag
        return source.container.metadata.get("timecode") or None


def _frames_of(tag: str, fps: Fraction, drop_frame: bool) -> int:
    """The frame number a timecode tag names (0 when it cannot be read at this rate)."""
    otio = require("opentimelineio", "export")
    try:
        text = tag.replace(".", ";") if drop_frame else tag.replace(";", ":")
        return round(otio.opentime.from_timecode(text, float(fps)).value)
    except (ValueError, RuntimeError):
        return 0  # a rate SMPTE timecode does not have: count from the file's start


__all__ = ["DROP_FRAME_RATES", "SMPTE_RATES", "SourceClock", "check_smpte", "rate_text",
           "read_clock"]  # fmt: skip
