"""Planning one montage, with no file read or written: which clips play in which order, which
part of each, and where recorded speech is laid over silent footage.

`plan_montage(manifest, seed, index, minutes, fps)` depends only on its arguments. A quarter
of the clips and of the recordings sit out each montage, different ones in consecutive
montages (so their labels and words are absent there, a source of negatives); the others
play in random orders, each at most once per round, never twice in a row. A clip longer than
`MAX_PIECE_S` plays a random stretch of `MIN_PIECE_S` to `MAX_PIECE_S`; shorter ones play
whole. Pieces start on frame boundaries, and the last one is cut so the montage is exactly
its length.

>>> from pathlib import Path
>>> from longground.synth.montage_manifest import Clip, Manifest
>>> clips = tuple(Clip(n, Path(n), (0.0, 4.0)) for n in "abc")
>>> plan = plan_montage(Manifest(Path("m.json"), clips, (), {}, {}), 0, 0, 0.25, 10)
>>> plan.duration_s, sum(p.n_frames for p in plan.placements)
(15.0, 150)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import UserError
from .montage_manifest import Manifest

MIN_PIECE_S = 5.0
MAX_PIECE_S = 15.0
MIN_TAIL_S = 2.0  # the last piece is cut to fit, but not to less than this where avoidable
SIT_OUT = 0.25  # the share of clips and of recordings left out of each montage
SPEECH_EVERY_S = 20.0  # one recording laid in each slot of this length, where silence allows
SPEECH_GAP_S = 1.0  # at least this much silence between two recordings
MIN_MINUTES, MAX_MINUTES = 0.05, 180.0


@dataclass(frozen=True)
class Placement:
    """Clip `clip` from its own time `start_s` on, shown at montage time `at_s` for
    `n_frames` frames of the montage's rate."""

    clip: str
    at_s: float
    start_s: float
    n_frames: int


@dataclass(frozen=True)
class Overlay:
    """Recording `recording` (its trimmed part) laid over the montage from `at_s`."""

    recording: str
    at_s: float


@dataclass(frozen=True)
class MontagePlan:
    """One montage: its length, frame rate, pieces in order and speech overlays."""

    duration_s: float
    fps: Fraction
    placements: tuple[Placement, ...]
    overlays: tuple[Overlay, ...]

    def window(self, placement: Placement) -> tuple[float, float]:
        """The clip-local span `placement` shows."""
        return placement.start_s, placement.start_s + float(placement.n_frames / self.fps)

    def end_s(self, placement: Placement) -> float:
        return placement.at_s + float(placement.n_frames / self.fps)


def plan_montage(
    manifest: Manifest, seed: int, index: int, minutes: float, fps: float | Fraction
) -> MontagePlan:
    """Draw montage `index` of `minutes` at `fps` from `(seed, index)` (same inputs, same plan).

    Raises:
        UserError: `minutes` is out of range.
    """
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise UserError(f"--minutes: {minutes:g} is outside {MIN_MINUTES:g}..{MAX_MINUTES:g}")
    rate = Fraction(fps).limit_denominator(1001)
    rng = np.random.default_rng([seed, index, 31])
    long_enough = [c.id for c in manifest.clips if int(c.length_s * rate) >= 1]
    if not long_enough:
        raise UserError(
            f"{manifest.path}: every clip is shorter than a frame at {float(rate):g} fps"
        )
    clips = _playing(long_enough, seed, index, 33)
    recordings = _playing([r.id for r in manifest.recordings], seed, index, 34)
    total = max(1, round(minutes * 60 * rate))
    placements = _pieces(rng, manifest, clips, total, rate)
    plan = MontagePlan(float(total / rate), rate, placements, ())
    overlays = _overlays(rng, manifest, plan, recordings)
    return MontagePlan(plan.duration_s, rate, placements, overlays)


def _playing(ids: list[str], seed: int, index: int, salt: int) -> list[str]:
    """`ids` less a `SIT_OUT` share of them (none when fewer than four). The benchmark's seed
    orders the ids once and montage `index` leaves out the `index`-th run of that order, so
    consecutive montages leave out different ones and each plays in one of any two."""
    n_out = int(len(ids) * SIT_OUT) if len(ids) >= 4 else 0
    order = np.random.default_rng([seed, salt]).permutation(len(ids))
    out = {int(order[(index * n_out + j) % len(ids)]) for j in range(n_out)}
    return [i for k, i in enumerate(ids) if k not in out]


def _rounds(rng, ids: list[str]):
    """Endless random orders of `ids`, a round at a time, never the same id twice in a row."""
    last = None
    while True:
        order = [ids[i] for i in rng.permutation(len(ids))]
        if len(order) > 1 and order[0] == last:
            order[0], order[-1] = order[-1], order[0]
        yield from order
        last = order[-1]


def _pieces(rng, manifest: Manifest, ids: list[str], total: int, rate: Fraction):
    """The pieces in order. Near the end a clip is passed over when it would leave less than
    `MIN_TAIL_S` to fill and cannot play to the end itself (unless every clip would)."""
    by_id = {c.id: c for c in manifest.clips}
    tail = round(MIN_TAIL_S * rate)
    out, done, passed = [], 0, 0
    for clip_id in _rounds(rng, ids):
        left = total - done
        if left <= 0:
            break
        if len(ids) > 1 and out and out[-1].clip == clip_id:  # only after one passed over
            continue
        clip = by_id[clip_id]
        start, length = clip.trim[0], clip.length_s
        if length > MAX_PIECE_S:
            length = float(rng.uniform(MIN_PIECE_S, MAX_PIECE_S))
            start = float(rng.uniform(clip.trim[0], clip.trim[1] - length))
        n = min(int(length * rate), left)
        if 0 < left - n < tail:
            if start + float(left / rate) <= clip.trim[1]:
                n = left
            elif n - (tail - (left - n)) >= tail:
                n = left - tail
            elif passed < len(ids):
                passed += 1
                continue
        out.append(Placement(clip_id, float(done / rate), round(start, 3), n))
        done += n
    return tuple(out)


def silent_runs(manifest: Manifest, plan: MontagePlan) -> list[tuple[float, float]]:
    """Montage spans of footage without its own sound, adjacent pieces joined."""
    keeps = {c.id: c.keep_audio for c in manifest.clips}
    runs: list[tuple[float, float]] = []
    for p in plan.placements:
        if keeps[p.clip]:
            continue
        if runs and runs[-1][1] == p.at_s:
            runs[-1] = (runs[-1][0], plan.end_s(p))
        else:
            runs.append((p.at_s, plan.end_s(p)))
    return runs


def _overlays(rng, manifest: Manifest, plan: MontagePlan, ids: list[str]):
    """Recordings in turn, each in a random place inside silent footage within its slot of
    `SPEECH_EVERY_S` (longer for a longer recording); a slot without room is passed over."""
    if not ids:
        return ()
    lengths = {r.id: r.length_s for r in manifest.recordings}
    runs = silent_runs(manifest, plan)
    queue = _rounds(rng, ids)
    out, rec, slot = [], next(queue), 0.0
    while slot < plan.duration_s:
        end = slot + max(SPEECH_EVERY_S, lengths[rec] + 2 * SPEECH_GAP_S)
        room = [(max(a, slot + SPEECH_GAP_S), min(b, end - SPEECH_GAP_S)) for a, b in runs]
        fits = [(a, b) for a, b in room if b - a >= lengths[rec]]
        if fits:
            a, b = fits[int(rng.integers(len(fits)))]
            out.append(Overlay(rec, round(float(rng.uniform(a, b - lengths[rec])), 3)))
            rec = next(queue)
        slot = end
    return tuple(out)
