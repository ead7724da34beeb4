"""Identity queries: one specific instance among look-alikes ("the motorcycle that appeared
first"), which needs the whole video to tell apart.

Instances of a category are ordered by their first frame on screen; "the second cat to appear"
is the instance whose first frame is second in that order.
"""

from __future__ import annotations

import numpy as np

from ..catalog import CATEGORIES, ORDINALS, PHOTO_CATEGORIES
from ..meaning import Ordinal
from ..script import Instance
from ..truth import Truth
from .base import Candidate, pick, register

EVERY = (
    "Find every time the {noun} that appeared {ord} is on screen, its first appearance included.",
    "There may be more than one {noun} in this video. When is the one that appeared {ord} shown?",
    "Track the {ord} {noun} to appear: list every interval in which it is visible.",
)
RETURNS = (
    "When does the {noun} that appeared {ord} come back? List every return, not its first showing.",
    "After its first appearance, when is the {ord} {noun} to appear seen again?",
)


def instances_in_order(truth: Truth, category: str) -> list[Instance]:
    """Distinct instances of a category, ordered by their first frame on screen."""
    first: dict[Instance, int] = {}
    for tr in truth.tracks:
        on = np.flatnonzero(tr.visible)
        if tr.category == category and len(on):
            frame = tr.start_frame + int(on[0])
            first[tr.instance] = min(first.get(tr.instance, frame), frame)
    return sorted(first, key=first.get)


def without_first_run(mask: np.ndarray) -> np.ndarray:
    """The mask with its first run of True cleared.

    >>> without_first_run(np.array([0, 1, 1, 0, 1], bool)).astype(int).tolist()
    [0, 0, 0, 0, 1]
    """
    out = mask.copy()
    on = np.flatnonzero(mask)
    if len(on):
        gaps = np.flatnonzero(~mask[on[0] :])
        stop = on[0] + (gaps[0] if len(gaps) else len(mask) - on[0])
        out[on[0] : stop] = False
    return out


@register("identity")
def identity_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Each instance by its order of appearance, with and without its first showing; plus one
    ordinal past the last instance (a negative)."""
    out = []
    for category in PHOTO_CATEGORIES:
        order = instances_in_order(truth, category)
        noun = CATEGORIES[category].noun
        for j, ordinal in enumerate(ORDINALS[: len(order) + 1]):
            if len(order) == 1 and j == 0:
                continue  # a lone instance has no look-alike to be told apart from
            if j < len(order):
                mask = truth.mask(lambda tr, inst=order[j]: tr.instance == inst)
            else:
                mask = np.zeros(truth.n_frames, bool)
            text = pick(rng, EVERY).format(noun=noun, ord=ordinal)
            meaning = Ordinal(category, ordinal, returns=False)
            out.append(Candidate(text, mask, ("identity",), f"{category}:{ordinal}", meaning))
            text = pick(rng, RETURNS).format(noun=noun, ord=ordinal)
            key, meaning = f"{category}:{ordinal}:returns", Ordinal(category, ordinal, returns=True)
            out.append(Candidate(text, without_first_run(mask), ("identity",), key, meaning))
    return out
