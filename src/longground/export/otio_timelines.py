"""The two OpenTimelineIO shapes every editing format is written from.

- `marker_timeline`: the default. One clip per searched video, the whole video, each
  carrying a marker per moment (name, colour, and in `metadata["longground"]` the score,
  rank, count, method and channel). Imported, the clips land in the editor's bin with their
  markers; nothing is cut.
- `selects_timeline`: one clip per moment, cut back to back (`--selects`).

Times are whole frames of each video's exact rate, on its own timecode (a file that starts
at `01:00:00;00` has its clip and markers there); media references are `file://` URLs with
every character a URL may not hold percent-encoded, so `Day 1/clip é #1.mp4` relinks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO
from urllib.parse import quote

from ..errors import require
from .found import Found, frame_range, video_labels
from .sources import SourceClip, clocks_of, source_clips


def media_url(video: Path) -> str:
    """The `file://` URL of a video, absolute, percent-encoded (RFC 3986).

    >>> media_url(Path("/footage/Day 1/clip é #1.mp4"))
    'file:///footage/Day%201/clip%20%C3%A9%20%231.mp4'
    """
    return "file://" + quote(str(Path(video).resolve()), safe="/")


def frames_range(otio, clock, first: int, count: int):
    """An `otio.opentime.TimeRange` of `count` frames from frame `first` at the clock's rate."""
    rate = float(clock.fps)
    return otio.opentime.TimeRange(otio.opentime.RationalTime(first, rate),
                                   otio.opentime.RationalTime(count, rate))  # fmt: skip


def marker_timeline(found: Sequence[Found], name: str = "longground markers"):
    """An `otio.schema.Timeline` of the searched videos as whole clips with their markers.

    Args:
        found: the searches; videos without a moment are left out.
        name: the timeline's name.

    >>> from fractions import Fraction
    >>> from longground.export.clock import SourceClock
    >>> from longground.moments import Moments
    >>> item = Found(Path("/v/a.mp4"), "a car", Moments.from_list([[1.2, 4.8]], [0.9]),
    ...              SourceClock(Fraction(25), 60.0, start_frame=90000))
    >>> clip = marker_timeline([item]).tracks[0][0]
    >>> marker = clip.markers[0]
    >>> clip.name, marker.name, marker.color, marker.marked_range.start_time.value
    ('a.mp4', 'a car', 'GREEN', 90030.0)
    """
    otio = require("opentimelineio", "export")
    track = otio.schema.Track(name="sources", kind=otio.schema.TrackKind.Video)
    for source in source_clips(found):
        track.append(_source_clip(otio, source))
    timeline = otio.schema.Timeline(name=name)
    timeline.tracks.append(track)
    return timeline


def _source_clip(otio, source: SourceClip):
    start = source.clock.start_frame
    whole = frames_range(otio, source.clock, start, source.clock.frames)
    reference = otio.schema.ExternalReference(target_url=media_url(source.video),
                                              available_range=whole)  # fmt: skip
    reference.name = source.video.name
    clip = otio.schema.Clip(name=source.label, media_reference=reference, source_range=whole)
    clip.metadata["longground"] = {"video": str(source.video),
                                   "drop_frame": source.clock.drop_frame}  # fmt: skip
    for item, marker in source.markers:
        clip.markers.append(otio.schema.Marker(
            name=marker.name,
            marked_range=frames_range(otio, source.clock, start + marker.first_frame,
                                      marker.frames),
            color=marker.colour,
            metadata={"longground": marker.metadata(item)},
        ))  # fmt: skip
    return clip


def selects_timeline(found: Sequence[Found], name: str = "longground selects"):
    """An `otio.schema.Timeline` with one video track holding one clip per moment, cut
    back to back, each named `<video> <query> <n>` (unique across videos).

    Args:
        found: the moments per video and query; a video's clock is read when unknown.
        name: the timeline's name.

    Returns:
        The timeline; each clip's metadata["longground"] keeps the query, the score and the
        unrounded `start_s`/`end_s`.

    >>> from fractions import Fraction
    >>> from longground.export.clock import SourceClock
    >>> from longground.moments import Moments
    >>> item = Found(Path("a.mp4"), "a car", Moments.from_list([[1.2, 4.8]]),
    ...              SourceClock(Fraction(25), 10.0))
    >>> clip = selects_timeline([item]).tracks[0][0]
    >>> clip.name, clip.source_range.start_time.value, clip.source_range.duration.value
    ('a.mp4 a car 1', 30.0, 90.0)
    """
    otio = require("opentimelineio", "export")
    found = clocks_of(found)
    labels = video_labels([item.video for item in found])
    track = otio.schema.Track(name="moments", kind=otio.schema.TrackKind.Video)
    for item in found:
        start = item.clock.start_frame
        whole = frames_range(otio, item.clock, start, item.clock.frames)
        scores = item.moments.scores
        for k, (start_s, end_s) in enumerate(item.moments.spans):
            first, count = frame_range(float(start_s), float(end_s), item.clock.fps)
            reference = otio.schema.ExternalReference(target_url=media_url(item.video),
                                                      available_range=whole)  # fmt: skip
            reference.name = item.video.name
            clip = otio.schema.Clip(name=f"{labels[item.video]} {item.query} {k + 1}",
                                    media_reference=reference,
                                    source_range=frames_range(otio, item.clock, start + first,
                                                              count))  # fmt: skip
            clip.metadata["longground"] = {
                "video": str(item.video), "query": item.query, "start_s": float(start_s),
                "end_s": float(end_s), "score": None if scores is None else float(scores[k]),
                "method": item.method, "channel": item.channel,
            }  # fmt: skip
            track.append(clip)
    timeline = otio.schema.Timeline(name=name)
    timeline.tracks.append(track)
    return timeline


def write_otio(found: Sequence[Found], handle: IO[str]) -> None:
    """The marker timeline as OpenTimelineIO JSON."""
    otio = require("opentimelineio", "export")
    handle.write(otio.adapters.write_to_string(marker_timeline(found), "otio_json"))


def write_selects_otio(found: Sequence[Found], handle: IO[str]) -> None:
    """The selects timeline as OpenTimelineIO JSON."""
    otio = require("opentimelineio", "export")
    handle.write(otio.adapters.write_to_string(selects_timeline(found), "otio_json"))
