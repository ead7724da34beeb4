"""Planning a synthetic video: which shots, how long, showing what, in which order.

The plan is drawn from one `numpy.random.Generator`, so a seed fixes the whole video. Every video
gets at least one shot of each kind that a query type needs (a crossing, a pair, a hit, a miss,
...); the rest are drawn by weight until the requested length is filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .catalog import CATEGORIES, CLIP_CATEGORIES, COLORS, FILLER_PHOTOS, PATTERNS, PHOTO_CATEGORIES
from .rendering import scale_staging
from .script import Background, Instance, Shot, VideoScript
from .shots import SHOT_KINDS

#: Kinds every video gets once, so that each query type has something to ask about.
REQUIRED_KINDS = (
    "cross",
    "enter",
    "exit",
    "pair",
    "causal_hit",
    "causal_miss",
    "zoom_in",
    "still",
    "filler",
    "clip",
)

#: Relative frequency of the other shots.
KIND_WEIGHTS = {
    "still": 0.2,
    "pan": 0.07,
    "zoom_in": 0.05,
    "zoom_out": 0.05,
    "cross": 0.1,
    "enter": 0.06,
    "exit": 0.06,
    "pair": 0.1,
    "causal_hit": 0.05,
    "causal_miss": 0.05,
    "clip": 0.08,
    "filler": 0.13,
}


@dataclass(frozen=True)
class Cast:
    """The categories a video shows, how often, and how many distinct instances of each."""

    photo: tuple[str, ...]
    clips: tuple[str, ...]
    weights: dict[str, float]


def draw_cast(rng: np.random.Generator) -> Cast:
    """Four or five of the six photo categories, each clip category with probability 0.7."""
    n_photo = int(rng.integers(4, 6))
    photo = tuple(str(c) for c in rng.permutation(PHOTO_CATEGORIES)[:n_photo])
    clips = tuple(c for c in CLIP_CATEGORIES if rng.random() < 0.7)
    names = photo + clips
    weights = dict(zip(names, rng.dirichlet(np.full(len(names), 1.5)).tolist()))
    return Cast(photo, clips, weights)


def _draw_length(rng, kind: str, fps: Fraction, shot_range_s: tuple[float, float]) -> int:
    spec = SHOT_KINDS[kind]
    lo, hi = max(spec.min_s, shot_range_s[0]), max(min(spec.max_s, shot_range_s[1]), spec.min_s)
    return max(1, round(float(np.exp(rng.uniform(np.log(lo), np.log(hi)))) * fps))


def _min_frames(kind: str, fps: Fraction) -> int:
    return int(np.ceil(SHOT_KINDS[kind].min_s * fps))


def draw_kinds(
    rng: np.random.Generator, cast: Cast, n_frames: int, fps: Fraction, shot_range_s
) -> list[tuple[str, int]]:
    """Shot kinds with lengths in frames, in playing order, summing exactly to `n_frames`."""
    required = [k for k in REQUIRED_KINDS if k != "clip" or cast.clips]
    weights = {k: w for k, w in KIND_WEIGHTS.items() if k != "clip" or cast.clips}
    kinds = list(required)
    lengths = [_draw_length(rng, k, fps, shot_range_s) for k in kinds]
    names, probs = list(weights), np.array(list(weights.values()))
    while sum(lengths) < n_frames:
        kind = str(rng.choice(names, p=probs / probs.sum()))
        kinds.append(kind)
        lengths.append(_draw_length(rng, kind, fps, shot_range_s))
    mins = [_min_frames(k, fps) for k in kinds]
    while sum(mins) > n_frames and len(kinds) > 1:
        for seq in (kinds, lengths, mins):
            seq.pop()
    _fit_total(lengths, mins, n_frames)
    order = rng.permutation(len(kinds))
    return [(kinds[i], lengths[i]) for i in order]


def _fit_total(lengths: list[int], mins: list[int], total: int) -> None:
    """Shorten the shots with the most slack (or lengthen the longest) to sum to `total`."""
    excess = sum(lengths) - total
    while excess > 0:
        slack = [n - m for n, m in zip(lengths, mins)]
        i = int(np.argmax(slack))
        if slack[i] <= 0:
            break
        cut = min(excess, slack[i])
        lengths[i] -= cut
        excess -= cut
    if excess != 0:
        i = int(np.argmax(lengths))
        lengths[i] = max(1, lengths[i] - excess)


def _pick(rng, pool: list[str], cast: Cast, n: int, avoid: frozenset[str]) -> list[str] | None:
    allowed = [c for c in pool if c not in avoid]
    if len(allowed) < n:
        return None
    probs = np.array([cast.weights[c] for c in allowed])
    return [str(c) for c in rng.choice(allowed, size=n, replace=False, p=probs / probs.sum())]


def cast_shots(rng, kinds: list[tuple[str, int]], cast: Cast) -> list[tuple[str, int, list[str]]]:
    """Give each shot its categories; consecutive shots never share one (so every appearance
    is its own interval). A shot that cannot be filled becomes a filler shot."""
    out, previous = [], frozenset()
    for kind, n_frames in kinds:
        slots = SHOT_KINDS[kind].slots
        pool = list(cast.clips if slots[:1] == ("clip",) else cast.photo)
        picked = _pick(rng, pool, cast, len(slots), previous) if slots else []
        if picked is None:
            kind, picked = "filler", []
        out.append((kind, n_frames, picked))
        previous = frozenset(picked)
    return out


def draw_instances(rng, casted: list[tuple[str, int, list[str]]]) -> list[list[Instance]]:
    """Choose each category's distinct instances (looks) and spread them over its shots.

    The most frequent photo category gets at least two instances, so identity queries always
    have look-alikes to tell apart; every chosen instance appears at least once.
    """
    slots: dict[str, list[tuple[int, int]]] = {}
    for shot_i, (_, _, cats) in enumerate(casted):
        for slot_i, cat in enumerate(cats):
            slots.setdefault(cat, []).append((shot_i, slot_i))
    photo = [c for c in slots if CATEGORIES[c].kind == "photo"]
    busiest = max(photo, key=lambda c: len(slots[c])) if photo else None
    chosen = [[None] * len(cats) for _, _, cats in casted]
    for cat, places in slots.items():
        variants = list(rng.permutation(CATEGORIES[cat].variants))
        low = 2 if cat == busiest else 1
        n = min(int(rng.integers(low, len(variants) + 1)), len(places)) if len(variants) > 1 else 1
        ids = list(range(n)) + rng.integers(0, n, len(places) - n).tolist()
        for (shot_i, slot_i), k in zip(places, rng.permutation(ids)):
            chosen[shot_i][slot_i] = Instance(cat, str(variants[k]))
    return chosen


def draw_background(rng: np.random.Generator, kind: str) -> Background:
    """A tinted pattern; filler shots sometimes show a full-frame photo instead."""
    if kind == "filler" and rng.random() < 0.5:
        return Background(str(rng.choice(FILLER_PHOTOS)))
    return Background(str(rng.choice(PATTERNS)), str(rng.choice(list(COLORS))))


def plan_script(
    rng: np.random.Generator,
    name: str,
    duration_s: float,
    fps: Fraction,
    aspect: float,
    shot_range_s: tuple[float, float] = (2.0, 60.0),
    object_scale: float = 1.0,
    composition: str = "opaque",
) -> VideoScript:
    """Draw a whole video script.

    Args:
        rng: the only source of randomness.
        name: video name (file stem).
        duration_s: requested length; rounded to whole frames.
        fps: frame rate.
        aspect: frame width over height.
        shot_range_s: shortest and longest shot a kind may draw.
        object_scale: photo objects drawn this many times their default height
            (`rendering.scale_staging`); draws nothing from `rng`, so the script is the same.
        composition: how photos sit on their backdrops (`rendering.COMPOSITIONS`).

    >>> s = plan_script(np.random.default_rng(0), "v", 60.0, Fraction(5), 16 / 9, (2.0, 8.0))
    >>> s.n_frames, s.duration_s
    (300, 60.0)
    """
    n_frames = round(duration_s * fps)
    cast = draw_cast(rng)
    casted = cast_shots(rng, draw_kinds(rng, cast, n_frames, fps, shot_range_s), cast)
    instances = draw_instances(rng, casted)
    shots, start = [], 0
    for (kind, length, _), insts in zip(casted, instances):
        staging = SHOT_KINDS[kind].build(rng, float(length / fps), tuple(insts), aspect)
        staging = scale_staging(staging, kind, object_scale)
        background = draw_background(rng, kind)
        shots.append(
            Shot(
                kind, start, length, background, staging.camera, staging.appearances, staging.causal
            )
        )
        start += length
    return VideoScript(name, fps, aspect, tuple(shots), composition)
