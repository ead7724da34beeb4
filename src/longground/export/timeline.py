"""OpenTimelineIO (.otio) and CMX 3600 EDL (.edl): one clip per moment, cut back to back.

Each clip's source range is the moment rounded to whole frames of its video, and its media
reference is the video file, so an editor relinks nothing. The EDL is written by the CMX 3600
adapter of OpenTimelineIO from the same timeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from ..errors import UserError, require
from .found import Found, frame_range


def build_timeline(found: Sequence[Found], name: str = "longground"):
    """An `otio.schema.Timeline` with one video track holding one clip per moment.

    Args:
        found: the moments per video and query; a video's frame rate is read when unknown.
        name: the timeline's name.

    Returns:
        The timeline; each clip's metadata["longground"] keeps the query, the score and the
        unrounded `start_s`/`end_s`.

    >>> from pathlib import Path
    >>> from fractions import Fraction
    >>> from longground.moments import Moments
    >>> item = Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]]), Fraction(25))
    >>> clip = build_timeline([item]).tracks[0][0]
    >>> clip.source_range.start_time.value, clip.source_range.duration.value
    (30.0, 90.0)
    """
    otio = require("opentimelineio", "export")
    track = otio.schema.Track(name="moments", kind=otio.schema.TrackKind.Video)
    for item in (i.with_fps() for i in found):
        rate = float(item.fps)
        reference = otio.schema.ExternalReference(
            target_url=otio.url_utils.url_from_filepath(str(item.video.resolve()))
        )
        reference.name = item.video.name
        scores = item.moments.scores
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            first, count = frame_range(float(start_s), float(end_s), item.fps)
            clip = otio.schema.Clip(
                name=f"{item.query} {k + 1}",
                media_reference=reference.clone(),
                source_range=otio.opentime.TimeRange(
                    otio.opentime.RationalTime(first, rate),
                    otio.opentime.RationalTime(count, rate),
                ),
            )
            clip.metadata["longground"] = {
                "video": str(item.video),
                "query": item.query,
                "start_s": float(start_s),
                "end_s": float(end_s),
                "score": None if scores is None else float(scores[k]),
            }
            track.append(clip)
    timeline = otio.schema.Timeline(name=name)
    timeline.tracks.append(track)
    return timeline


def write_otio(found: Sequence[Found], handle: IO[str]) -> None:
    """The timeline as OpenTimelineIO JSON."""
    otio = require("opentimelineio", "export")
    handle.write(otio.adapters.write_to_string(build_timeline(found), "otio_json"))


def write_edl(found: Sequence[Found], handle: IO[str]) -> None:
    """The timeline as a CMX 3600 EDL; every video must share one frame rate (an EDL has one).

    Raises:
        UserError: the videos differ in frame rate.
    """
    otio = require("opentimelineio", "export")
    require("otio_cmx3600_adapter", "export")
    found = [item.with_fps() for item in found]
    rates = {item.fps for item in found}
    if len(rates) > 1:
        listed = ", ".join(f"{item.video.name} at {item.fps} fps" for item in found)
        raise UserError(f"an EDL has one frame rate, but the videos differ: {listed}")
    timeline = build_timeline(found)
    if not len(timeline.tracks[0]):
        # The adapter cannot write an empty track; an EDL with a title and no events is valid.
        handle.write(f"TITLE: {timeline.name}\n\n")
        return
    handle.write(otio.adapters.write_to_string(timeline, "cmx_3600"))
