"""One episode of motion inside one shot: the span of a cause and its effect, or of something
passing by something else.

A cause and its effect happen through motion ("the ball knocks over the cup": the ball rolls
in, the cup falls and comes to rest), and so does passing by ("the ball rolls past the cup").
Such a moment starts when the first thing starts to move and ends when the last thing comes
to rest, and both ends lie inside one shot: a cut starts another scene, whatever moves there.
The timeline the graph is built on samples the video at 0.5 to 2 fps, too coarse for moments
of 2 to 8 seconds, and the action nodes' flow averages a small moving object away. So the
shot is looked at again, at the frame sampler's rate (`frames.SAMPLER_FPS`):

1. frames from one timeline step before the graph's shot to one step after it (its
   boundaries lie halfway between two samples, so a cut there is within that reach);
2. per consecutive pair, the fraction of pixels whose gray level changes by more than
   `PIXEL_STEP` (a small object moving changes a few thousandths of the frame, compression
   noise nothing at that step);
3. the cuts are the pairs that change *every* cell of a `CUT_GRID` x `CUT_GRID` grid (at
   least `CUT_CELL` of its pixels, by more than `PIXEL_STEP` in some colour channel): a
   cut replaces the whole picture, while a falling or crossing object, however large,
   changes only the cells it covers. Colour, not gray: two tinted backdrops of one
   texture differ in hue more than in brightness. Two shots on one backdrop differ only
   in their objects, but at once: a pair that changes `CUT_SPIKE` times more than the
   pairs around it is a cut too. When no cut lies within one step of an
   end of the graph's shot, that boundary is a change inside the shot (the graph splits a
   shot where something falls), and frames are read up to the scene's `look_s` further for
   the cut (where something moves at that end: a still stretch adds nothing to an episode);
4. the shot is the run of pairs between the cuts around the candidate; its episode runs
   from the first frame of its first pair that changes at least `MIN_CHANGED` of the frame
   to the second frame of its last such pair.

No such pair: nothing moves in the shot, and there is no episode.

Whether something *falls* in the episode (an effect: "knocks over", "makes it fall") or only
goes by ("misses", "rolls past without knocking it over") is read from the same changes: a
falling object moves much more of the frame at once than the small thing rolling into it, so
the largest change of the episode stands `FALL_RATIO` times above its typical (median) moving
pair. Chosen on the tuning rendering (480x270, 5 fps): the largest over the median is 10 to 37
in its four knock-overs and 1.3 to 2.5 in its four passings; 5 lies between them (about their
geometric middle).

Something passing by something else needs that something else: an object that *stays
standing* in the shot while the other moves. Where the scene can read it (`scene.Scene.
standing`: the composited scene's boundary prior, on the middle frame of the shot, less every
pixel that changes at some point of the shot) an episode where nothing stands is no passing
by; an object crossing, entering or leaving the frame alone leaves nothing standing. Where it
cannot, standing is unknown and does not decide.

And whether what moved went *through*: the shot's last frame shows what its first showed. A
passing-by needs it (the mover went by and on; an object entering beside a still one stays);
an effect needs its opposite (what fell lies there at the end; an object crossing the frame
leaves it as it was, however its changes peak). No constant: "the same" is under
`MIN_CHANGED` of the frame changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..frames import FrameSampler

#: Gray-level change (0-255) that counts a pixel as changed.
PIXEL_STEP = 25.0
#: Fraction of a frame's pixels that must change for a pair of frames to count as motion.
MIN_CHANGED = 1e-3
#: Frames are shrunk (by striding) to about this many pixels on the short side first.
SHORT_SIDE = 90
#: Largest over median change of an episode's moving pairs from which something falls in it.
FALL_RATIO = 5.0
#: A cut changes every cell of a grid of this many cells a side...
CUT_GRID = 4
#: ...each in at least this share of its pixels. On the tuning rendering every one of its
#: 23 cuts changed all 16 cells (the least changed cell of a cut: 9 %); inside its shots a
#: real-video clip changed at most 14, a fall or a crossing object at most 8, and only the
#: fastest pairs of a zoom in all 16 (a zoom shot cut in two: no episode is asked of it).
CUT_CELL = 0.05
#: Or a cut stands this many times above the largest change of the two pairs on each side
#: (a cut between two shots on one backdrop changes only the objects' cells, but at once).
#: Tuning rendering: its cuts stand 4.0 to 10^4 times above, pairs inside a shot at most
#: 3.4 times (a zoom starting), 1.7 without zooms.
CUT_SPIKE = 4.0
#: `standing(frame (h, w, 3), moved (h, w)) -> bool`: something stays standing apart from
#: the pixels that moved (`scene.Scene.standing`).
Standing = Callable[[np.ndarray, np.ndarray], bool]


@dataclass(frozen=True)
class Episode:
    """One episode of motion inside a shot.

    Attributes:
        start_s, end_s: from the first frame that moves to the last (seconds).
        peak: the largest changed fraction of a pair in it.
        typical: the median changed fraction of its moving pairs.
        standing: something stays standing in the shot while the rest moves (None:
            unknown, the scene cannot read it).
        through: what moved went through: the shot's last frame shows what its first
            frame showed.
    """

    start_s: float
    end_s: float
    peak: float
    typical: float
    standing: bool | None = True
    through: bool = True

    @property
    def falls(self) -> bool:
        """Something falls (or is knocked over) in the episode: its largest change stands
        `FALL_RATIO` times above the typical one.

        >>> Episode(0.0, 2.0, 0.1, 0.004).falls, Episode(0.0, 2.0, 0.006, 0.004).falls
        (True, False)
        """
        return self.peak >= FALL_RATIO * self.typical

    def fits(self, kind: str) -> bool:
        """The episode is of the plan's kind (`Plan.episode`): "effect" needs a fall that
        lasts (the fallen thing lies there at the end: not `through`), "passing" no fall,
        something standing (where known), and the mover gone through.

        >>> Episode(0.0, 2.0, 0.006, 0.004).fits("passing")
        True
        >>> Episode(0.0, 2.0, 0.006, 0.004, standing=False).fits("passing")
        False
        """
        if kind == "effect":
            return self.falls and not self.through
        return not self.falls and self.standing is not False and self.through

    def to_record(self) -> dict[str, float | bool | None]:
        return {"span_s": [self.start_s, self.end_s], "peak": self.peak,
                "typical": self.typical, "falls": self.falls,
                "standing": self.standing, "through": self.through}  # fmt: skip


def shrink(frames: np.ndarray) -> np.ndarray:
    """Frames strided to about `SHORT_SIDE` pixels on the short side, as int16 RGB."""
    x = np.asarray(frames)
    stride = max(1, min(x.shape[1], x.shape[2]) // SHORT_SIDE)
    return x[:, ::stride, ::stride].astype(np.int16)


def cut_pairs(changes: np.ndarray, grid: int = CUT_GRID, cell: float = CUT_CELL) -> np.ndarray:
    """`(P,)` bool: the cuts, pairs that change every cell of a `grid` x `grid` grid (at
    least `cell` of its pixels) or whose changed fraction stands `CUT_SPIKE` times above the
    largest of the two pairs on each side (and of `MIN_CHANGED`).

    Args:
        changes: `(P, h, w)` bool, pixels changing by more than `PIXEL_STEP` in some colour
            channel per pair.

    >>> c = np.zeros((6, 8, 8), bool); c[0] = True; c[1, :4, :4] = True; c[4, :2, :4] = True
    >>> cut_pairs(c).tolist()
    [True, False, False, False, True, False]
    """
    p, h, w = changes.shape
    rows, cols = np.linspace(0, h, grid + 1).astype(int), np.linspace(0, w, grid + 1).astype(int)
    out = np.ones(p, bool)
    for i in range(grid):
        for j in range(grid):
            part = changes[:, rows[i] : rows[i + 1], cols[j] : cols[j + 1]]
            out &= part.reshape(p, -1).mean(axis=1) >= cell
    fraction = changes.reshape(p, -1).mean(axis=1)
    padded = np.pad(fraction, 2)
    around = np.max([padded[k : k + p] for k in (0, 1, 3, 4)], axis=0)
    return out | (fraction >= CUT_SPIKE * np.maximum(around, MIN_CHANGED))


def pair_changes(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per consecutive pair of shrunk frames: the gray changed fraction and the pixels that
    change in some colour channel (both by more than `PIXEL_STEP`).

    Args:
        small: `(N, h, w, 3)` int16 shrunk frames (`shrink`).

    Returns:
        `(N - 1,)` float64 fractions of pixels whose gray level changes, and `(N - 1, h, w)`
        bool.
    """
    d = np.diff(small, axis=0)
    gray = np.abs(d[..., 0] + d[..., 1] + d[..., 2]) > 3 * PIXEL_STEP  # mean over channels
    colour = (np.abs(d[..., 0]) > PIXEL_STEP) | (np.abs(d[..., 1]) > PIXEL_STEP)
    colour |= np.abs(d[..., 2]) > PIXEL_STEP
    return gray.mean(axis=(1, 2)).astype(np.float64), colour


def episode_of(
    times_s: np.ndarray,
    small: np.ndarray,
    changed: np.ndarray,
    colour: np.ndarray,
    min_changed: float = MIN_CHANGED,
    standing: Standing | None = None,
) -> Episode | None:
    """The episode of one shot (frames between two cuts); None when nothing moves in it.

    Args:
        times_s: `(N,)` rising frame times.
        small: `(N, h, w, 3)` shrunk frames (`shrink`).
        changed, colour: `(N - 1,)` and `(N - 1, h, w)`, its pairs' `pair_changes`.
        min_changed: fraction of a frame that must change for a pair to be motion.
        standing: the scene's reading of something standing (`scene.Scene.standing`), or
            None (unknown).
    """
    moving = np.flatnonzero(changed >= min_changed)
    if not len(moving):
        return None
    changes = changed[moving]
    still = None
    if standing is not None:
        still = standing(small[len(small) // 2].astype(np.uint8), colour.any(axis=0))
    through = bool(pair_changes(small[[0, -1]])[0][0] < min_changed)
    return Episode(float(times_s[moving[0]]), float(times_s[moving[-1] + 1]),
                   float(changes.max()), float(np.median(changes)), still,
                   through)  # fmt: skip


@dataclass(frozen=True)
class ShotEpisodes:
    """The shots (runs of frames between cuts) read around a graph's shot, and the episode
    of each.

    Attributes:
        spans_s: `(S, 2)` first and last frame time of each shot, rising.
        episodes: the episode of each shot, None where nothing moves.
    """

    spans_s: np.ndarray
    episodes: tuple[Episode | None, ...]

    @classmethod
    def read(
        cls, times_s: np.ndarray, small: np.ndarray, standing: Standing | None = None
    ) -> ShotEpisodes:
        """Cut `(N,)` frames at `times_s` (shrunk, `(N, h, w, 3)`) into shots at their cuts
        (`cut_pairs`) and read each shot's episode (`standing`: see `episode_of`)."""
        changed, colour = pair_changes(small)
        cuts = np.flatnonzero(cut_pairs(colour))
        firsts, lasts = np.r_[0, cuts + 1], np.r_[cuts, len(small) - 1]
        spans, episodes = [], []
        for a, b in zip(firsts, lasts, strict=True):
            spans.append((times_s[a], times_s[b]))
            episodes.append(episode_of(times_s[a : b + 1], small[a : b + 1], changed[a:b],
                                       colour[a:b], standing=standing))  # fmt: skip
        return cls(np.asarray(spans, np.float64).reshape(-1, 2), tuple(episodes))

    def cut_near(self, at_s: float, reach_s: float) -> bool:
        """A cut (the gap between two shots) lies within `reach_s` of `at_s`."""
        gaps = (self.spans_s[:-1, 1] + self.spans_s[1:, 0]) / 2
        return bool((np.abs(gaps - at_s) <= reach_s).any())

    def at(self, at_s: float) -> Episode | None:
        """The episode of the shot around `at_s` (the nearest shot when `at_s` falls in a
        cut or outside the frames read)."""
        gaps = np.maximum(self.spans_s[:, 0] - at_s, at_s - self.spans_s[:, 1])
        return self.episodes[int(np.argmin(gaps))]


def _read(frames: FrameSampler, times_s: np.ndarray) -> np.ndarray:
    """Shrunk frames at `times_s` (grid times of `frames`), decoded a chunk at a time; fewer
    when the file is truncated."""
    parts = [shrink(f) for f in frames.chunks(times_s) if len(f)]
    return np.concatenate(parts) if parts else np.zeros((0, 1, 1, 3), np.int16)


def shot_episodes(
    frames: FrameSampler,
    shot_s: tuple[float, float],
    step_s: float,
    look_s: float = 0.0,
    standing: Standing | None = None,
) -> ShotEpisodes | None:
    """The shots and episodes around a graph's shot at the sampler's rate, from one step
    before it to one step after, read up to `look_s` further on a side whose boundary is not
    a cut and where something moves (see the module docstring); None when fewer than two
    frames decode.

    Args:
        frames: the query's frame sampler.
        shot_s: the shot's `(start_s, end_s)` from the event boundaries.
        step_s: the timeline's sampling step (how far the real cuts may lie from them).
        look_s: how far beyond the shot its real cut is looked for (`scene.Scene.look_s`).
        standing: the scene's reading of something standing (see `episode_of`).
    """
    times_s = frames.grid(max(0.0, shot_s[0] - step_s), shot_s[1] + step_s)
    small = _read(frames, times_s)
    if len(small) < 2:
        return None
    truncated, times_s = len(small) < len(times_s), times_s[: len(small)]
    seen = ShotEpisodes.read(times_s, small, standing)
    fps = frames.fps
    reach = int(round(look_s * fps))
    first = int(round(times_s[0] * fps))
    before = times_s[0] - np.arange(min(reach, first), 0, -1) / fps
    if len(before) and seen.episodes[0] is not None and not seen.cut_near(shot_s[0], step_s):
        earlier = _read(frames, before)
        if len(earlier) == len(before):
            times_s, small = np.r_[before, times_s], np.concatenate([earlier, small])
    if not truncated and seen.episodes[-1] is not None and not seen.cut_near(shot_s[1], step_s):
        after = times_s[-1] + np.arange(1, reach + 1) / fps
        later = _read(frames, after)
        if len(later):
            times_s, small = np.r_[times_s, after[: len(later)]], np.concatenate([small, later])
    return ShotEpisodes.read(times_s, small, standing)
