"""Frame-level ground truth read from a scene script.

Every condition a query can state is a `(n_frames,)` boolean mask over the video's frames, and
its ground-truth intervals are the runs of that mask: from the first frame where the condition
holds to the last one, each interval ending when that last frame stops being shown
(`(last + 1) / fps`). An object counts as on screen in a frame when at least half of it is
inside the frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..moments import Moments
from .script import Appearance, Instance, Shot, VideoScript, boxes_at, rotated_extent
from .script import visible_fraction as _visible_fraction

#: Share of an object's box that must be inside the frame for it to count as on screen.
VISIBLE_SHARE = 0.5


@dataclass(frozen=True)
class Track:
    """One appearance, frame by frame.

    Args:
        shot: index of its shot in the script.
        appearance: the scripted appearance.
        start_frame: the video frame of the shot's first frame.
        visible: `(n,)` bool, on screen (at least `VISIBLE_SHARE` of it) in each frame.
        in_frame: `(n,)` bool, any part of it inside the frame.
        moving: `(n,)` bool, moving by itself (not by the camera) in each frame of the shot.
    """

    shot: int
    appearance: Appearance
    start_frame: int
    visible: np.ndarray
    in_frame: np.ndarray
    moving: np.ndarray

    @property
    def instance(self) -> Instance:
        return self.appearance.instance

    @property
    def category(self) -> str:
        return self.appearance.instance.category


def track(script: VideoScript, shot_index: int, appearance: Appearance) -> Track:
    """Follow one appearance through its shot."""
    shot = script.shots[shot_index]
    t_s = script.local_times(shot)
    boxes, angles = boxes_at(appearance, shot, t_s, script.aspect)
    share = _visible_fraction(rotated_extent(boxes, angles), script.aspect)
    drawn = (t_s >= appearance.start_s) & (t_s < appearance.end_s)
    visible = drawn & (share >= VISIBLE_SHARE)
    in_frame = drawn & (share > 0)
    moving = appearance.path.moving(t_s)
    return Track(shot_index, appearance, shot.start_frame, visible, in_frame, moving)


TrackFilter = Callable[[Track], bool]


class Truth:
    """All tracks of a script, and masks built from them.

    >>> from fractions import Fraction
    >>> from .storyboard import plan_script
    >>> s = plan_script(np.random.default_rng(1), "v", 60.0, Fraction(5), 16 / 9, (2.0, 8.0))
    >>> truth = Truth(s)
    >>> truth.n_frames, truth.shot_of_frame.shape
    (300, (300,))
    """

    def __init__(self, script: VideoScript):
        self.script = script
        self.n_frames = script.n_frames
        self.fps = script.fps
        self.shot_of_frame = np.repeat(
            np.arange(len(script.shots)), [s.n_frames for s in script.shots]
        )
        self.tracks = [
            track(script, i, app) for i, shot in enumerate(script.shots) for app in shot.appearances
        ]

    def shot(self, index: int) -> Shot:
        return self.script.shots[index]

    def mask(
        self, keep: TrackFilter, moving: bool | None = None, partly: bool = False
    ) -> np.ndarray:
        """`(n_frames,)` bool: some kept track is on screen (and moving, or not, if asked).

        With `partly`, any part of it inside the frame counts as on screen.
        """
        out = np.zeros(self.n_frames, bool)
        for tr in self.tracks:
            if keep(tr):
                on = tr.in_frame if partly else tr.visible
                on = on if moving is None else on & (tr.moving == moving)
                out[tr.start_frame : tr.start_frame + len(on)] |= on
        return out

    def shots_mask(self, shots: set[int] | list[int]) -> np.ndarray:
        """`(n_frames,)` bool: frames of the given shots."""
        return np.isin(self.shot_of_frame, list(shots))

    def shots_showing(self, keep: TrackFilter) -> set[int]:
        """Indices of shots in which some kept track is on screen at least once."""
        return {tr.shot for tr in self.tracks if keep(tr) and tr.visible.any()}

    def window_mask(self, start_s: float, end_s: float) -> np.ndarray:
        """`(n_frames,)` bool: frames shown entirely inside `[start_s, end_s]`."""
        frames = np.arange(self.n_frames)
        fps = float(self.fps)
        return (frames / fps >= start_s) & ((frames + 1) / fps <= end_s)

    def causal_mask(self, outcome: str, target: str | None = None) -> np.ndarray:
        """`(n_frames,)` bool: cause-and-effect episodes with this outcome ("hit"/"miss").

        An episode runs from the first frame the ball is on screen to the first frame in which
        the knocked-over target lies still (a hit) or the last frame the ball is on screen
        (a miss).
        """
        out = np.zeros(self.n_frames, bool)
        fps = float(self.fps)
        for tr in self.tracks:
            causal = self.shot(tr.shot).causal
            if tr.category != "ball" or causal is None or causal.outcome != outcome:
                continue
            if target is not None and causal.target.category != target:
                continue
            on = np.flatnonzero(tr.visible)
            if not len(on):
                continue
            last = on[-1] if causal.end_s is None else int(np.ceil(causal.end_s * fps - 1e-9))
            out[tr.start_frame + on[0] : tr.start_frame + min(last, len(tr.visible) - 1) + 1] = True
        return out

    def spans(self, mask: np.ndarray) -> Moments:
        """The runs of a mask as moments in seconds (see the module docstring)."""
        return mask_to_moments(mask, self.fps)


def mask_to_moments(mask: np.ndarray, fps) -> Moments:
    """Runs of True in a `(N,)` frame mask as `[first / fps, (last + 1) / fps]` spans.

    >>> mask_to_moments(np.array([0, 1, 1, 0, 1], bool), 5).to_list()
    [[0.2, 0.6], [0.8, 1.0]]
    """
    padded = np.concatenate([[False], np.asarray(mask, bool), [False]])
    edges = np.flatnonzero(np.diff(padded.astype(np.int8)))
    starts, stops = edges[0::2], edges[1::2]
    fps = float(fps)
    spans = np.stack([starts / fps, stops / fps], axis=1) if len(starts) else np.zeros((0, 2))
    return Moments(spans)
