"""`AnnotatedQuery`: one benchmark query as the annotation tool holds it.

The benchmark fields (text, intervals, attributes) plus the review state a person sets
(Verified / Unverified / Discarded, Annotated or not) and a version number that grows by one
with every accepted edit, so a write based on an older version can be refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..moments import Moments
from ..samples import ATTRIBUTES, Sample

REVIEW_STATES = ("unverified", "verified", "discarded")
"""What a verifier decided about the query text (CoMET App. B.5, stage 1)."""

EDITABLE = ("query", "intervals", "attributes", "review", "annotated")
"""The fields an edit may change; the history stores these before and after each edit."""


@dataclass(frozen=True)
class AnnotatedQuery:
    """A query under review.

    Args:
        qid: unique query id.
        video: the video as the benchmark names it (a path relative to the videos folder).
        duration_s: the video's length as the benchmark states it, seconds.
        query: the query text.
        intervals: `((start_s, end_s), ...)` in seconds, finite, `end_s >= start_s`.
        attributes: sorted CoMET attributes, each one of `ATTRIBUTES`.
        domain: free-text domain label, may be empty.
        review: one of `REVIEW_STATES`.
        annotated: the "query annotated" flag: the interval set is complete and correct.
        version: 1 when imported, +1 per accepted edit.

    >>> q = AnnotatedQuery("q1", "v.mp4", 60.0, "a dog", ((1.0, 2.0),), ("static",))
    >>> q.to_sample().gt.to_list(), q.review, q.version
    ([[1.0, 2.0]], 'unverified', 1)
    """

    qid: str
    video: str
    duration_s: float
    query: str
    intervals: tuple[tuple[float, float], ...] = ()
    attributes: tuple[str, ...] = ()
    domain: str = ""
    review: str = "unverified"
    annotated: bool = False
    version: int = 1

    def __post_init__(self) -> None:
        spans = tuple((float(s), float(e)) for s, e in self.intervals)
        if not all(math.isfinite(s) and math.isfinite(e) and e >= s for s, e in spans):
            raise ValueError(f"qid {self.qid}: intervals must be finite with end >= start")
        object.__setattr__(self, "intervals", spans)
        attributes = tuple(sorted(set(self.attributes)))
        if not set(attributes) <= ATTRIBUTES:
            raise ValueError(f"qid {self.qid}: unknown attributes {set(attributes) - ATTRIBUTES}")
        object.__setattr__(self, "attributes", attributes)
        if self.review not in REVIEW_STATES:
            raise ValueError(f"qid {self.qid}: review must be one of {REVIEW_STATES}")
        object.__setattr__(self, "annotated", bool(self.annotated))

    @classmethod
    def from_sample(cls, sample: Sample) -> AnnotatedQuery:
        """A freshly imported query: unverified, not annotated, version 1."""
        return cls(
            qid=sample.qid,
            video=sample.video,
            duration_s=sample.duration_s,
            query=sample.query,
            intervals=tuple(map(tuple, sample.gt.to_list())),
            attributes=tuple(sample.attributes),
            domain=sample.domain,
        )

    def to_sample(self) -> Sample:
        """The benchmark sample this query stands for now."""
        return Sample(
            qid=self.qid,
            video=self.video,
            duration_s=self.duration_s,
            query=self.query,
            gt=Moments.from_list(self.intervals),
            attributes=frozenset(self.attributes),
            domain=self.domain,
        )

    def editable(self) -> dict:
        """The fields an edit may change, JSON-ready (what the history stores).

        >>> AnnotatedQuery("q1", "v.mp4", 60.0, "a dog").editable()["review"]
        'unverified'
        """
        return {
            "query": self.query,
            "intervals": [list(span) for span in self.intervals],
            "attributes": list(self.attributes),
            "review": self.review,
            "annotated": self.annotated,
        }

    def with_fields(self, **changes) -> AnnotatedQuery:
        """A copy with some editable fields changed (validated again)."""
        unknown = set(changes) - set(EDITABLE) - {"version"}
        if unknown:
            raise ValueError(f"not editable: {sorted(unknown)}")
        return replace(self, **changes)
