"""Causal queries: the ball hits a target and the target falls over, as opposed to the ball
rolling past it. An episode runs from the ball's first frame on screen to the target coming to
rest (a hit) or the ball's last frame on screen (a miss)."""

from __future__ import annotations

import numpy as np

from ..catalog import CATEGORIES, PHOTO_CATEGORIES
from ..meaning import Knocked
from ..truth import Truth
from .base import Candidate, capitalize, name, pick, register

HIT = (
    "Find every time the ball hits {t} and knocks it over.",
    "When does the ball knock over {t}?",
    "Find each moment {t} is knocked over by the ball.",
    "List every time {t} falls over because the ball hit it.",
)
MISS = (
    "Find every time the ball rolls past {t} without knocking it over.",
    "When does the ball miss {t}?",
    "List each time the ball goes by {t} and {t_again} stays standing.",
)
ANY_HIT = (
    "Find every time the ball knocks something over.",
    "When does the ball hit an object and make it fall?",
)
ANY_MISS = (
    "Find every time the ball rolls by an object without knocking it over.",
    "When does the ball roll past something that stays standing?",
)


@register("causal")
def causal_queries(truth: Truth, rng: np.random.Generator) -> list[Candidate]:
    """Hits and misses for each photo category as the target, and for any target."""
    out = []
    for target in PHOTO_CATEGORIES:
        t = name(rng, target)
        mask = truth.causal_mask("hit", target)
        text = pick(rng, HIT).format(t=t)
        out.append(Candidate(text, mask, ("causal",), f"hit:{target}", Knocked(True, target)))
        again = f"the {CATEGORIES[target].noun}"
        text = capitalize(pick(rng, MISS).format(t=t, t_again=again))
        mask = truth.causal_mask("miss", target)
        out.append(Candidate(text, mask, ("causal",), f"miss:{target}", Knocked(False, target)))
    hit, miss = truth.causal_mask("hit"), truth.causal_mask("miss")
    out.append(Candidate(pick(rng, ANY_HIT), hit, ("causal",), "hit:any", Knocked(True)))
    out.append(Candidate(pick(rng, ANY_MISS), miss, ("causal",), "miss:any", Knocked(False)))
    return out
