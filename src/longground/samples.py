"""Benchmark samples and predictions: what a benchmark asks and what a system answered."""

from __future__ import annotations

from dataclasses import dataclass, field

from .moments import Moments

# The CoMET attributes, in the order the paper lists them (App. B.5); lists shown to people
# keep this order.
ATTRIBUTE_ORDER = (
    "identity",
    "static",
    "dynamic",
    "causal",
    "sequential",
    "synchronous",
    "bounded",
    "negative",
)
# Beyond CoMET: which evidence channel a query asks about (docs/channels.md), and what kind of
# thing it names (the real-footage montages, docs/synthetic-benchmark.md); benchmark files may
# carry them, CoMET's attribute sampler and the annotation page do not.
CHANNEL_ATTRIBUTES = ("speech", "text", "person", "object", "scene", "action")
# Beyond CoMET: groups of queries scored apart ("near-miss": an absent object named beside a
# confusable one on screen, synth/queries/near_miss.py and the montages).
GROUP_ATTRIBUTES = ("near-miss",)
ATTRIBUTES = frozenset(ATTRIBUTE_ORDER + CHANNEL_ATTRIBUTES + GROUP_ATTRIBUTES)


def unknown_attribute(names: set[str] | frozenset[str]) -> str | None:
    """What is wrong with `names` when one of them is no CoMET attribute, else None.

    >>> unknown_attribute({"causal"}) is None
    True
    >>> unknown_attribute({"causal", "funny"})[:26]
    "unknown attribute 'funny' "
    """
    unknown = sorted(set(names) - ATTRIBUTES)
    if not unknown:
        return None
    return f"unknown attribute {unknown[0]!r} (known: {', '.join(sorted(ATTRIBUTES))})"


@dataclass(frozen=True)
class Sample:
    """One benchmark query with its ground truth.

    Args:
        qid: unique query id.
        video: video id or path.
        duration_s: video length in seconds.
        query: the natural-language query.
        gt: ground-truth moments; empty for a negative query.
        attributes: CoMET attributes, a subset of `ATTRIBUTES`.
        domain: free-text domain label ("sports", "surveillance", ...), may be empty.
    """

    qid: str
    video: str
    duration_s: float
    query: str
    gt: Moments
    attributes: frozenset[str] = frozenset()
    domain: str = ""

    @property
    def is_negative(self) -> bool:
        return len(self.gt) == 0


@dataclass(frozen=True)
class Prediction:
    """A system's answer for one query.

    `moments` is None when the raw answer could not be parsed (`parse_error` says why);
    a parse failure is scored as empty but counted separately.
    `invalid_intervals` counts intervals dropped as non-finite or reversed.
    """

    qid: str
    moments: Moments | None
    raw: str | None = None
    parse_error: str | None = None
    invalid_intervals: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def scored_moments(self) -> Moments:
        """What the metrics see: the moments, or empty on a parse failure."""
        return self.moments if self.moments is not None else Moments.empty()
