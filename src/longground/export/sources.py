"""The source clips of an export: each searched video with a moment, its clock, a name that
tells it apart, and the markers of every query on it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .clock import SourceClock
from .found import Found, video_labels
from .markers import Marker, markers_of


@dataclass(frozen=True)
class SourceClip:
    """One video as a clip in the editor's bin, with its markers.

    Args:
        video: the file.
        label: its name among the exported videos (`video_labels`).
        clock: its frame clock.
        markers: `(the search, the marker)` pairs, in time order.
    """

    video: Path
    label: str
    clock: SourceClock
    markers: tuple[tuple[Found, Marker], ...]


def source_clips(found: Sequence[Found]) -> list[SourceClip]:
    """One `SourceClip` per video that has a moment, in the order the videos first come;
    clocks are read from the files where not known.

    Raises:
        UserError: a video cannot be read.
    """
    with_moments = [item for item in found if item.moments.count]
    labels = video_labels([item.video for item in with_moments])
    clocks: dict[Path, SourceClock] = {}
    pairs: dict[Path, list[tuple[Found, Marker]]] = {}
    for item in with_moments:
        if item.video not in clocks:
            clocks[item.video] = item.with_clock().clock
        clock = clocks[item.video]
        pairs.setdefault(item.video, []).extend((item, m) for m in markers_of(item, clock.fps))
    return [
        SourceClip(video, labels[video], clocks[video],
                   tuple(sorted(marks, key=lambda pair: pair[1].first_frame)))
        for video, marks in pairs.items()
    ]  # fmt: skip


def clocks_of(found: Sequence[Found]) -> list[Found]:
    """`found` with every clock read (each video's once)."""
    read: dict[Path, SourceClock] = {}
    out = []
    for item in found:
        if item.clock is None and item.video not in read:
            read[item.video] = item.with_clock().clock
        out.append(item if item.clock is not None else replace(item, clock=read[item.video]))
    return out
