"""Whether an instance crosses the frame: how far what moves sweeps across it.

"A cat moving across the screen" is an object that comes in on one side and leaves on the
other, not one that slides in and stops, or slides out. The action nodes cannot tell: a
crossing is often cut into several events (a large object changes the frame's look as it
goes, and the shot grouping takes that for a cut), each with its own nodes, and an event's
median frame, the backdrop of the tracked move, then holds the object itself. So the sweep
is read on the instance's surroundings: its frames are decoded `CONTEXT_S` beyond it on both
sides, up to the nearest cut (`cuts.cuts`); the per-pixel median of those frames is the
backdrop (the crossing object is absent from most of them),
and `flow.centre_sweep` measures how far the centre of what differs from it travels during
the instance. Read on each shot of the tuning rendering (480x270) as one instance:
crossings 0.66-0.78 of the frame width, objects sliding in or out and stopping 0.11-0.17, a
second object sliding into a pair shot 0-0.09, a ball knocking something over 0.09-0.29
(`perf/crossing_sweeps.py`); `sweep_min` 0.5 lies between.
"""

from __future__ import annotations

import numpy as np

from ..frames import FrameSampler
from ..graph.flow import centre_sweep, small_gray
from .cuts import cuts, shrink

#: Rate the instance and its surroundings are looked at: a crossing of 2 s shows the object
#: at four places.
SWEEP_FPS = 2.0
#: How far beyond the instance its backdrop is looked for, on both sides, in seconds.
CONTEXT_S = 3.0


def run_sweep(
    frames: FrameSampler,
    run_s: tuple[float, float],
    step_s: float,
    side: int = 160,
    whole_shot: bool = False,
) -> float:
    """How far what differs from the backdrop around the run sweeps across the frame
    during it.

    Args:
        frames: the query's frame sampler (every `SWEEP_FPS` of its grid is read).
        run_s: the instance's `(start_s, end_s)`.
        step_s: the timeline's step: the run's ends are known to within it, so the sweep is
            read on the run widened by half a step.
        side: longest side of the grey frames, in pixels.
        whole_shot: read the sweep on all frames between the cuts around the run (up to
            `CONTEXT_S` beyond it), not on the run's: whether the shot the run lies in
            holds a crossing (an object sliding into view is the first half of one).

    Returns:
        Fraction of the frame width (`flow.centre_sweep`).

    >>> video = np.zeros((40, 20, 80, 3), np.uint8)  # 10 s at 4 fps: a square crosses in 2-8 s
    >>> for t in range(8, 32): video[t, 5:15, int((t - 8) * 3.1) : int((t - 8) * 3.1) + 8] = 200
    >>> frames = FrameSampler(lambda t: video[np.minimum((np.asarray(t) * 4).astype(int), 39)])
    >>> round(run_sweep(frames, (2.0, 8.0), 1.0), 2)
    0.85
    >>> round(run_sweep(frames, (2.5, 3.5), 1.0), 2)  # a part of it
    0.3
    >>> round(run_sweep(frames, (2.5, 3.5), 1.0, whole_shot=True), 2)  # 3 s either side
    0.61
    """
    margin_s = step_s / 2
    every = max(int(round(frames.fps / SWEEP_FPS)), 1)
    times_s = frames.grid(max(run_s[0] - CONTEXT_S, 0.0), run_s[1] + CONTEXT_S, every)
    shown = frames.frames(times_s)
    if len(shown) < 3:
        return 0.0
    gray = small_gray(shown, side)
    times_s = times_s[: len(gray)]
    # a cut at the run's ends lies within half a step of them, and the two samples around it
    # within half a sample step more
    inset_s = margin_s + 0.5 / SWEEP_FPS
    core_s = (run_s[0] + inset_s, max(run_s[1] - inset_s, run_s[0] + inset_s))
    lo, hi = _between_cuts(cuts(shrink(shown[: len(gray)])), times_s, core_s)
    within = (times_s >= run_s[0] - margin_s) & (times_s <= run_s[1] + margin_s)
    if whole_shot:
        within = np.ones(len(gray), bool)
    return centre_sweep(gray[lo:hi], within[lo:hi])


def _between_cuts(
    cut: np.ndarray, times_s: np.ndarray, core_s: tuple[float, float]
) -> tuple[int, int]:
    """`[lo, hi)` frame range from the last cut (`(N - 1,)` bool over pairs of the `(N,)`
    frames at `times_s`) before `core_s` to the first after it (cuts inside the core, which
    the run may hold at its ends' precision, are not looked at)."""
    middle_s = (times_s[:-1] + times_s[1:]) / 2
    before = np.flatnonzero(cut & (middle_s < core_s[0]))
    after = np.flatnonzero(cut & (middle_s > core_s[1]))
    lo = int(before.max()) + 1 if len(before) else 0
    hi = int(after.min()) + 1 if len(after) else len(times_s)
    return lo, hi
