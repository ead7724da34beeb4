"""The one cut detector: where one shot ends and the next begins, read from the pixels.

Every step that needs cuts asks here: the shots the verifier's relations count in
(`EventCuts`), an episode's shot (`perception.episode`), the frames a sweep's backdrop is
read on (`perception.crossing`), whether two pieces of an instance lie in one shot. Frames
come from the frame sampler's grid, shrunk by striding to about `SHORT_SIDE` pixels on the
short side (`shrink`), and are compared pair by pair (`pair_changes`): a pixel changes when
one of its colour channels moves by more than `PIXEL_STEP` (colour, not gray: two tinted
backdrops of one texture differ in hue more than in brightness). A pair in which nothing
changes that much (a frame read twice, a still stretch, a step of a slow fade) is set aside
first; each other pair is read as it is, beside the nearest others. A pair is a cut
(`cut_pairs`) when

- it changes every cell of a `CUT_GRID` x `CUT_GRID` grid, each in at least `CUT_CELL` of its
  pixels: a cut replaces the whole picture, while a falling or crossing object, however large,
  changes only the cells it covers; or
- its changed share stands `CUT_SPIKE` times above the largest of the two pairs on each side
  (and above `MIN_CHANGED`): two shots on one backdrop differ only in their objects, but at
  once.

`perception/reference.py` holds the same rules as plain loops; the tests hold one against the
other.
"""

from __future__ import annotations

import numpy as np

from ..frames import FrameSampler

#: Gray or colour change (0-255) that counts a pixel as changed: a small object moving changes
#: a few thousandths of the frame at that step, compression noise nothing.
PIXEL_STEP = 25.0
#: Fraction of a frame's pixels that must change for a pair of frames to count as motion.
MIN_CHANGED = 1e-3
#: Frames are shrunk (by striding) to about this many pixels on the short side first.
SHORT_SIDE = 90
#: A cut changes every cell of a grid of this many cells a side...
CUT_GRID = 4
#: ...each in at least this share of its pixels. On the tuning rendering (480x270, 5 fps)
#: every one of its 23 cuts changed all 16 cells (the least changed cell of a cut: 9 %);
#: inside its shots a real-video clip changed at most 14, a fall or a crossing object at most
#: 8, and only the fastest pairs of a zoom in all 16.
CUT_CELL = 0.05
#: Or a cut stands this many times above the largest change of the two pairs on each side.
#: Tuning rendering: its cuts stand 4.0 to 10^4 times above, pairs inside a shot at most
#: 3.4 times (a zoom starting), 1.7 without zooms.
CUT_SPIKE = 4.0


def shrink(frames: np.ndarray) -> np.ndarray:
    """`(N, h, w, 3)` int16: frames strided to about `SHORT_SIDE` pixels on the short side.

    >>> shrink(np.zeros((2, 180, 320, 3), np.uint8)).shape
    (2, 90, 160, 3)
    """
    x = np.asarray(frames)
    stride = max(1, min(x.shape[1], x.shape[2]) // SHORT_SIDE)
    return x[:, ::stride, ::stride].astype(np.int16)


def pair_changes(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per consecutive pair of shrunk frames: the share of pixels whose gray level changes,
    and the pixels that change in some colour channel (both by more than `PIXEL_STEP`).

    Args:
        small: `(N, h, w, 3)` int16 shrunk frames (`shrink`).

    Returns:
        `(N - 1,)` float64 and `(N - 1, h, w)` bool.

    >>> f = np.zeros((2, 4, 4, 3), np.int16); f[1, :2, :, 0] = 200  # half turns red
    >>> gray, colour = pair_changes(f)
    >>> gray.tolist(), float(colour.mean())
    ([0.5], 0.5)
    """
    d = np.diff(np.asarray(small, np.int16), axis=0)
    gray = np.abs(d[..., 0] + d[..., 1] + d[..., 2]) > 3 * PIXEL_STEP  # mean over channels
    colour = (np.abs(d[..., 0]) > PIXEL_STEP) | (np.abs(d[..., 1]) > PIXEL_STEP)
    colour |= np.abs(d[..., 2]) > PIXEL_STEP
    return gray.mean(axis=(1, 2)).astype(np.float64), colour


def cut_pairs(changes: np.ndarray) -> np.ndarray:
    """`(P,)` bool: the cuts among pairs of frames, from their changed pixels.

    Args:
        changes: `(P, h, w)` bool, pixels changing by more than `PIXEL_STEP` in some colour
            channel per pair (`pair_changes`).

    >>> c = np.zeros((6, 8, 8), bool); c[0] = True; c[1, :4, :4] = True; c[4, :2, :4] = True
    >>> cut_pairs(c).tolist()
    [True, False, False, False, True, False]
    """
    changes = np.asarray(changes, bool)
    p, h, w = changes.shape
    rows = np.linspace(0, h, CUT_GRID + 1).astype(int)
    cols = np.linspace(0, w, CUT_GRID + 1).astype(int)
    out = np.ones(p, bool)
    for i in range(CUT_GRID):
        for j in range(CUT_GRID):
            part = changes[:, rows[i] : rows[i + 1], cols[j] : cols[j + 1]].reshape(p, -1)
            if part.shape[1]:  # a frame smaller than the grid has empty cells: they say nothing
                out &= part.mean(axis=1) >= CUT_CELL
    fraction = changes.reshape(p, -1).mean(axis=1)
    padded = np.pad(fraction, 2)
    around = np.max([padded[k : k + p] for k in (0, 1, 3, 4)], axis=0)
    return out | (fraction >= CUT_SPIKE * np.maximum(around, MIN_CHANGED))


def cuts(small: np.ndarray) -> np.ndarray:
    """`(N - 1,)` bool: which consecutive pairs of shrunk frames `(N, h, w, 3)` hold a cut.
    A pair in which no pixel changes by more than `PIXEL_STEP` (a frame read twice, a still
    stretch, a step of a slow fade) is never a cut, and is left out of the neighbours the
    others are compared with.

    >>> f = np.zeros((6, 8, 8, 3), np.int16); f[3:] = 200
    >>> cuts(f).tolist(), cuts(np.repeat(f, 2, axis=0))[5:7].tolist()
    ([False, False, True, False, False], [True, False])
    """
    small = np.asarray(small, np.int16)
    out = np.zeros(max(len(small) - 1, 0), bool)
    if len(small) < 2:
        return out
    _, colour = pair_changes(small)
    moved = np.flatnonzero(colour.any(axis=(1, 2)))  # pairs whose frames differ
    if not len(moved):
        return out
    # each pair that moves is read as it is, beside the nearest pairs that move: a still
    # stretch does not make a small change stand out, nor does a slow fade (each of its
    # steps below `PIXEL_STEP`) add up to a cut across it
    out[moved[cut_pairs(colour[moved])]] = True
    return out


def cut_times(frames: FrameSampler, start_s: float, end_s: float) -> np.ndarray:
    """`(C,)` times of the cuts between `start_s` and `end_s` (each halfway between the two
    grid frames around it), read on the sampler's grid.

    >>> video = np.zeros((40, 16, 16, 3), np.uint8); video[20:] = 255  # a cut at 2.5 s
    >>> frames = FrameSampler(lambda t: video[np.minimum((np.asarray(t) * 8).astype(int), 39)])
    >>> cut_times(frames, 1.0, 4.0).tolist()
    [2.4375]
    """
    times_s = frames.grid(start_s, end_s + 0.5 / frames.fps)
    small = np.concatenate([shrink(f) for f in frames.chunks(times_s) if len(f)] or
                           [np.zeros((0, 1, 1, 3), np.int16)])  # fmt: skip
    times_s = times_s[: len(small)]
    at = np.flatnonzero(cuts(small))
    return (times_s[at] + times_s[at + 1]) / 2


class EventCuts:
    """Which boundaries between consecutive event nodes are cuts, each read when first asked
    (`cut_before`) and kept: the cut detector (`cut_times`) on the frames within the
    timeline step around it. The graph puts a boundary halfway between two timeline samples,
    so its real cut lies within half a step of it; the frames are read a few grid steps
    further, so that the pairs at the reach's ends have neighbours. Without frames, every
    boundary is a cut.

    Args:
        frames: the query's frame sampler, or None.
        spans_s: `(E, 2)` event spans in time order.
        step_s: the timeline's sampling step.

    >>> video = np.zeros((80, 16, 16, 3), np.uint8); video[20:50] = 90; video[50:] = 255
    >>> frames = FrameSampler(lambda t: video[np.minimum((np.asarray(t) * 8).astype(int), 79)])
    >>> spans = np.array([[0.0, 2.5], [2.5, 4.5], [4.5, 6.25], [6.25, 10.0]])
    >>> EventCuts(frames, spans, 1.0).shots().tolist()  # cuts at 2.5 and 6.25 s, not 4.5 s
    [0, 1, 1, 2]
    """

    def __init__(self, frames: FrameSampler | None, spans_s: np.ndarray, step_s: float):
        self.frames, self.step_s = frames, float(step_s)
        self.spans_s = np.asarray(spans_s, np.float64).reshape(-1, 2)
        self._known: dict[int, bool] = {}

    def cut_before(self, event: int) -> bool:
        """Whether a cut lies between event `event - 1` and event `event` (the first event
        starts a shot)."""
        if event <= 0 or self.frames is None:
            return True
        if event not in self._known:
            at_s, fps = self.spans_s[event, 0], self.frames.fps
            reach_s = self.step_s / 2 + 2.0 / fps
            found = cut_times(self.frames, at_s - reach_s, at_s + reach_s)
            self._known[event] = bool((np.abs(found - at_s) <= self.step_s / 2 + 0.5 / fps).any())
        return self._known[event]

    def shots(self) -> np.ndarray:
        """`(E,)` shot index of each event: consecutive events with no cut between them are
        one shot (every boundary read)."""
        return np.cumsum([self.cut_before(e) for e in range(len(self.spans_s))], dtype=np.int64) - 1


def cut_count(frames: FrameSampler, start_s: float, end_s: float) -> int:
    """How many cuts lie between `start_s` and `end_s` (`cut_times`; cuts in consecutive
    pairs, a dissolve, count once).

    >>> video = np.zeros((40, 16, 16, 3), np.uint8); video[10:14] = 120; video[14:] = 255
    >>> frames = FrameSampler(lambda t: video[np.minimum((np.asarray(t) * 8).astype(int), 39)])
    >>> cut_count(frames, 0.0, 4.0), cut_count(frames, 0.0, 1.5)
    (2, 1)
    """
    found = cut_times(frames, start_s, end_s)
    return int(np.sum(np.diff(found) > 1.5 / frames.fps)) + 1 if len(found) else 0


def one_shot(frames: FrameSampler, from_s: float, to_s: float, step_s: float) -> bool:
    """Whether no cut lies between two touching pieces: the frames from one timeline step
    before `from_s` (the earlier piece's end) to one step after `to_s` (the later piece's
    start) hold no cut (`cuts`). The pieces' boundaries lie halfway between two timeline
    samples, so a cut between them is within that reach.

    Returns:
        False also when fewer than two frames decode (nothing says it is one shot).

    >>> f = np.zeros((40, 40, 60, 3), np.uint8); f[:, 10:20, 20:30] = 200
    >>> f[np.arange(40), 25:35, np.arange(40)] = 90  # something moves
    >>> at = lambda video: FrameSampler(lambda t: video[(np.asarray(t) * 8).astype(int)])
    >>> one_shot(at(f), 2.0, 2.0, 0.5)
    True
    >>> g = f.copy(); g[18:] = (0, 150, 255)
    >>> one_shot(at(g), 2.0, 2.0, 0.5)
    False
    """
    times_s = frames.grid(max(0.0, from_s - step_s), to_s + step_s + 0.5 / frames.fps)
    small = [shrink(f) for f in frames.chunks(times_s) if len(f)]
    small = np.concatenate(small) if small else np.zeros((0, 1, 1, 3), np.int16)
    return len(small) >= 2 and not cuts(small).any()
