"""CMX 3600 EDLs, written by OpenTimelineIO's CMX adapter and finished here.

Markers (`--export F.edl`): one event per searched video, the whole video, and a
`* LOC: TIMECODE COLOUR  query (score ..., 1st of 3, ...)` line per moment after it, the
locator form Avid writes and DaVinci Resolve reads as markers. Selects (`--selects F.edl`):
one event per moment.

What the adapter does not do is done on its text: the `FCM:` line saying drop or non-drop
frame, every timecode written the way the video counts (the adapter guesses drop-frame from
29.97 alone), locator text in its own case (the adapter upper-cases it), and the reel `AX`
(a file, not a tape: the adapter would cut `clip é #1.mp4` to the reel `clip  1`, whose
space breaks the event line). An EDL has one frame rate and SMPTE timecode: `check_edl_rates`
refuses the others before any search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import IO

from ..errors import UserError, require
from .clock import check_smpte, rate_text
from .found import Found
from .otio_timelines import marker_timeline, selects_timeline
from .sources import source_clips

TIMECODE = re.compile(r"\b\d\d:\d\d:\d\d[:;]\d\d\b")


def check_edl_rates(clocks: Sequence, what: str = "an EDL") -> None:
    """Refuse clocks an EDL cannot count: a rate without SMPTE timecode, or videos that
    differ in rate or in drop-frame counting (an EDL has one of each).

    Args:
        clocks: `(video, SourceClock)` pairs.
        what: how the message names the file.

    Raises:
        UserError: one line naming the video and the rate.
    """
    check_smpte(clocks, what, "a CMX 3600 EDL")
    kinds = {(clock.fps, clock.drop_frame) for _, clock in clocks}
    if len(kinds) > 1:
        listed = ", ".join(f"{v.name} at {rate_text(c.fps)}{' DF' if c.drop_frame else ''}"
                           for v, c in clocks)  # fmt: skip
        raise UserError(f"{what}: an EDL has one frame rate, but the videos differ: {listed}")


def write_edl(found: Sequence[Found], handle: IO[str]) -> None:
    """The marker timeline as a CMX 3600 EDL with `* LOC:` lines.

    Raises:
        UserError: a rate an EDL cannot hold, or videos of different rates.
    """
    sources = source_clips(found)
    check_edl_rates([(s.video, s.clock) for s in sources])
    locators = [_locator(s.clock, marker) for s in sources for _, marker in s.markers]
    handle.write(_edl_text(marker_timeline(found), [s.clock for s in sources], locators))


def write_selects_edl(found: Sequence[Found], handle: IO[str]) -> None:
    """The selects timeline (an event per moment) as a CMX 3600 EDL.

    Raises:
        UserError: a rate an EDL cannot hold, or videos of different rates.
    """
    timeline = selects_timeline(found)
    clocks = {item.video: item.with_clock().clock for item in found if item.moments.count}
    check_edl_rates(list(clocks.items()))
    handle.write(_edl_text(timeline, list(clocks.values()), []))


def _edl_text(timeline, clocks: list, locators: list[str]) -> str:
    """The adapter's EDL of `timeline`, finished: FCM line, timecodes, locators, reels."""
    otio = require("opentimelineio", "export")
    require("otio_cmx3600_adapter", "export")
    if not clocks:  # the adapter cannot write an empty track; a title alone is a valid EDL
        return f"TITLE: {timeline.name}\n\n"
    clock = clocks[0]
    for clip in timeline.find_clips():
        clip.metadata["cmx_3600"] = {"reel": "AX"}
    text = otio.adapters.write_to_string(timeline, "cmx_3600", rate=float(clock.fps))
    fcm = "DROP FRAME" if clock.drop_frame else "NON-DROP FRAME"
    lines, found = [], iter(locators)
    for line in text.splitlines():
        if line.startswith("* LOC:"):
            line = next(found)
        else:
            line = TIMECODE.sub(lambda m: _recount(m.group(), clock), line)
        lines.append(line)
        if line.startswith("TITLE:"):
            lines.append(f"FCM: {fcm}")
    return "\n".join(lines) + "\n"


def _locator(clock, marker) -> str:
    """`* LOC: 00:00:01:05 GREEN   a car (score 0.910, 1st of 3, agent)`."""
    timecode = _timecode(clock.start_frame + marker.first_frame, clock)
    text = " ".join(f"{marker.name} ({marker.comment})".split())
    return f"* LOC: {timecode} {marker.colour:7} {text}"


def _recount(timecode: str, clock) -> str:
    """A timecode the adapter wrote, in the clock's drop or non-drop counting."""
    otio = require("opentimelineio", "export")
    frames = otio.opentime.from_timecode(timecode, float(clock.fps)).value
    return _timecode(round(frames), clock)


def _timecode(frame: int, clock) -> str:
    otio = require("opentimelineio", "export")
    rate = float(clock.fps)
    return otio.opentime.to_timecode(otio.opentime.RationalTime(frame, rate), rate,
                                     clock.drop_frame)  # fmt: skip
