"""Sequential queries: X in the shot that directly follows a shot of Y (or precedes one).

"A shot of Y" is a shot in which Y is on screen in at least one frame; the ground truth is the
frames of the asked-about object in the neighbouring shot.
"""

from __future__ import annotations

import numpy as np

from ..catalog import CATEGORIES, OBJECT_CATEGORIES
from ..meaning import Cut
from ..truth import Truth
from .base import Candidate, capitalize, name, of_category, pick, present_categories, register

AFTER = (
    "Find every shot of {x} that comes right after a shot of {y}.",
    "When does {x} appear immediately after {y}?",
    "Each time the video cuts from {y} straight to {x}, when is {x_again} on screen?",
    "List the moments showing {x} in the shot directly following {y}.",
)
BEFORE = (
    "Find every shot of {y} that is immediately followed by a shot of {x}.",
    "When is {y} on screen just before the video cuts to {x}?",
    "List each time {y} appears right before {x}.",
)


def after_mask(truth: Truth, first: str, then: str) -> np.ndarray:
    """Frames of `then` in shots whose previous shot shows `first`."""
    shots = {i + 1 for i in truth.shots_showing(of_category(first))}
    return truth.mask(of_category(then)) & truth.shots_mask(shots)


def before_mask(truth: Truth, first: str, then: str) -> np.ndarray:
    """Frames of `first` in shots whose next shot shows `then`."""
    shots = {i - 1 for i in truth.shots_showing(of_category(then))}
    return truth.mask(of_category(first)) & truth.shots_mask(shots)


@register("sequential")
def sequential_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Every ordered pair of categories shown in the video, asked both ways round."""
    present = [c for c in present_categories(truth) if c in OBJECT_CATEGORIES]
    out = []
    for first in present:
        for then in present:
            if first == then:
                continue
            x, y = name(rng, then), name(rng, first)
            again = f"the {CATEGORIES[then].noun}"
            text = pick(rng, AFTER).format(x=x, y=y, x_again=again)
            mask, meaning = after_mask(truth, first, then), Cut(then, first, after=True)
            key = f"{first}>{then}"
            out.append(Candidate(capitalize(text), mask, ("sequential",), key, meaning))
            text = pick(rng, BEFORE).format(x=x, y=y)
            mask, meaning = before_mask(truth, first, then), Cut(first, then, after=False)
            key = f"{first}<{then}"
            out.append(Candidate(capitalize(text), mask, ("sequential",), key, meaning))
    return out
