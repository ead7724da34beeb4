"""Choosing a video's queries from all candidates: a quota of positives per attribute, and about
a quarter negatives (as in CoMET-Bench, 26.6 %) spread over the attributes."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...moments import Moments
from ..meaning import Meaning
from ..truth import Truth
from .base import QUERY_BUILDERS, Candidate

#: The order attributes are listed in a benchmark line: temporal, spatial, then negative.
ATTRIBUTE_ORDER = (
    "causal",
    "sequential",
    "synchronous",
    "bounded",
    "static",
    "dynamic",
    "identity",
    "negative",
)
NEGATIVE_SHARE = 0.266


@dataclass(frozen=True)
class Query:
    """A chosen query with its exact ground truth.

    Args:
        text: the query.
        gt: ground-truth moments in seconds (empty for a negative query).
        attributes: CoMET attributes in `ATTRIBUTE_ORDER`.
        key: which condition it states, as "builder/condition" (e.g. "static/cat:green"),
            for checking and debugging.
        meaning: what it asks, in parts (`synth.meaning`).
    """

    text: str
    gt: Moments
    attributes: tuple[str, ...]
    key: str
    meaning: Meaning


def _ordered(attributes) -> tuple[str, ...]:
    return tuple(a for a in ATTRIBUTE_ORDER if a in set(attributes))


def _take(rng: np.random.Generator, pool: list[Candidate], n: int) -> list[Candidate]:
    picked = rng.permutation(len(pool))[:n]
    return [pool[i] for i in sorted(picked)]


def _negatives(rng, pools: dict[str, list[Candidate]], n: int) -> list[Candidate]:
    """Up to `n` negatives, one per attribute in turn, so every attribute gets some."""
    left = {k: list(v) for k, v in pools.items() if v}
    out: list[Candidate] = []
    while len(out) < n and left:
        for attribute in [str(a) for a in rng.permutation(sorted(left))]:
            if len(out) == n:
                break
            pool = left[attribute]
            out.append(pool.pop(int(rng.integers(len(pool)))))
            if not pool:
                del left[attribute]
    return out


def select_queries(truth: Truth, rng: np.random.Generator, per_attribute: int) -> list[Query]:
    """Queries for one video: `per_attribute` positives per attribute where the video has them,
    plus negatives, in a shuffled order.

    >>> from fractions import Fraction
    >>> from ..storyboard import plan_script
    >>> s = plan_script(np.random.default_rng(2), "v", 60.0, Fraction(5), 16 / 9, (2.0, 8.0))
    >>> qs = select_queries(Truth(s), np.random.default_rng(0), 1)
    >>> sorted({a for q in qs for a in q.attributes}) == sorted(ATTRIBUTE_ORDER)
    True
    """
    positives, negative_pools = [], {}
    for attribute in ATTRIBUTE_ORDER:
        builder = QUERY_BUILDERS.get(attribute)
        if builder is None:
            continue
        candidates = [replace(c, key=f"{attribute}/{c.key}") for c in builder(truth, rng)]
        positives += _take(rng, [c for c in candidates if c.positive], per_attribute)
        negative_pools[attribute] = [c for c in candidates if not c.positive]
    n_negative = round(len(positives) * NEGATIVE_SHARE / (1 - NEGATIVE_SHARE))
    chosen = positives + _negatives(rng, negative_pools, n_negative)
    order = rng.permutation(len(chosen))
    queries = []
    for i in order:
        c = chosen[i]
        attributes = c.attributes if c.positive else c.attributes + ("negative",)
        queries.append(Query(c.text, truth.spans(c.mask), _ordered(attributes), c.key, c.meaning))
    return queries
