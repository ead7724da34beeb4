"""Bounded queries: every moment of some condition inside a stated time window.

The window is in whole minutes (or tens of seconds in short videos). Its ground truth is the
condition's frames shown entirely inside the window, so a moment running across a boundary is
cut there; windows are drawn so that this rarely happens.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...timecode import format_time
from ..catalog import COLORS, OBJECT_CATEGORIES, PHOTO_CATEGORIES
from ..meaning import Shown, Window
from ..truth import Truth
from .base import (
    Candidate,
    name,
    of_category,
    pick,
    present_categories,
    register,
    with_article,
)
from .static import COLOR_PHRASES, on_color

WINDOW = (
    "Between {a} and {b}, find every moment showing {np}.",
    "From {a} to {b}, when do we see {np}?",
    "Looking only at {a} to {b}, list each time we see {np}.",
    "In the part of the video between {a} and {b}, give every interval with {np}.",
)
FROM_START = ("In the first {span}, find every moment showing {np}.",)
TO_END = (
    "After {a}, find every moment showing {np}.",
    "From {a} until the end, when is {np} shown?",
)


def _unit_s(duration_s: float) -> int:
    return 60 if duration_s >= 600 else 10 if duration_s >= 60 else 5


def _cuts(mask: np.ndarray, frame: int) -> bool:
    return 0 < frame < len(mask) and bool(mask[frame - 1] and mask[frame])


def draw_window(rng: np.random.Generator, truth: Truth, mask: np.ndarray) -> tuple[int, int]:
    """A window `[start, stop)` in whole units that, if possible, splits no run of `mask`."""
    duration_s = truth.script.duration_s
    unit = _unit_s(duration_s)
    n_units = max(1, math.floor(duration_s / unit))
    fps = float(truth.fps)
    for _ in range(12):
        a = int(rng.integers(0, n_units))
        b = int(rng.integers(a + 1, n_units + 1))
        if not (_cuts(mask, round(a * unit * fps)) or _cuts(mask, round(b * unit * fps))):
            break
    return a, b


def window_text(rng, truth: Truth, a: int, b: int, noun_phrase: str) -> tuple[str, float, float]:
    """The query text for window units `[a, b)`, and the window in seconds."""
    duration_s = truth.script.duration_s
    unit = _unit_s(duration_s)
    n_units = max(1, math.floor(duration_s / unit))
    start_s, end_s = float(a * unit), float(b * unit)
    if a == 0 and rng.random() < 0.4:
        amount = b if unit == 60 else b * unit
        span = f"{amount} minute{'s' * (amount != 1)}" if unit == 60 else f"{amount} seconds"
        return pick(rng, FROM_START).format(span=span, np=noun_phrase), start_s, end_s
    if b == n_units and a > 0 and rng.random() < 0.5:
        text = pick(rng, TO_END).format(a=format_time(start_s, 0), np=noun_phrase)
        return text, start_s, duration_s
    text = pick(rng, WINDOW).format(
        a=format_time(start_s, 0), b=format_time(end_s, 0), np=noun_phrase
    )
    return text, start_s, end_s


def _bases(truth: Truth, rng: np.random.Generator):
    """(key, noun phrase, mask, attributes, meaning) conditions to put inside a window."""
    for category in OBJECT_CATEGORIES:
        mask = truth.mask(of_category(category))
        yield category, name(rng, category), mask, (), Shown(category)
    for category in PHOTO_CATEGORIES:
        color = pick(rng, list(COLORS))
        phrase = pick(rng, COLOR_PHRASES).format(x=name(rng, category), c=with_article(color))
        mask = on_color(truth, category, color)
        yield f"{category}:{color}", phrase, mask, ("static",), Shown(category, backdrop=color)
        mask = truth.mask(
            lambda tr, c=category: tr.category == c and tr.appearance.motion == "cross"
        )
        phrase = f"{name(rng, category)} moving across the screen"
        yield f"{category}:cross", phrase, mask, ("dynamic",), Shown(category, motion="cross")


@register("bounded")
def bounded_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Object appearances, coloured backdrops and crossings, each inside a drawn window."""
    out = []
    shown = set(present_categories(truth))
    duration_s = truth.script.duration_s
    for key, phrase, mask, extra, meaning in _bases(truth, rng):
        if key in OBJECT_CATEGORIES and key not in shown:
            continue  # an absent object is a plain negative, asked elsewhere
        a, b = draw_window(rng, truth, mask)
        text, start_s, end_s = window_text(rng, truth, a, b, phrase)
        windowed = mask & truth.window_mask(start_s, end_s)
        window = Window(start_s, end_s, _unit_s(duration_s), to_end=end_s >= duration_s)
        attributes, key = ("bounded",) + extra, f"{key}@{a}-{b}"
        out.append(Candidate(text, windowed, attributes, key, replace(meaning, window=window)))
    return out
