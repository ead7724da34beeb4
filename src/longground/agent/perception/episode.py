"""One episode of motion inside one shot: the span of a cause and its effect, or of something
passing by something else.

A cause and its effect happen through motion ("the ball knocks over the cup": the ball rolls
in, the cup falls and comes to rest), and so does passing by ("the ball rolls past the cup").
Such a moment starts when the first thing starts to move and ends when the last thing comes
to rest, and both ends lie inside one shot: a cut starts another scene, whatever moves there.
The timeline the graph is built on samples the video at 0.5 to 2 fps, too coarse for moments
of 2 to 8 seconds, and the action nodes' flow averages a small moving object away. So the
shot is looked at again, at `EPISODE_FPS`:

1. frames from one timeline step before the shot's first event to one step after its last
   (the event boundaries lie halfway between two samples, so the cut is within that reach);
2. per consecutive pair, the fraction of pixels whose gray level changes by more than
   `PIXEL_STEP` (a small object moving changes a few thousandths of the frame, a cut most of
   it, compression noise nothing at that step);
3. the cuts are the largest changes within one step of each end of the shot;
4. the episode runs from the first frame of the first pair between the cuts that changes at
   least `MIN_CHANGED` of the frame to the second frame of the last such pair.

No such pair: nothing moves in the shot, and there is no episode.

Whether something *falls* in the episode (an effect: "knocks over", "makes it fall") or only
goes by ("misses", "rolls past without knocking it over") is read from the same changes: a
falling object moves much more of the frame at once than the small thing rolling into it, so
the largest change of the episode stands `FALL_RATIO` times above its typical (median) moving
pair. Chosen on the tuning rendering (480x270, 5 fps): the largest over the median is 10 to 37
in its four knock-overs and 1.3 to 2.5 in its four passings; 5 lies between them (about their
geometric middle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Frames per second the shot is looked at.
EPISODE_FPS = 8.0
#: Gray-level change (0-255) that counts a pixel as changed.
PIXEL_STEP = 25.0
#: Fraction of a frame's pixels that must change for a pair of frames to count as motion.
MIN_CHANGED = 1e-3
#: Frames are shrunk (by striding) to about this many pixels on the short side first.
SHORT_SIDE = 90
#: Largest over median change of an episode's moving pairs from which something falls in it.
FALL_RATIO = 5.0
#: Frames decoded at once (a long shot is read in chunks, so memory stays bounded).
CHUNK = 64


@dataclass(frozen=True)
class Episode:
    """One episode of motion inside a shot.

    Attributes:
        start_s, end_s: from the first frame that moves to the last (seconds).
        peak: the largest changed fraction of a pair in it.
        typical: the median changed fraction of its moving pairs.
    """

    start_s: float
    end_s: float
    peak: float
    typical: float

    @property
    def falls(self) -> bool:
        """Something falls (or is knocked over) in the episode: its largest change stands
        `FALL_RATIO` times above the typical one.

        >>> Episode(0.0, 2.0, 0.1, 0.004).falls, Episode(0.0, 2.0, 0.006, 0.004).falls
        (True, False)
        """
        return self.peak >= FALL_RATIO * self.typical

    def to_record(self) -> dict[str, float | bool]:
        return {"span_s": [self.start_s, self.end_s], "peak": self.peak,
                "typical": self.typical, "falls": self.falls}  # fmt: skip


def changed_fraction(frames: np.ndarray, pixel_step: float = PIXEL_STEP) -> np.ndarray:
    """Per consecutive pair of frames, the fraction of pixels whose gray level changes by
    more than `pixel_step`.

    Args:
        frames: `(N, H, W, 3)` uint8 frames in time order.
        pixel_step: gray-level step (0-255).

    Returns:
        `(N - 1,)` float64 in [0, 1].

    >>> f = np.zeros((3, 4, 5, 3), np.uint8); f[2, 0, :2] = 200
    >>> changed_fraction(f).tolist()
    [0.0, 0.1]
    """
    x = np.asarray(frames)
    stride = max(1, min(x.shape[1], x.shape[2]) // SHORT_SIDE)
    gray = x[:, ::stride, ::stride].astype(np.float32).mean(axis=3)
    if len(gray) < 2:
        return np.zeros(0)
    return (np.abs(np.diff(gray, axis=0)) > pixel_step).mean(axis=(1, 2)).astype(np.float64)


def _cut_pair(times_s: np.ndarray, changed: np.ndarray, boundary_s: float, reach_s: float):
    """Index of the pair with the largest change among pairs within `reach_s` of
    `boundary_s`, or None when no pair lies there (the boundary is the video's edge)."""
    mid = (times_s[:-1] + times_s[1:]) / 2
    near = np.flatnonzero(np.abs(mid - boundary_s) <= reach_s)
    if not len(near) or times_s[0] >= boundary_s or times_s[-1] <= boundary_s:
        return None
    return int(near[np.argmax(changed[near])])


def motion_span(
    times_s: np.ndarray,
    changed: np.ndarray,
    shot_s: tuple[float, float],
    reach_s: float,
    min_changed: float = MIN_CHANGED,
) -> Episode | None:
    """The episode of motion inside a shot, from sampled frames around it.

    Args:
        times_s: `(N,)` rising times of the frames.
        changed: `(N - 1,)` changed fractions of consecutive pairs (`changed_fraction`).
        shot_s: the shot's `(start_s, end_s)` as the event boundaries put it.
        reach_s: how far from those boundaries the cuts may lie (one timeline step).
        min_changed: fraction of a frame that must change for a pair to be motion.

    Returns:
        `Episode` from the first frame of the first moving pair to the second frame of the
        last one, between the cuts; None when no pair between them moves.

    >>> t = np.arange(0.0, 10.01, 0.5)
    >>> c = np.zeros(20); c[1] = 0.9; c[18] = 0.9  # cuts at 0.75 and 9.25
    >>> c[5:9] = 0.004  # something moves from 2.5 to 4.5
    >>> e = motion_span(t, c, (1.0, 9.0), reach_s=1.0)
    >>> e.start_s, e.end_s, e.falls
    (2.5, 4.5, False)
    >>> motion_span(t, np.zeros(20), (1.0, 9.0), reach_s=1.0) is None
    True
    """
    t = np.asarray(times_s, np.float64)
    c = np.asarray(changed, np.float64)
    first_cut = _cut_pair(t, c, shot_s[0], reach_s)
    last_cut = _cut_pair(t, c, shot_s[1], reach_s)
    lo = 0 if first_cut is None else first_cut + 1
    hi = len(c) if last_cut is None else last_cut
    moving = lo + np.flatnonzero(c[lo:hi] >= min_changed)
    if not len(moving):
        return None
    changes = c[moving]
    return Episode(float(t[moving[0]]), float(t[moving[-1] + 1]), float(changes.max()),
                   float(np.median(changes)))  # fmt: skip


def shot_episode(
    frames_at: Callable[[np.ndarray], np.ndarray],
    shot_s: tuple[float, float],
    step_s: float,
    fps: float = EPISODE_FPS,
) -> Episode | None:
    """The episode of motion inside one shot, decoding its frames at `fps` (see the module
    docstring); None when nothing moves in it.

    Args:
        frames_at: decodes `(N, H, W, 3)` uint8 frames at given times.
        shot_s: the shot's `(start_s, end_s)` from the event boundaries.
        step_s: the timeline's sampling step (how far the real cuts may lie from them).
        fps: rate the shot is looked at.
    """
    start_s, end_s = max(0.0, shot_s[0] - step_s), shot_s[1] + step_s
    times_s = np.arange(start_s, end_s, 1.0 / fps)
    changed: list[np.ndarray] = []
    previous = None
    for at in range(0, len(times_s), CHUNK):
        frames = frames_at(times_s[at : at + CHUNK])
        if previous is not None and len(frames):
            frames = np.concatenate([previous, frames])
        changed.append(changed_fraction(frames))
        previous = frames[-1:]
        if len(frames) < min(CHUNK, len(times_s) - at) + (at > 0):
            break  # a truncated file gives fewer frames
    n_pairs = sum(len(c) for c in changed)
    if n_pairs < 1:
        return None
    times_s = times_s[: n_pairs + 1]
    return motion_span(times_s, np.concatenate(changed), shot_s, step_s)
