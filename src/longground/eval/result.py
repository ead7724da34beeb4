"""`EvalResult`: headline metrics, breakdowns, confidence intervals and per-query rows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .plain import plain
from .protocol import STATUS_NAMES

# Per-query columns every protocol has; the rest are the protocol's own scores.
ACCOUNTING_COLUMNS = ("status", "n_gt", "n_pred", "invalid_intervals")


@dataclass(frozen=True)
class EvalResult:
    """The outcome of `evaluate`.

    Attributes:
        protocol: "comet" or "single".
        theta: the tIoU threshold asked for.
        metrics: headline metrics as plain values: fractions in [0, 1], counts as ints,
            None where a metric has no queries to average over (e.g. RejRate without negatives).
        qids: query ids in scoring order (the benchmark's order).
        queries: per-query columns, each `(Q,)` (see the protocol's `score`), plus "status"
            (0 answered, 1 missing, 2 parse failure) and "invalid_intervals".
        intervals: one row per scored GT interval (columns "query", "gt_index", "start_s",
            "end_s", "iou", "pred_index"), sorted by query then GT index.
        matches: matched (prediction, GT) pairs ("query", "pred_index", "gt_index", "tiou").
        by: breakdown tables by name, when asked for.
        ci: `{metric: [low, high]}` 95% bootstrap intervals, when asked for.
        unknown_qids: prediction qids that are not in the benchmark (never scored).
        warnings: one line per thing a reader should know (undefined metrics, duplicates, ...).
        settings: protocol options that differ from its defaults (`single`: "top_k", "iou"),
            the keyword arguments of `get_protocol` that rebuild the scorer.
    """

    protocol: str
    theta: float
    metrics: dict
    qids: tuple[str, ...]
    queries: dict[str, np.ndarray]
    intervals: dict[str, np.ndarray]
    matches: dict[str, np.ndarray]
    by: dict[str, dict] = field(default_factory=dict)
    ci: dict[str, list[float] | None] = field(default_factory=dict)
    unknown_qids: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    settings: dict = field(default_factory=dict)

    def to_dict(self, rows: bool = False) -> dict:
        """One JSON-ready object: protocol, theta, the metrics, warnings, then "by" and "ci"
        when they were asked for, and "queries" (per-query rows) when `rows` is True."""
        out = {"protocol": self.protocol, "theta": self.theta, **self.settings, **self.metrics}
        out["warnings"] = list(self.warnings)
        if self.by:
            out["by"] = self.by
        if self.ci:
            out["ci"] = self.ci
        if rows:
            out["queries"] = self.rows()
        return out

    def rows(self) -> list[dict]:
        """Per-query rows: qid, status, counts, the protocol's per-query scores, the best IoU
        of each scored GT interval ("gt_iou") and the matched pairs as
        `[pred_index, gt_index, tiou]` ("matches").

        >>> from longground import Moments, Prediction, Sample
        >>> from longground.eval import evaluate
        >>> gt = [Sample("a", "v.mp4", 60.0, "a dog", Moments.from_list([[0, 10], [20, 30]]))]
        >>> row = evaluate(gt, [Prediction("a", Moments.from_list([[20, 29]]))]).rows()[0]
        >>> row["status"], row["n_pred"], row["gt_iou"], row["matches"]
        ('answered', 1, [0.0, 0.9], [[0, 1, 0.9]])
        """
        own = [key for key in self.queries if key not in ACCOUNTING_COLUMNS]
        gt_iou = _split(self.intervals, len(self.qids), ("iou",))
        pairs = _split(self.matches, len(self.qids), ("pred_index", "gt_index", "tiou"))
        out = []
        for i, qid in enumerate(self.qids):
            row = {"qid": qid, "status": STATUS_NAMES[int(self.queries["status"][i])]}
            row.update({key: plain(self.queries[key][i]) for key in ACCOUNTING_COLUMNS[1:]})
            row.update({key: plain(self.queries[key][i]) for key in own})
            row["gt_iou"] = [float(v[0]) for v in gt_iou[i]]
            row["matches"] = [[int(p), int(g), float(t)] for p, g, t in pairs[i]]
            out.append(row)
        return out


def _split(table: dict[str, np.ndarray], n_queries: int, keys: tuple[str, ...]) -> list:
    """Rows of `table` (sorted by "query") grouped per query, as tuples of `keys` values."""
    bounds = np.searchsorted(table["query"], np.arange(n_queries + 1))
    columns = list(zip(*(table[k].tolist() for k in keys), strict=True))
    return [columns[bounds[i] : bounds[i + 1]] for i in range(n_queries)]
