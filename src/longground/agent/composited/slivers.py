"""Whether a sliver of a shot is a shot of its own, read from the backdrops of the composited
scene: a piece of a neighbouring shot carries that shot's backdrop (the colours of its
frame's outer ring), a shot of its own has a backdrop of its own (`sliver_is_own_shot`).
"""

from __future__ import annotations

import numpy as np

from .boxes import RARE, colour_codes, foreground, object_box, ring_shares
from .colors import border_pixels


def holds_other_object(frames: np.ndarray, target_seen: float, accept_p: float) -> bool:
    """Whether every one of `frames` holds an object (`boxes.object_box` finds one in a
    half) and that object is not the target.

    Args:
        frames: `(N, H, W, 3)` uint8 frames.
        target_seen: probability that the target is seen at some point in them.
        accept_p: the probability at which a part of the plan holds.

    >>> still = np.zeros((2, 40, 80, 3), np.uint8); still[:, 10:30, 10:30] = 200
    >>> holds_other_object(still, 0.1, 0.5), holds_other_object(still, 0.9, 0.5)
    (True, False)
    >>> holds_other_object(np.zeros((2, 40, 80, 3), np.uint8), 0.1, 0.5)
    False
    """
    if target_seen >= accept_p or len(frames) == 0:
        return False
    width = frames.shape[2]
    return all(_has_object(f, ((0, width // 2), (width // 2, width))) for f in frames)


def _has_object(frame: np.ndarray, halves: tuple[tuple[int, int], ...]) -> bool:
    """Some half of the frame holds an object (`boxes.object_box`, one foreground for all)."""
    fg = foreground(frame)
    return any(object_box(frame, x0, x1, fg) is not None for x0, x1 in halves)


def backdrop_carries_on(frames: np.ndarray, neighbour: np.ndarray) -> bool:
    """Whether the backdrop of `frames` is the backdrop of `neighbour`: most (more than half)
    of their outer ring's pixels have colours that are not rare (`boxes.RARE`, the rarity
    that makes a pixel foreground) in the neighbour's ring.

    Args:
        frames: `(N, H, W, 3)` uint8.
        neighbour: `(M, H, W, 3)` uint8.

    >>> a = np.zeros((1, 40, 60, 3), np.uint8); a[...] = (50, 90, 210)
    >>> b = a.copy(); b[:, 10:30, 10:50] = (200, 40, 40)
    >>> backdrop_carries_on(a, b), backdrop_carries_on(a, 255 - b)
    (True, False)
    """
    ours = colour_codes(border_pixels(frames))
    return float(np.mean(ring_shares(neighbour)[ours] >= RARE)) > 0.5


def sliver_is_own_shot(frames: np.ndarray, step: int, target_seen: float, accept_p: float) -> bool:
    """Whether a sliver is a shot of its own, so that the shot past it is two cuts away.

    A sliver that is a piece of a neighbouring shot (a cut the graph split in two) has that
    shot's backdrop: the piece of the shot beyond it passes the look on; so does a piece
    of the instance's own shot (its backdrop alone before the object enters or after it
    leaves, or the target), unless it holds another object (`holds_other_object`). A
    backdrop of its own is a short shot of its own (a two-second filler or still).

    Args:
        frames: `(N + 2, H, W, 3)` uint8: the sample before the sliver, its N timeline
            samples, the sample after it.
        step: -1 looking back from the instance ("right after"), +1 looking ahead.
        target_seen: probability that the target is seen at some point in the sliver.
        accept_p: the probability at which a part of the plan holds.

    >>> blue = np.zeros((1, 40, 80, 3), np.uint8); blue[...] = (50, 90, 210)
    >>> red = blue[..., ::-1].copy(); grey = np.full_like(blue, 128)
    >>> sliver_is_own_shot(np.concatenate([red, blue, blue]), -1, 0.0, 0.5)
    False
    >>> sliver_is_own_shot(np.concatenate([red, grey, blue]), -1, 0.0, 0.5)
    True
    """
    before, inner, after = frames[:1], frames[1:-1], frames[-1:]
    near, far = (after, before) if step < 0 else (before, after)
    if backdrop_carries_on(inner, far):
        return False
    if backdrop_carries_on(inner, near):
        return holds_other_object(inner, target_seen, accept_p)
    return True
