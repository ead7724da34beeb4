"""Synchronous queries: two objects on screen at the same time."""

from __future__ import annotations

import itertools

import numpy as np

from ..catalog import PHOTO_CATEGORIES
from ..meaning import Together
from ..truth import Truth
from .base import Candidate, name, of_category, pick, register

TEMPLATES = (
    "Find every moment when {x} and {y} are on screen together.",
    "When do {x} and {y} appear at the same time?",
    "Find each time {x} shares the frame with {y}.",
    "List every interval in which both {x} and {y} are visible.",
)


@register("synchronous")
def synchronous_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Every unordered pair of photo categories."""
    out = []
    for a, b in itertools.combinations(PHOTO_CATEGORIES, 2):
        a, b = (a, b) if rng.random() < 0.5 else (b, a)
        mask = truth.mask(of_category(a)) & truth.mask(of_category(b))
        text = pick(rng, TEMPLATES).format(x=name(rng, a), y=name(rng, b))
        key = "+".join(sorted((a, b)))
        out.append(Candidate(text, mask, ("synchronous",), key, Together(a, b)))
    return out
