"""Query files: what to look for, without ground truth. One JSON object per line::

    {"video": "match.mp4", "query": "a corner kick"}
    {"qid": "goal", "video": "match.mp4", "query": "a goal"}

`run` runs them like a benchmark; with no ground truth there is nothing to score, so
`run --eval` says so and skips scoring. A line without `qid` gets `q<line number>`. The
samples carry an unknown duration (NaN) and no intervals; `has_ground_truth` tells them apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..moments import Moments
from ..samples import Sample
from . import fields
from .records import Where
from .registry import Peek, SampleFormat, register_sample_format

# Fields that make a record a benchmark line rather than a bare query.
TRUTH_KEYS = ("duration", "intervals", "relevant_windows", "timestamp", "timestamps")


def sample_from_query(record: dict, where: Where) -> Sample:
    """One query line as a `Sample` with no ground truth.

    >>> s = sample_from_query({"video": "a.mp4", "query": "a car"}, Where(Path("q.jsonl"), 3))
    >>> s.qid, s.video, s.query, has_ground_truth([s])
    ('q3', 'a.mp4', 'a car', False)
    """
    qid = fields.qid_field(record, "qid", where) if "qid" in record else f"q{where.line}"
    where = where.at(qid)
    return Sample(
        qid=qid,
        video=fields.text_field(record, "video", where),
        duration_s=math.nan,
        query=fields.text_field(record, "query", where),
        gt=Moments.empty(),
    )


def has_ground_truth(samples: Sequence[Sample]) -> bool:
    """False when the samples came from a query file (unknown durations, no intervals)."""
    return not samples or not all(math.isnan(s.duration_s) for s in samples)


def _is_query_file(peek: Peek) -> bool:
    first = peek.first
    return (
        first is not None
        and {"video", "query"} <= first.keys()
        and not any(key in first for key in TRUTH_KEYS)
    )


def _load(path: Path, durations: Mapping[str, float] | None) -> list[Sample]:
    return fields.load_record_samples(path, sample_from_query)


register_sample_format(
    SampleFormat("queries", "queries without ground truth (video, query, optional qid)",
                 _is_query_file, _load)  # fmt: skip
)
