"""What every query template module shares: the candidate type, the registry, phrasing helpers.

A builder proposes candidates for one video: a query text, the frame mask of the condition it
states, and its CoMET attributes. Whether a candidate is positive or negative is read from its
mask, never assumed: a condition that never holds becomes a negative query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...samples import ATTRIBUTES
from ..catalog import CATEGORIES
from ..meaning import Meaning
from ..truth import Track, Truth


@dataclass(frozen=True, eq=False)
class Candidate:
    """A possible query.

    Args:
        text: the query as a person would type it.
        mask: `(n_frames,)` bool, frames where the stated condition holds.
        attributes: CoMET attributes of the condition ("negative" is added on selection when
            the mask is empty).
        key: identifies the condition, so one video never asks the same thing twice.
        meaning: what the query asks, in parts (`synth.wordings` words it again from them).
    """

    text: str
    mask: np.ndarray
    attributes: tuple[str, ...]
    key: str
    meaning: Meaning

    def __post_init__(self) -> None:
        unknown = set(self.attributes) - ATTRIBUTES
        if unknown:
            raise ValueError(f"unknown attributes {sorted(unknown)}")

    @property
    def positive(self) -> bool:
        return bool(self.mask.any())


Builder = Callable[[Truth, np.random.Generator], list[Candidate]]

#: Query builders by the attribute they exercise.
QUERY_BUILDERS: dict[str, Builder] = {}


def register(attribute: str) -> Callable[[Builder], Builder]:
    """Register a builder under an attribute name."""

    def add(builder: Builder) -> Builder:
        QUERY_BUILDERS[attribute] = builder
        return builder

    return add


#: Generic sentence frames around a noun phrase naming the moment ("the cat on a red ...").
FIND_TEMPLATES = (
    "Find every moment showing {np}.",
    "When does the video show {np}? List every interval.",
    "Give all the intervals showing {np}.",
    "How many times do we see {np}? Give each time span.",
    "List every time the video shows {np}.",
    "Show me every part of the video with {np}.",
)


def pick(rng: np.random.Generator, options) -> str:
    """One of `options`, drawn by `rng`."""
    return str(options[int(rng.integers(len(options)))])


def name(rng: np.random.Generator, category: str) -> str:
    """A noun phrase for a category, e.g. "the tabby cat"."""
    return pick(rng, CATEGORIES[category].phrases)


def find_text(rng: np.random.Generator, noun_phrase: str) -> str:
    """A whole query asking for every moment showing `noun_phrase`."""
    return pick(rng, FIND_TEMPLATES).format(np=noun_phrase)


def of_category(category: str) -> Callable[[Track], bool]:
    return lambda tr: tr.category == category


def present_categories(truth: Truth, kinds=("photo", "clip")) -> list[str]:
    """Categories of the given kinds that appear in the video, in catalogue order."""
    seen = {tr.category for tr in truth.tracks}
    return [c for c in CATEGORIES if c in seen and CATEGORIES[c].kind in kinds]


def with_article(word: str) -> str:
    """`word` with "a" or "an" in front.

    >>> with_article("orange"), with_article("red")
    ('an orange', 'a red')
    """
    return ("an " if word[:1] in "aeiou" else "a ") + word


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]
