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
   `cuts.PIXEL_STEP` (a small object moving changes a few thousandths of the frame,
   compression noise nothing at that step);
3. the cuts are the pairs the cut detector finds (`cuts.cuts`): the graph's shot is bounded
   by the same detector's cuts (`cuts.EventCuts`), so they lie within that reach;
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
from .cuts import MIN_CHANGED, cuts, pair_changes, shrink

#: Largest over median change of an episode's moving pairs from which something falls in it.
FALL_RATIO = 5.0
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
        (`cuts.cuts`) and read each shot's episode (`standing`: see `episode_of`)."""
        changed, colour = pair_changes(small)
        at = np.flatnonzero(cuts(small))
        firsts, lasts = np.r_[0, at + 1], np.r_[at, len(small) - 1]
        spans, episodes = [], []
        for a, b in zip(firsts, lasts, strict=True):
            spans.append((times_s[a], times_s[b]))
            episodes.append(episode_of(times_s[a : b + 1], small[a : b + 1], changed[a:b],
                                       colour[a:b], standing=standing))  # fmt: skip
        return cls(np.asarray(spans, np.float64).reshape(-1, 2), tuple(episodes))

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
    standing: Standing | None = None,
) -> ShotEpisodes | None:
    """The shots and episodes around a graph's shot at the sampler's rate, from one step
    before it to one step after (see the module docstring); None when fewer than two frames
    decode.

    Args:
        frames: the query's frame sampler.
        shot_s: the shot's `(start_s, end_s)`, from the event boundaries that are cuts.
        step_s: the timeline's sampling step (how far the real cuts may lie from them).
        standing: the scene's reading of something standing (see `episode_of`).
    """
    times_s = frames.grid(max(0.0, shot_s[0] - step_s), shot_s[1] + step_s)
    parts = [shrink(f) for f in frames.chunks(times_s) if len(f)]
    if sum(len(p) for p in parts) < 2:
        return None
    small = np.concatenate(parts)
    return ShotEpisodes.read(times_s[: len(small)], small, standing)
