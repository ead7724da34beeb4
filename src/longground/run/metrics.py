"""Running scores shown on the progress bar while a run goes, when the benchmark has GT.

These are a glance, not the evaluation: `longground eval` scores the finished file under a
full protocol. The running mIoU follows the single-moment protocol (the first predicted
interval against the best-matching GT interval, over queries with GT); the count MAE is
`|predicted count - GT count|` over every query. A query with an error or an unparsed answer
counts as IoU 0 and a predicted count of 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..moments import tiou_matrix
from ..samples import Sample


class RunningMetrics:
    """Accumulates per-query IoU and count error as records arrive.

    >>> from longground.moments import Moments
    >>> gt = {"q1": Sample("q1", "v", 60.0, "x", Moments.from_list([[10, 20]])),
    ...       "q2": Sample("q2", "v", 60.0, "y", Moments.empty())}
    >>> m = RunningMetrics(gt.values())
    >>> m.update({"qid": "q1", "intervals": [[15, 20], [40, 41]]})
    >>> m.update({"qid": "q2", "intervals": []})
    >>> m.summary()
    {'mIoU': 0.5, 'count_MAE': 0.5, 'errors': 0, 'parse_failed': 0}
    """

    def __init__(self, samples: Iterable[Sample]):
        self._gt = {sample.qid: sample.gt.spans for sample in samples}
        self.has_gt = any(len(spans) for spans in self._gt.values())
        self._ious: list[float] = []
        self._count_errors: list[int] = []
        self.errors = 0
        self.parse_failed = 0

    def update(self, record: dict[str, Any]) -> None:
        """Add one finished query (records of unknown qids are ignored)."""
        if "error" in record:
            self.errors += 1
        elif record.get("parse_error") is not None:
            self.parse_failed += 1
        gt = self._gt.get(record["qid"])
        if gt is None:
            return
        predicted = np.asarray(record.get("intervals") or [], dtype=np.float64).reshape(-1, 2)
        self._count_errors.append(abs(len(predicted) - len(gt)))
        if len(gt):
            iou = tiou_matrix(predicted[:1], gt).max() if len(predicted) else 0.0
            self._ious.append(float(iou))

    def summary(self) -> dict[str, float | int]:
        """`{"mIoU", "count_MAE", "errors", "parse_failed"}` so far; NaN where nothing was
        scored yet."""
        return {
            "mIoU": float(np.mean(self._ious)) if self._ious else float("nan"),
            "count_MAE": float(np.mean(self._count_errors)) if self._count_errors else float("nan"),
            "errors": self.errors,
            "parse_failed": self.parse_failed,
        }

    def postfix(self) -> str:
        """A short text for the progress bar, e.g. `mIoU(1st)=41.2% MAE=1.30 err=2`: the first
        interval's mIoU (single protocol), in percent as `eval` prints metrics."""
        parts = []
        if self.has_gt:
            s = self.summary()
            parts += [f"mIoU(1st)={100 * s['mIoU']:.1f}%", f"MAE={s['count_MAE']:.2f}"]
        if self.errors:
            parts.append(f"err={self.errors}")
        if self.parse_failed:
            parts.append(f"unparsed={self.parse_failed}")
        return " ".join(parts)
