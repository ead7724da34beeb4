"""Whether an instance crosses the frame: how far what moves sweeps across it.

"A cat moving across the screen" is an object that comes in on one side and leaves on the
other, not one that slides in and stops, or slides out. The action nodes cannot tell: a
crossing is often cut into several events (a large object changes the frame's look as it
goes), each with its own nodes, and an event's median frame, the backdrop of the tracked
move, then holds the object itself. So the sweep is read on the instance's whole shot: its
frames are decoded, the per-pixel median of the shot is the backdrop (the crossing object
is absent from most of it, and so is one that comes in late or leaves early), and
`flow.centre_sweep` measures how far the centre of what differs from it travels during the
instance. On the shots of the tuning rendering (480x270, 2 fps): crossings 0.66-0.79 of the
frame width, objects sliding in or out and stopping 0.11-0.17, a second object sliding into
a pair shot 0.06-0.09, still shots 0.02 at most; `sweep_min` 0.4 lies between.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..graph.flow import centre_sweep, small_gray
from ..graph.levels import MAX_FLOW_FPS, MIN_FLOW_FRAMES

#: Rate a shot is looked at for its sweep (at least `MIN_FLOW_FRAMES` frames, up to
#: `MAX_FLOW_FPS`): a crossing of 2 s still shows the object at four places.
SWEEP_FPS = 2.0


def run_sweep(
    frames_at: Callable[[np.ndarray], np.ndarray],
    shot_s: tuple[float, float],
    run_s: tuple[float, float],
    step_s: float,
    side: int = 160,
) -> float:
    """How far what differs from the shot's backdrop sweeps across the frame during the run.

    Args:
        frames_at: decodes `(N, H, W, 3)` uint8 frames at given times.
        shot_s: the shot's `(start_s, end_s)` from the event boundaries.
        run_s: the instance's `(start_s, end_s)` inside the shot.
        step_s: the timeline's step: the boundaries are known to within it, so half a step
            is left out at both ends of the shot (a frame of the next shot would differ
            everywhere), and the run is widened by as much.
        side: longest side of the grey frames, in pixels.

    Returns:
        Fraction of the frame width (`flow.centre_sweep`).

    >>> video = np.zeros((40, 20, 80, 3), np.uint8)  # 10 s at 4 fps: a square crosses in 2-8 s
    >>> for t in range(8, 32): video[t, 5:15, int((t - 8) * 3.1) : int((t - 8) * 3.1) + 8] = 200
    >>> frames_at = lambda times: video[np.minimum((np.asarray(times) * 4).astype(int), 39)]
    >>> round(run_sweep(frames_at, (0.0, 10.0), (2.0, 8.0), 1.0), 2)
    0.85
    >>> round(run_sweep(frames_at, (0.0, 10.0), (2.5, 3.5), 1.0), 2)  # a part of it
    0.3
    """
    start_s, end_s = shot_s
    margin_s = step_s / 2
    if end_s - start_s >= 3 * margin_s:
        start_s, end_s = start_s + margin_s, end_s - margin_s
    fps = min(max(SWEEP_FPS, MIN_FLOW_FRAMES / max(end_s - start_s, 1e-6)), MAX_FLOW_FPS)
    times_s = np.arange(start_s, end_s, 1.0 / fps)
    frames = frames_at(times_s)
    if len(frames) < 3:
        return 0.0
    gray = small_gray(frames, side)
    times_s = times_s[: len(gray)]
    within = (times_s >= run_s[0] - margin_s) & (times_s <= run_s[1] + margin_s)
    return centre_sweep(gray, within)
