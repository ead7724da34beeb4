"""Naive reference scoring: the formulas of CoMET-Bench B.8 and the single-interval protocol
transcribed as plain Python loops over every (prediction, GT) pair.

Slow on purpose and kept apart from the vectorised code: the tests check `evaluate` against
it on randomised inputs, and `perf/bench_eval.py` times the two side by side.
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


def single(gts: list[Spans], preds: list[Spans], thresholds=(0.3, 0.5, 0.7), top_k=(1,)) -> dict:
    """`single` metrics: the first prediction against its best GT span; negatives skipped.
    R{K}@τ (key "recall_top{K}@τ", K > 1): one of the first K predictions reaches tIoU >= τ
    with its best-matching GT span.

    >>> single([[(0.0, 10.0), (20.0, 30.0)]], [[(20.0, 25.0), (0.0, 10.0)]])["miou"]
    0.5
    >>> single([[(0.0, 10.0)]], [[(50.0, 60.0), (0.0, 9.0)]], [0.5], top_k=(2,))["recall_top2@0.5"]
    1.0
    """
    pairs = [(gt, p) for gt, p in zip(gts, preds, strict=True) if gt]
    ious = [max(tiou(p[0], g) for g in gt) if p else 0.0 for gt, p in pairs]
    out = {"miou": _mean(ious), "ious": ious}
    for tau in thresholds:
        out[f"recall@{tau:g}"] = _mean([1.0 if v >= tau else 0.0 for v in ious])
    for k in [k for k in top_k if k > 1]:
        for tau in thresholds:
            hits = [any(max(tiou(q, g) for g in gt) >= tau for q in p[:k]) for gt, p in pairs]
            out[f"recall_top{k}@{tau:g}"] = _mean([1.0 if hit else 0.0 for hit in hits])
    return out


# --- QVHighlights (moment retrieval mAP / R1, highlight mAP / HIT@1), on the files' dicts ---

QVH_THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
QVH_R1_THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(14))  # CG-DETR's R1 range
QVH_BUCKETS = {"short": (0.0, 10.0), "middle": (10.0, 30.0), "long": (30.0, 150.0), "full": None}
QVH_LEVELS = {"Fair": 2, "Good": 3, "VeryGood": 4}


def detection_ap(gt: Spans, windows: list[tuple[float, float, float]], tau: float) -> float:
    """ActivityNet-style AP of `[start, end, score]` windows ranked by score (stable).

    >>> detection_ap([(0.0, 10.0)], [(50.0, 60.0, 0.9), (0.0, 10.0, 0.5)], 0.5)
    0.5
    """
    ranked = sorted(windows, key=lambda w: -w[2])
    matched: set[int] = set()
    hits = []
    for window in ranked:
        best_j, best_iou = -1, -1.0
        for j, g in enumerate(gt):
            value = tiou(window[:2], g)
            if j not in matched and value >= tau and value > best_iou:
                best_j, best_iou = j, value
        hits.append(best_j >= 0)
        if best_j >= 0:
            matched.add(best_j)
    precision = [sum(hits[: k + 1]) / (k + 1) for k in range(len(hits))]
    return sum(max(precision[k:]) for k, hit in enumerate(hits) if hit) / len(gt)


def saliency_ap(truth: list[bool], scores: list[float]) -> float:
    """AP of a clip ranking: tied scores are one threshold; mean over the thresholds that
    find a new positive of the best precision at that threshold or a lower one.

    >>> saliency_ap([True, False, True, False], [0.9, 0.8, 0.1, 0.5])
    0.75
    """
    if not any(truth):
        return 0.0
    if all(truth):
        return 1.0
    points = []  # (true positives, precision) per threshold, highest threshold first
    for t in sorted(set(scores), reverse=True):
        chosen = [y for y, s in zip(truth, scores, strict=True) if s >= t]
        points.append((sum(chosen), sum(chosen) / len(chosen)))
    levels = [
        max(p for _, p in points[i:])
        for i, (tp, _) in enumerate(points)
        if tp > (points[i - 1][0] if i else 0)
    ]
    return sum(levels) / len(levels)


def _qvh_moments(gt: dict, pred: dict | None, bucket) -> tuple[list[float], float] | None:
    """(AP per threshold, first-window tIoU) of one query in a bucket, None if not in it."""
    windows = [tuple(w) for w in gt["relevant_windows"]]
    if bucket is not None:
        windows = [w for w in windows if bucket[0] < w[1] - w[0] <= bucket[1]]
    if not windows:
        return None
    preds = [tuple(w) for w in (pred or {}).get("pred_relevant_windows", [])]
    if not preds:
        return [0.0] * len(QVH_THRESHOLDS), 0.0
    ap = [detection_ap(windows, preds[:10], tau) for tau in QVH_THRESHOLDS]
    return ap, max(tiou(preds[0][:2], g) for g in windows)


def _qvh_highlight(gt: dict, pred: dict | None, level: int) -> tuple[float, bool]:
    """(AP averaged over the 3 annotators, HIT@1) of one query at a saliency level."""
    n_clips = max([int(gt["duration"] / 2)] + [c + 1 for c in gt["relevant_clip_ids"]])
    people = [[0] * n_clips for _ in range(3)]
    for clip, row in zip(gt["relevant_clip_ids"], gt["saliency_scores"], strict=True):
        for a in range(3):
            people[a][clip] = row[a]
    raw = list((pred or {}).get("pred_saliency_scores", []))
    scores = (raw + [0.0] * n_clips)[:n_clips]
    ap = sum(saliency_ap([s >= level for s in p], scores) for p in people) / 3
    if not raw:
        return ap, False
    top = max(range(len(raw)), key=lambda i: (raw[i], -i))
    return ap, top < n_clips and any(p[top] >= level for p in people)


def qvhighlights(gt_records: list[dict], pred_records: list[dict]) -> dict:
    """Every QVHighlights metric as nested fractions, one query at a time (the layout of
    `longground.eval.qvhighlights.nested_metrics`); qids missing from the predictions score 0.

    >>> gt = [{"qid": 1, "duration": 8, "relevant_windows": [[0, 4]],
    ...        "relevant_clip_ids": [0], "saliency_scores": [[4, 4, 4]]}]
    >>> out = qvhighlights(gt, [{"qid": 1, "pred_relevant_windows": [[0, 4, 1.0]],
    ...                          "pred_saliency_scores": [1.0, 0.0, 0.0, 0.0]}])
    >>> out["full"]["MR-mAP"]["average"], out["HL-min-Good"]["HL-Hit1"]
    (1.0, 1.0)
    """
    preds: dict = {}
    for p in pred_records:
        preds.setdefault(str(p["qid"]), p)
    pairs = [(g, preds.get(str(g["qid"]))) for g in gt_records]
    out: dict = {}
    for name, bucket in QVH_BUCKETS.items():
        scored = [s for g, p in pairs if (s := _qvh_moments(g, p, bucket)) is not None]
        per_tau = [_mean([ap[t] for ap, _ in scored]) for t in range(len(QVH_THRESHOLDS))]
        mr_map = {str(tau): per_tau[t] for t, tau in enumerate(QVH_THRESHOLDS)}
        mr_map["average"] = _mean(per_tau)
        recall = {
            str(tau): _mean([float(iou >= tau) for _, iou in scored]) for tau in QVH_R1_THRESHOLDS
        }
        miou = _mean([iou for _, iou in scored])
        out[name] = {"MR-mIoU": miou, "MR-mAP": mr_map, "MR-R1": recall}
    for label, level in QVH_LEVELS.items():
        rows = [_qvh_highlight(g, p, level) for g, p in pairs]
        out[f"HL-min-{label}"] = {
            "HL-mAP": _mean([ap for ap, _ in rows]),
            "HL-Hit1": _mean([float(hit) for _, hit in rows]),
        }
    return out


def _box_iou(a: list[float], b: list[float]) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def _in_frames(k: int, start_s: float, end_s: float, fps: float) -> bool:
    """Frame `k` plays inside `[start_s, end_s)` (to a millionth of a frame)."""
    return start_s * fps - 1e-6 <= k < end_s * fps - 1e-6


def stvg(truth: list, preds: list) -> dict:
    """tIoU and vIoU of each query, and their summary, one frame at a time (HC-STVG's
    definition; `eval.stvg` has the formulas). `truth` and `preds` are `formats.stvg.Tube`s.

    >>> from longground.formats.stvg import Tube
    >>> from longground.track import Track
    >>> gt = Tube("q", (0.0, 1.0), Track([[0, 0, 0.5, 0.5]] * 5, [0, 0.2, 0.4, 0.6, 0.8]), 5.0)
    >>> p = Tube("q", (0.4, 1.4), Track([[0, 0, 0.5, 0.5]] * 5, [0.4, 0.6, 0.8, 1.0, 1.2]))
    >>> out = stvg([gt], [p])
    >>> round(out["viou"][0], 4), round(out["tiou"][0], 4)   # 3 frames of 7 (0.0 to 1.2 s)
    (0.4286, 0.4286)
    """
    first: dict = {}
    for p in preds:
        first.setdefault(p.qid, p)
    tious, vious = [], []
    for g in truth:
        p = first.get(g.qid)
        if p is None:
            tious.append(0.0)
            vious.append(0.0)
            continue
        tious.append(tiou(g.span, p.span))
        gt_boxes = {round(t * g.fps): b for t, b in zip(g.track.times_s, g.track.boxes.tolist())}
        pred_boxes = {round(t * g.fps): b for t, b in zip(p.track.times_s, p.track.boxes.tolist())}
        lo, hi = min(g.span[0], p.span[0]), max(g.span[1], p.span[1])
        frames = range(math.floor(lo * g.fps) - 2, math.ceil(hi * g.fps) + 2)
        union = [k for k in frames if _in_frames(k, lo, hi, g.fps)]
        total = 0.0
        for k in union:
            inside = _in_frames(k, max(g.span[0], p.span[0]), min(g.span[1], p.span[1]), g.fps)
            if inside and k in gt_boxes and k in pred_boxes:
                total += _box_iou(gt_boxes[k], pred_boxes[k])
        vious.append(total / len(union) if union else 0.0)
    summary = {"m_tIoU": _mean(tious), "m_vIoU": _mean(vious)}
    for r in (0.3, 0.5):
        summary[f"vIoU@{r:g}"] = _mean([float(v > r) for v in vious])
    return {"tiou": tious, "viou": vious, "summary": summary}
