"""The `comet` protocol (CoMET-Bench, Appendix B.8): counting over all queries, grounding over
positive queries (per query, then macro-averaged), and negative-query recognition."""

from __future__ import annotations

import numpy as np

from .counting import mean_absolute_error, off_by_one_accuracy, pearson
from .grounding import (
    best_iou_per_gt,
    greedy_match,
    mean_iou_per_query,
    precision_f1,
    recall_per_query,
)
from .padded import Padded, SpanTable, Workspace, batched_tiou, query_chunks
from .protocol import (
    ANSWERED,
    Column,
    Protocol,
    ScoreTables,
    accounting,
    register_protocol,
    threshold_key,
)
from .reduce import masked_mean
from .rejection import false_positive_rate, positive_coverage, rejection_f1, rejection_rate

QUERY_KEYS = ("miou", "recall", "precision", "f1")


@register_protocol
class CometProtocol(Protocol):
    """Multi-event grounding with negatives: MAE, OBO, Pearson, mIoU, Recall@θ, F1@θ,
    RejRate, PosCov, Rej.-F1 and FPR.

    Per-query columns: "miou", "recall", "precision", "f1" (NaN for negative queries) and
    "tp" (true positives of the greedy matching).
    """

    name = "comet"
    query_key, query_label = "miou", "mIoU"
    report_figures = ("count_scatter", "negative_plane")

    def breakdown_keys(self, theta: float) -> tuple[str, str]:
        """CoMET Fig. 5's R@θ and Rej.-F1."""
        return threshold_key("recall", theta), "rej_f1"

    def scope(self, metrics: dict) -> str:
        m = metrics
        return f"queries: {m['n_queries']} ({m['n_positive']} positive, {m['n_negative']} negative)"

    def warnings(self, metrics: dict) -> list[str]:
        notes = []
        if metrics.get("pearson_undefined"):
            notes.append("Pearson is undefined (a count has zero variance) and reported as 0.0")
        if metrics.get("n_positive") == 0 or metrics.get("miou") is None:
            notes.append("no positive queries: grounding metrics are undefined")
        if metrics.get("n_negative") == 0:
            notes.append("no negative queries: RejRate, Rej.-F1 and FPR are undefined")
        return notes

    def thresholds(self, theta: float) -> tuple[float, ...]:
        return (theta,)

    def score(self, gt: SpanTable, pred: SpanTable, theta: float) -> ScoreTables:
        n_gt, n_pred = gt.lengths, pred.lengths
        queries = {"n_gt": n_gt, "n_pred": n_pred, "tp": np.zeros(len(n_gt), dtype=np.int64)}
        # Defaults hold for queries with nothing to pair: 0 without predictions, NaN when
        # negative; only queries with both GT and predictions go through the chunks.
        queries.update({key: np.where(n_gt > 0, 0.0, np.nan) for key in QUERY_KEYS})
        # Per GT span: best tIoU and its prediction. Per predicted span: matched GT and tIoU.
        gt_offsets, pred_offsets = np.cumsum(n_gt) - n_gt, np.cumsum(n_pred) - n_pred
        best_iou, best_pred = np.zeros(int(n_gt.sum())), np.full(int(n_gt.sum()), -1)
        match_gt, match_iou = np.full(int(n_pred.sum()), -1), np.zeros(int(n_pred.sum()))
        workspace = Workspace()
        paired = np.flatnonzero((n_gt > 0) & (n_pred > 0))
        for chunk_idx in query_chunks(n_pred[paired], n_gt[paired]):
            idx = paired[chunk_idx]
            gt_chunk, pred_chunk = gt.pad(idx, workspace, "gt"), pred.pad(idx, workspace, "pred")
            chunk = _score_chunk(gt_chunk, pred_chunk, theta, workspace)
            for key in (*QUERY_KEYS, "tp"):
                queries[key][idx] = chunk[key]
            entry = _entries(gt_offsets[idx], gt_chunk.mask)
            best_iou[entry] = chunk["best"][gt_chunk.mask]
            best_pred[entry] = chunk["best_pred"][gt_chunk.mask]
            hit = chunk["matched"] >= 0
            entry = _entries(pred_offsets[idx], hit)
            match_gt[entry] = chunk["matched"][hit]
            match_iou[entry] = chunk["matched_iou"][hit]
        return ScoreTables(
            queries,
            _interval_table(gt, best_iou, best_pred),
            _match_table(pred, match_gt, match_iou),
        )

    def summarize(self, queries: dict[str, np.ndarray], idx: np.ndarray, theta: float) -> dict:
        n_gt, n_pred = queries["n_gt"][idx], queries["n_pred"][idx]
        positive = n_gt > 0
        r, undefined = pearson(n_pred, n_gt)
        rej_rate = rejection_rate(n_pred, n_gt, queries["status"][idx] == ANSWERED)
        pos_cov = positive_coverage(n_pred, n_gt)
        return {
            "n_queries": np.full(idx.shape[:-1], idx.shape[-1]),
            "n_positive": positive.sum(axis=-1),
            "n_negative": (~positive).sum(axis=-1),
            "mae": mean_absolute_error(n_pred, n_gt),
            "obo": off_by_one_accuracy(n_pred, n_gt),
            "pearson": r,
            "miou": masked_mean(queries["miou"][idx], positive),
            threshold_key("recall", theta): masked_mean(queries["recall"][idx], positive),
            threshold_key("f1", theta): masked_mean(queries["f1"][idx], positive),
            "rej_rate": rej_rate,
            "pos_cov": pos_cov,
            "rej_f1": rejection_f1(rej_rate, pos_cov),
            "fpr": false_positive_rate(rej_rate),
            **accounting(queries, idx, np.ones(idx.shape, dtype=bool)),
            "pearson_undefined": undefined,
        }

    def columns(self, theta: float) -> list[Column]:
        grounding = "Grounding (positives)"
        return [
            Column("mae", "MAE", "Counting", percent=False, unit="intervals"),
            Column("obo", "OBO", "Counting"),
            Column("pearson", "Pear. r", "Counting", percent=False, unit="correlation, -1 to 1"),
            Column("miou", "mIoU", grounding),
            Column(threshold_key("recall", theta), f"R@{theta:g}", grounding),
            Column(threshold_key("f1", theta), f"F1@{theta:g}", grounding),
            Column("rej_rate", "RejRate", "Negatives"),
            Column("pos_cov", "PosCov", "Negatives"),
            Column("rej_f1", "Rej.-F1", "Negatives"),
            Column("fpr", "FPR", "Negatives"),
        ]


def _interval_table(gt: SpanTable, best_iou: np.ndarray, best_pred: np.ndarray) -> dict:
    """One row per GT span with its best tIoU and the prediction reaching it."""
    spans = gt.entries()
    return {
        "query": gt.query_of_entry(),
        "gt_index": gt.index_in_query(),
        "start_s": spans[:, 0],
        "end_s": spans[:, 1],
        "iou": best_iou,
        "pred_index": best_pred,
    }


def _match_table(pred: SpanTable, match_gt: np.ndarray, match_iou: np.ndarray) -> dict:
    """One row per prediction matched as a true positive."""
    hits = np.flatnonzero(match_gt >= 0)
    return {
        "query": pred.query_of_entry()[hits],
        "pred_index": pred.index_in_query()[hits],
        "gt_index": match_gt[hits],
        "tiou": match_iou[hits],
    }


def _entries(offsets: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Flat span index of every True cell of a `(q, K)` mask, given each query's offset."""
    return (offsets[:, None] + np.arange(mask.shape[1])[None, :])[mask]


def _score_chunk(
    gt: Padded, pred: Padded, theta: float, workspace: Workspace
) -> dict[str, np.ndarray]:
    """Per-query scores `(q,)`, per-GT best matches `(q, G)` and greedy matches `(q, P)`."""
    iou = batched_tiou(pred, gt, workspace)
    best, best_pred = best_iou_per_gt(iou, pred.mask, gt.mask)
    recall = recall_per_query(best, gt.mask, theta)
    matched = greedy_match(iou, pred.mask, gt.mask, theta)
    tp = (matched >= 0).sum(axis=1)
    precision, f1 = precision_f1(tp, pred.lengths, recall)
    matched_iou = np.zeros(matched.shape)
    if iou.shape[2]:
        matched_iou = np.take_along_axis(iou, np.maximum(matched, 0)[:, :, None], axis=2)[..., 0]
    return {
        "miou": mean_iou_per_query(best, gt.mask),
        "recall": recall,
        "precision": np.where(gt.lengths > 0, precision, np.nan),
        "f1": f1,
        "tp": tp,
        "gt_mask": gt.mask,
        "best": best,
        "best_pred": best_pred,
        "matched": matched,
        "matched_iou": matched_iou,
    }
