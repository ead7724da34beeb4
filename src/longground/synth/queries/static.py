"""Static queries: an object with a property visible in a single frame (its backdrop, its look)."""

from __future__ import annotations

import numpy as np

from ..catalog import CATEGORIES, COLORS, PHOTO_CATEGORIES, instance_phrase
from ..meaning import Shown
from ..truth import Truth
from .base import Candidate, find_text, name, pick, register, with_article

COLOR_PHRASES = (
    "{x} on {c} background",
    "{x} against {c} backdrop",
    "{x} in front of {c} background",
)
BRICK_PHRASES = ("{x} in front of a brick wall", "{x} with a brick wall behind it")


def on_color(truth: Truth, category: str, color: str) -> np.ndarray:
    return truth.mask(
        lambda tr: tr.category == category and truth.shot(tr.shot).background.color == color
    )


def on_brick(truth: Truth, category: str) -> np.ndarray:
    return truth.mask(
        lambda tr: tr.category == category and truth.shot(tr.shot).background.pattern == "brick"
    )


@register("static")
def static_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Photo objects on a coloured backdrop or a brick wall, and the named looks (the blue
    motorcycle, the black-and-white cat)."""
    out = []
    for category in PHOTO_CATEGORIES:
        for color in COLORS:
            text = find_text(
                rng, pick(rng, COLOR_PHRASES).format(x=name(rng, category), c=with_article(color))
            )
            mask, meaning = on_color(truth, category, color), Shown(category, backdrop=color)
            out.append(Candidate(text, mask, ("static",), f"{category}:{color}", meaning))
        text = find_text(rng, pick(rng, BRICK_PHRASES).format(x=name(rng, category)))
        mask, meaning = on_brick(truth, category), Shown(category, backdrop="brick")
        out.append(Candidate(text, mask, ("static",), f"{category}:brick", meaning))
        for variant in CATEGORIES[category].variants:
            phrase = instance_phrase(category, variant)
            if phrase is None:
                continue
            mask = truth.mask(
                lambda tr, c=category, v=variant: tr.category == c and tr.instance.variant == v
            )
            text, meaning = find_text(rng, phrase), Shown(category, look=variant)
            out.append(Candidate(text, mask, ("static",), f"{category}:{variant}", meaning))
    return out
