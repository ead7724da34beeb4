"""`longground build agree`: two annotators' files -> final.jsonl, adjudicate.jsonl and the
statistics of CoMET-Bench Table 3.

Both inputs are canonical benchmark JSONL (one query per line, `intervals` in seconds), the
same qids in each. A query both annotators agree on (see `agreement.match_intervals`) goes to
`final.jsonl` with the first annotator's line; any other query, including one that only one
file has, goes to `adjudicate.jsonl` with its disputed pairs.

With `candidates` (the model's proposals, e.g. `build comet`'s `candidates.jsonl`) the table
also counts the query-stage and interval-stage edits the first annotator made to them:

- a candidate query is *kept* when the annotator's line has the same text, *rewritten* when
  the text changed, *discarded* when the qid is gone;
- a candidate interval is *kept* when the annotator's matched interval is identical (to 1 ms),
  *adjusted* when it still overlaps it, *deleted* when no annotator interval overlaps it;
  annotator intervals left unmatched are *added*. Matching is `linear_sum_assignment` on tIoU.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..formats.canonical import sample_from_record, sample_record
from ..formats.fields import load_record_samples
from ..moments import tiou_matrix
from ..samples import Sample
from .agreement import AGREE_IOU, match_intervals

SAME_S = 1e-3


@dataclass
class AgreeStats:
    """Counts for Table 3; query/interval edits stay None without candidates."""

    queries: int = 0
    adjudicated_queries: int = 0
    adjudicated_intervals: int = 0
    query_edits: dict[str, int] | None = None
    interval_edits: dict[str, int] | None = None
    missing: dict[str, int] = field(default_factory=lambda: {"only_a": 0, "only_b": 0})

    def to_dict(self) -> dict:
        return {
            "queries": self.queries,
            "adjudicated_queries": self.adjudicated_queries,
            "adjudicated_intervals": self.adjudicated_intervals,
            "query_edits": self.query_edits,
            "interval_edits": self.interval_edits,
            "missing": self.missing,
        }


def load(path: Path) -> dict[str, Sample]:
    """A canonical benchmark file by qid (strict: errors name the file and line)."""
    return {s.qid: s for s in load_record_samples(Path(path), sample_from_record)}


def split(a: dict[str, Sample], b: dict[str, Sample], threshold: float = AGREE_IOU):
    """`(final samples, adjudication records, stats)` for two annotators' samples.

    >>> from longground.moments import Moments
    >>> s = lambda spans: Sample("q", "v", 60.0, "x", Moments.from_list(spans))
    >>> final, disputed, stats = split({"q": s([[0, 10]])}, {"q": s([[0, 7]])})
    >>> len(final), disputed[0]["disputed"], stats.adjudicated_intervals
    (0, [{'a': [0.0, 10.0], 'b': [0.0, 7.0], 'iou': 0.7}], 1)
    """
    final, disputed, stats = [], [], AgreeStats()
    for qid in list(a) + [q for q in b if q not in a]:
        stats.queries += 1
        first, second = a.get(qid), b.get(qid)
        if first is None or second is None:
            stats.missing["only_a" if second is None else "only_b"] += 1
            disputed.append(_missing_record(first or second, "a" if second is None else "b"))
            stats.adjudicated_queries += 1
            continue
        verdict = match_intervals(first.gt.spans, second.gt.spans, threshold)
        if verdict.agrees:
            final.append(first)
            continue
        stats.adjudicated_queries += 1
        stats.adjudicated_intervals += len(verdict.disputes)
        disputed.append(_dispute_record(first, second, verdict.disputes))
    return final, disputed, stats


def _missing_record(sample: Sample, present: str) -> dict:
    side = "only in the first file" if present == "a" else "only in the second file"
    return {**sample_record(sample), "reason": side, "disputed": []}


def _dispute_record(first: Sample, second: Sample, disputes) -> dict:
    if len(first.gt) != len(second.gt):
        reason = f"count differs: {len(first.gt)} vs {len(second.gt)}"
    else:
        reason = f"a matched pair has tIoU <= {AGREE_IOU}"
    record = sample_record(first)
    record.pop("intervals")
    return {
        **record,
        "reason": reason,
        "a_intervals": first.gt.to_list(),
        "b_intervals": second.gt.to_list(),
        "b_query": second.query,
        "disputed": [d.to_dict() for d in disputes],
    }


def edit_counts(candidates: dict[str, Sample], annotated: dict[str, Sample]) -> tuple[dict, dict]:
    """Query edits and interval edits from model candidates to one annotator's file.

    >>> from longground.moments import Moments
    >>> c = {"q": Sample("q", "v", 60.0, "x", Moments.from_list([[0, 10], [20, 30], [40, 50]]))}
    >>> a = {"q": Sample("q", "v", 60.0, "y", Moments.from_list([[0, 10], [21, 30], [55, 58]]))}
    >>> edit_counts(c, a)
    ({'candidates': 1, 'kept': 0, 'rewritten': 1, 'discarded': 0}, \
{'candidates': 3, 'kept': 1, 'adjusted': 1, 'deleted': 1, 'added': 1, 'final': 3})
    """
    queries = {"candidates": len(candidates), "kept": 0, "rewritten": 0, "discarded": 0}
    spans = dict.fromkeys(("candidates", "kept", "adjusted", "deleted", "added", "final"), 0)
    for qid, cand in candidates.items():
        final = annotated.get(qid)
        if final is None:
            queries["discarded"] += 1
            continue
        queries["kept" if final.query.strip() == cand.query.strip() else "rewritten"] += 1
        for key, n in _interval_edits(cand.gt.spans, final.gt.spans).items():
            spans[key] += n
    return queries, spans


def _interval_edits(proposed: np.ndarray, final: np.ndarray) -> dict[str, int]:
    from scipy.optimize import linear_sum_assignment

    iou = tiou_matrix(proposed, final)
    rows, cols = linear_sum_assignment(iou, maximize=True)
    overlapping = [(i, j) for i, j in zip(rows, cols, strict=True) if iou[i, j] > 0]
    same = sum(bool(np.all(np.abs(proposed[i] - final[j]) <= SAME_S)) for i, j in overlapping)
    return {
        "candidates": len(proposed),
        "kept": same,
        "adjusted": len(overlapping) - same,
        "deleted": len(proposed) - len(overlapping),
        "added": len(final) - len(overlapping),
        "final": len(final),
    }
