"""Which verified instances show the same identity, from the objects' looks (`reid`).

For ordinal queries ("the second cat to appear") the aggregator groups instances by identity.
Each instance is looked at in two frames (`visibility.REGION_FRACTIONS` of its span). When a
frame shows more than one object and the source has region features, the half of the frame
that scores the target higher says which object is meant (a shot may show two objects side by
side); frames with one object need no region features.

Two objects side by side that touch (large objects on a large frame: one's tip over the other's
edge) are one region of `reid.object_parts`. Such a region lies across the frame's middle, and
its two halves are coloured unlike each other (`reid.same_colouring` of their core pixels, the
backdrop's hues aside as in `reid.without_backdrops`); it is then taken as two objects, its
pixels in each half (`two_sides`). One object across the middle keeps its colouring in both
halves. On r4 (1280x720, objects at 1.2 of their size) this finds 19 of the 30 frames of its
two-object shots whose objects touch, and splits 4 of its 214 frames of one object
(docs/notes/agent-log.md, "Objects that touch").
"""

from __future__ import annotations

import numpy as np

from ..frames import FrameSampler
from ..perception.visibility import region_times
from ..scene import CloserLooks
from .reid import (
    Look,
    backdrop_hues,
    core_colour,
    look_of,
    object_parts,
    same_colouring,
    same_object,
    without_backdrops,
)


def _sides(closer: CloserLooks | None, times_s: np.ndarray, text: str) -> list[int | None]:
    """Per time, the half (0 left, 1 right) whose region scores `text` higher, or None."""
    raw = None if closer is None else closer.halves_score(times_s, text)
    if raw is None or raw.shape[1] != 2:
        return [None] * len(times_s)
    return [int(i) for i in raw.argmax(axis=1)]


def instance_looks(
    closer: CloserLooks | None, frames: FrameSampler, spans_s: np.ndarray, text: str
) -> list[list[Look]]:
    """The looks of the object `text` names in each instance's frames.

    Args:
        closer: the query's closer looks (their halves tell which object a text means).
        frames: the query's frame sampler.
        spans_s: `(K, 2)` instance spans in seconds.
        text: the plan's target text.

    Returns:
        Per instance, the looks found (frames where nothing stands out are left out).
    """
    times = region_times(np.asarray(spans_s, np.float64).reshape(-1, 2))
    flat = times.reshape(-1)
    if flat.size == 0:
        return [[] for _ in range(len(times))]
    frames = frames.frames(flat)
    split = [two_sides(f, *object_parts(f)) for f in frames]
    parts = [p for p, _ in split]
    several = np.array([i for i, p in enumerate(parts) if len(p) > 1], dtype=int)
    sides: list[int | None] = [None] * len(flat)
    for i, side in zip(several, _sides(closer, flat[several], text)):
        sides[i] = side
    looks = [look_of(f, p, side, beyond)
             for f, (p, beyond), side in zip(frames, split, sides)]  # fmt: skip
    alone = [len(p) == 1 for p in parts]
    per, shape = times.shape[1], frames.shape[1:3]
    out = []
    for i in range(len(times)):
        mine = range(i * per, (i + 1) * per)
        found = [(looks[k], alone[k]) for k in mine if looks[k] is not None]
        out.append(whole_looks(single_looks(found), shape))
    return out


def two_sides(
    frame: np.ndarray, parts: list[np.ndarray], beyond: np.ndarray | None
) -> tuple[list[np.ndarray], np.ndarray | None]:
    """`reid.object_parts` with a lone region across the frame's middle taken as two objects,
    its pixels in each half, when each half holds at least a quarter as many of them as the
    other (the share that makes a region an object in `reid.object_parts`) and the halves are
    coloured unlike each other, the backdrop's hues aside (`reid.without_backdrops`; the larger
    first); anything else unchanged.

    >>> f = np.zeros((40, 80, 3), np.uint8); f[...] = (60, 170, 60)
    >>> f[10:30, 20:40] = (200, 30, 30); f[10:30, 40:60] = (30, 30, 200)  # red | blue
    >>> len(two_sides(f, *object_parts(f))[0])
    2
    >>> f[10:30, 40:60] = (200, 30, 30)  # one red object across the middle
    >>> len(two_sides(f, *object_parts(f))[0])
    1
    >>> g = np.zeros((40, 80, 3), np.uint8); g[...] = (205, 45, 45); g[8:32, 16:64] = 128
    >>> g[8:32, 52:64:2] = (200, 60, 60)  # one gray object, the red backdrop bled into its edge
    >>> len(two_sides(g, *object_parts(g))[0])
    1
    """
    if len(parts) != 1:
        return parts, beyond
    cols = np.arange(frame.shape[1]) >= frame.shape[1] // 2
    sides = sorted([parts[0] & ~cols, parts[0] & cols], key=lambda s: -int(s.sum()))
    if 4 * int(sides[1].sum()) < int(sides[0].sum()):
        return parts, beyond
    colours = (core_colour(frame, s, beyond) for s in sides)
    if same_colouring(*without_backdrops(*colours, backdrop_hues(frame))):
        return parts, beyond
    return sides, beyond


def single_looks(found: list[tuple[Look, bool]]) -> list[Look]:
    """The looks of frames where one object stands out, when there are any (else all): with
    several, which one the text means is read from the halves' scores (`_sides`), which on
    small frames may name the other object.

    Args:
        found: per frame, its look and whether it was the frame's only object.
    """
    alone = [look for look, one in found if one]
    return alone or [look for look, _ in found]


def whole_looks(looks: list[Look], frame_shape: tuple[int, int]) -> list[Look]:
    """The looks whose object lies inside the frame, when there are any (else all): an
    object cut by the frame's edge (entering, leaving, crossing) shows only part of its
    shape, which compares with nothing.

    >>> inside = Look((10, 20, 10, 20), np.ones(1), np.ones(1), np.ones(1))
    >>> cut = Look((10, 20, 0, 20), np.ones(1), np.ones(1), np.ones(1))
    >>> [len(whole_looks(x, (90, 160))) for x in ([inside, cut], [cut])]
    [1, 1]
    >>> whole_looks([inside, cut], (90, 160))[0] is inside
    True
    """
    h, w = frame_shape
    inside = [x for x in looks if x.box[0] > 0 and x.box[2] > 0 and x.box[1] < h and x.box[3] < w]
    return inside or looks


def same_identity_matrix(looks: list[list[Look]]) -> np.ndarray:
    """`(K, K)` bool: instances `i` and `j` may show the same identity (`reid.same_object`).

    >>> same_identity_matrix([[], []]).tolist()
    [[True, True], [True, True]]
    """
    k = len(looks)
    out = np.ones((k, k), bool)
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j] = out[j, i] = same_object(looks[i], looks[j])
    return out
