"""Naive reference scoring: the formulas of CoMET-Bench B.8 and the single-interval protocol
transcribed as plain Python loops over every (prediction, GT) pair.

Slow on purpose and kept apart from the vectorised code: the tests check `evaluate` against
it on randomised inputs, and `benchmarks/bench_eval.py` times the two side by side.
Spans are lists of `(start_s, end_s)` tuples; one list per query.
"""

from __future__ import annotations

import math

Spans = list[tuple[float, float]]


def tiou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """tIoU of two spans, 0 when their union is 0.

    >>> round(tiou((0.0, 10.0), (5.0, 15.0)), 4)
    0.3333
    """
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - inter
    return inter / union if union > 0 else 0.0


def comet_query(gt: Spans, pred: Spans, theta: float) -> dict:
    """mIoU_q, Recall@θ_q, Precision@θ_q, F1@θ_q and TP_q of one positive query.

    >>> comet_query([(0.0, 10.0)], [(0.0, 10.0), (0.0, 10.0)], 0.5)["f1"]
    0.6666666666666666
    """
    best = [max((tiou(p, g) for p in pred), default=0.0) for g in gt]
    recall = sum(1 for b in best if b >= theta) / len(gt)
    matched: set[int] = set()
    tp = 0
    for p in pred:
        best_j, best_iou = -1, -1.0
        for j, g in enumerate(gt):
            if j in matched:
                continue
            value = tiou(p, g)
            if value > best_iou:
                best_j, best_iou = j, value
        if best_iou > theta:
            tp += 1
            matched.add(best_j)
    precision = tp / len(pred) if pred else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {
        "miou": sum(best) / len(gt),
        "recall": recall,
        "precision": precision,
        "f1": f1,
        "tp": tp,
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _pearson(x: list[float], y: list[float]) -> tuple[float, bool]:
    mx, my = _mean(x), _mean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return 0.0, True
    return sxy / math.sqrt(sxx * syy), False


def comet(
    gts: list[Spans], preds: list[Spans], theta: float = 0.5, answered: list[bool] | None = None
) -> dict:
    """Every `comet` metric over all queries (NaN where a metric has no queries).

    `answered[q]` is False for a missing or unparseable answer: scored as empty, but never
    a correct rejection.

    >>> m = comet([[(0.0, 10.0)], []], [[(0.0, 5.0)], []])
    >>> m["miou"], m["recall"], m["f1"], m["rej_f1"]
    (0.5, 1.0, 0.0, 1.0)
    """
    n_gt = [len(g) for g in gts]
    n_pred = [len(p) for p in preds]
    diffs = [abs(a - b) for a, b in zip(n_pred, n_gt, strict=True)]
    pearson, undefined = _pearson([float(n) for n in n_pred], [float(n) for n in n_gt])
    per_query = [comet_query(g, p, theta) for g, p in zip(gts, preds, strict=True) if g]
    answered = [True] * len(gts) if answered is None else answered
    rejections = [
        1.0 if p == 0 and ok else 0.0
        for p, g, ok in zip(n_pred, n_gt, answered, strict=True)
        if g == 0
    ]
    rej_rate = _mean(rejections)
    pos_cov = _mean([1.0 if p > 0 else 0.0 for p, g in zip(n_pred, n_gt, strict=True) if g > 0])
    rej_sum = rej_rate + pos_cov
    rej_f1 = (
        2 * rej_rate * pos_cov / rej_sum
        if rej_sum > 0
        else (math.nan if math.isnan(rej_sum) else 0.0)
    )
    return {
        "mae": _mean([float(d) for d in diffs]),
        "obo": _mean([1.0 if d <= 1 else 0.0 for d in diffs]),
        "pearson": pearson,
        "pearson_undefined": undefined,
        "miou": _mean([q["miou"] for q in per_query]),
        "recall": _mean([q["recall"] for q in per_query]),
        "f1": _mean([q["f1"] for q in per_query]),
        "rej_rate": rej_rate,
        "pos_cov": pos_cov,
        "rej_f1": rej_f1,
        "fpr": 1.0 - rej_rate,
        "per_query": per_query,
    }


def single(gts: list[Spans], preds: list[Spans], thresholds=(0.3, 0.5, 0.7)) -> dict:
    """`single` metrics: the first prediction against its best GT span; negatives skipped.

    >>> single([[(0.0, 10.0), (20.0, 30.0)]], [[(20.0, 25.0), (0.0, 10.0)]])["miou"]
    0.5
    """
    ious = [
        max(tiou(p[0], g) for g in gt) if p else 0.0 for gt, p in zip(gts, preds, strict=True) if gt
    ]
    out = {"miou": _mean(ious), "ious": ious}
    for tau in thresholds:
        out[f"recall@{tau:g}"] = _mean([1.0 if v >= tau else 0.0 for v in ious])
    return out
