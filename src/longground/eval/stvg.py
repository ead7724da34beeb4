"""The `stvg` protocol: spatio-temporal video grounding scored as HC-STVG and VidSTG score it.

Per query, with GT span `[gs, ge)`, predicted span `[ps, pe)` and the frames `k` of the
truth's frame grid (`k / fps` seconds):

- tIoU = overlap / union of the two spans in seconds (0 when the union is 0);
- vIoU = (1 / |S_u|) * sum over k in S_i of IoU(gt box at k, predicted box at k), where
  S_i are the frames in `[max(gs, ps), min(ge, pe))` and S_u those in `[min(gs, ps),
  max(ge, pe))`; a frame without a GT box or without a predicted box adds 0; vIoU is 0
  when S_u is empty.

Over Q queries: m_tIoU and m_vIoU are the means, vIoU@R the share of queries with vIoU > R
(strictly, as TubeDETR's evaluator counts), for R in 0.3 and 0.5. A query without a
prediction scores 0 on both and is counted as missing. `eval.reference.stvg` is the same
definition as a loop over frames; the tests hold this vectorised code equal to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..formats.stvg import Tube, read_tubes
from ..track import box_iou
from .table import format_value, render

THRESHOLDS = (0.3, 0.5)
# Frame times are compared with this tolerance in frames, so 0.6 s at 5 fps is frame 3.
FRAME_EPS = 1e-6


@dataclass(frozen=True)
class StvgScores:
    """Per-query scores of Q queries.

    Attributes:
        qids: `(Q,)` the truth's qids, in its order.
        tiou: `(Q,)` float64 temporal IoU.
        viou: `(Q,)` float64 vIoU.
        answered: `(Q,)` bool, the query has a prediction.
        unknown_qids: predicted qids that are not in the truth.
    """

    qids: tuple[str, ...]
    tiou: np.ndarray
    viou: np.ndarray
    answered: np.ndarray
    unknown_qids: tuple[str, ...] = ()

    def metrics(self) -> dict:
        """m_tIoU, m_vIoU, vIoU@0.3, vIoU@0.5 (fractions; NaN with no query) and counts."""
        empty = not len(self.qids)
        out = {
            "m_tIoU": float("nan") if empty else float(self.tiou.mean()),
            "m_vIoU": float("nan") if empty else float(self.viou.mean()),
        }
        for r in THRESHOLDS:
            out[f"vIoU@{r:g}"] = float("nan") if empty else float((self.viou > r).mean())
        out["n_queries"] = len(self.qids)
        out["missing"] = int((~self.answered).sum())
        out["unknown_qids"] = len(self.unknown_qids)
        return out

    def rows(self) -> list[dict]:
        """One row per query, for `--per-query`."""
        return [
            {"qid": q, "tiou": float(t), "viou": float(v), "answered": bool(a)}
            for q, t, v, a in zip(self.qids, self.tiou, self.viou, self.answered)
        ]


def frame_range(start_s: np.ndarray, end_s: np.ndarray, fps: np.ndarray) -> np.ndarray:
    """`(Q, 2)` int `[first, stop)` of the grid frames `k` with `start_s <= k / fps < end_s`.

    >>> frame_range(np.array([0.0, 0.5]), np.array([1.0, 0.5]), np.array([5.0, 5.0])).tolist()
    [[0, 5], [3, 3]]
    """
    first = np.ceil(start_s * fps - FRAME_EPS)
    stop = np.maximum(np.ceil(end_s * fps - FRAME_EPS), first)
    return np.stack([first, stop], axis=1).astype(np.int64)


def grid_frames(track, fps: float, where: str) -> np.ndarray:
    """The grid frame of each box of `track` (its time times `fps`, rounded).

    Raises:
        UserError: two boxes fall on one frame.
    """
    frames = np.round(track.times_s * fps).astype(np.int64)
    twice = np.flatnonzero(np.diff(frames) == 0)
    if len(twice):
        k = int(frames[twice[0]])
        raise UserError(f"{where}: two boxes on frame {k} ({k / fps:g} s at {fps:g} fps)")
    return frames


def score_stvg(truth: list[Tube], preds: list[Tube]) -> StvgScores:
    """Score predicted tubes against the truth's, vectorised over queries and frames.

    Args:
        truth: one tube per query, each with its `fps`.
        preds: predicted tubes; the first per qid is used, qids not in the truth are counted.

    Returns:
        The per-query scores.

    >>> from longground.track import Track
    >>> box = [[0.0, 0.0, 0.5, 0.5]]
    >>> gt = Tube("q", (0.0, 1.0), Track(box * 5, np.arange(5) / 5), fps=5.0)
    >>> half = Tube("q", (0.0, 1.0), Track([[0.0, 0.0, 0.5, 0.25]] * 5, np.arange(5) / 5))
    >>> score_stvg([gt], [half]).metrics()["m_vIoU"]
    0.5
    """
    qids = tuple(t.qid for t in truth)
    row = {qid: i for i, qid in enumerate(qids)}
    first: dict[str, Tube] = {}
    for p in preds:
        first.setdefault(p.qid, p)
    unknown = tuple(q for q in first if q not in row)
    answered = np.array([q in first for q in qids], dtype=bool)
    fps = np.array([t.fps for t in truth], dtype=np.float64)
    gt_spans = np.array([t.span for t in truth], dtype=np.float64).reshape(-1, 2)
    pred_spans = np.array([first[q].span if q in first else (0.0, 0.0) for q in qids])
    pred_spans = pred_spans.reshape(-1, 2)
    tiou = np.where(answered, paired_tiou(gt_spans, pred_spans), 0.0)
    inter = frame_range(np.maximum(gt_spans[:, 0], pred_spans[:, 0]),
                        np.minimum(gt_spans[:, 1], pred_spans[:, 1]), fps)  # fmt: skip
    union = frame_range(np.minimum(gt_spans[:, 0], pred_spans[:, 0]),
                        np.maximum(gt_spans[:, 1], pred_spans[:, 1]), fps)  # fmt: skip
    n_union = union[:, 1] - union[:, 0]
    summed = _summed_box_iou(truth, [first.get(q) for q in qids], fps, inter)
    viou = np.zeros(len(qids))
    np.divide(summed, n_union, out=viou, where=answered & (n_union > 0))
    return StvgScores(qids, tiou, viou, answered, unknown)


def paired_tiou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tIoU of `a[i]` with `b[i]` (`(Q, 2)` spans each): `(Q,)`, 0 where the union is 0.

    >>> paired_tiou(np.array([[0.0, 10.0], [0.0, 0.0]]), np.array([[5.0, 15.0], [0.0, 0.0]]))
    array([0.33333333, 0.        ])
    """
    inter = np.clip(np.minimum(a[:, 1], b[:, 1]) - np.maximum(a[:, 0], b[:, 0]), 0.0, None)
    union = (a[:, 1] - a[:, 0]) + (b[:, 1] - b[:, 0]) - inter
    out = np.zeros_like(inter)
    np.divide(inter, union, out=out, where=union > 0)
    return out


def _summed_box_iou(truth, preds, fps: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """`(Q,)` sum of box IoUs over the frames inside `inter` that both tracks hold."""
    keys, boxes = [], []
    for side in (truth, preds):
        query, frames, found = [], [], []
        for i, tube in enumerate(side):
            if tube is None or not len(tube.track):
                continue
            query.append(np.full(len(tube.track), i))
            frames.append(grid_frames(tube.track, fps[i], f"qid {tube.qid}"))
            found.append(tube.track.boxes)
        query = np.concatenate(query or [np.zeros(0, np.int64)])
        frames = np.concatenate(frames or [np.zeros(0, np.int64)])
        inside = (frames >= inter[query, 0]) & (frames < inter[query, 1])
        keys.append(query[inside] * (1 << 40) + frames[inside] - inter[query[inside], 0])
        boxes.append(np.concatenate(found or [np.zeros((0, 4))])[inside])
    _, gt_at, pred_at = np.intersect1d(keys[0], keys[1], assume_unique=True, return_indices=True)
    ious = box_iou(boxes[0][gt_at], boxes[1][pred_at])
    return np.bincount(keys[0][gt_at] >> 40, weights=ious, minlength=len(truth))


def load_and_score(gt: str | Path, pred: str | Path) -> StvgScores:
    """Read both files (`formats.stvg`: canonical, HC-STVG or VidSTG truth) and score them."""
    truth = read_tubes(gt, truth=True)
    if not truth:
        raise UserError(f"{gt}: no queries")
    seen = set()
    for tube in truth:
        if tube.qid in seen:
            raise UserError(f"{gt}: qid {tube.qid} appears twice")
        seen.add(tube.qid)
    return score_stvg(truth, read_tubes(pred, truth=False))


def format_stvg(scores: StvgScores) -> str:
    """The metrics as a table of percentages, and the counts."""
    metrics = scores.metrics()
    keys = ["m_tIoU", "m_vIoU", *(f"vIoU@{r:g}" for r in THRESHOLDS)]
    lines = [f"protocol stvg, queries: {metrics['n_queries']}", ""]
    lines += render(keys, [[format_value(metrics[k], True) for k in keys]])
    lines += ["", f"missing {metrics['missing']}, unknown qids {metrics['unknown_qids']}"]
    return "\n".join(lines)
