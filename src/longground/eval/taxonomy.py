"""The search-vs-localise failure taxonomy of the single protocol (ExtremeWhenBench Sec. 5).

A positive query whose IoU is below `fail_iou` is a failure and falls in exactly one class:

- `parse_fail`: an answer was given but could not be read;
- `no_answer`: the prediction is missing, or names no interval;
- `search_fail`: the first predicted interval's midpoint lies more than `offset_s` from the
  midpoint of the nearest GT interval (the method looked in the wrong place);
- `localization_fail`: that distance is at most `offset_s` (right place, wrong boundaries).

Negative queries have no IoU under the single protocol and are never failures here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from .protocol import MISSING, PARSE_FAILURE

CLASSES = ("parse_fail", "no_answer", "search_fail", "localization_fail")
NOT_FAILED = -1
SENSITIVITY_MIN = (2.0, 5.0, 10.0)


def nearest_midpoint_distance_s(pred_mid_s: np.ndarray, gt: Sequence[np.ndarray]) -> np.ndarray:
    """Distance from each query's predicted midpoint to its nearest GT interval's midpoint.

    Args:
        pred_mid_s: `(Q,)` seconds, NaN where there is no prediction.
        gt: Q arrays `(K_q, 2)` of GT spans in seconds.

    Returns:
        `(Q,)` seconds; NaN where there is no prediction or no GT interval.

    >>> nearest_midpoint_distance_s(np.array([100.0, np.nan]),
    ...                             [np.array([[0, 10], [180, 200]]), np.array([[0, 1]])]).tolist()
    [90.0, nan]
    """
    lengths = np.array([len(g) for g in gt], dtype=np.int64)
    out = np.full(len(gt), np.nan)
    has = lengths > 0
    if not has.any():
        return out
    flat = np.concatenate([np.asarray(g, dtype=float).reshape(-1, 2) for g in gt])
    owner = np.repeat(np.arange(len(gt)), lengths)
    gaps = np.abs(flat.mean(axis=1) - pred_mid_s[owner])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])[has]
    out[has] = np.fmin.reduceat(gaps, starts)  # fmin keeps NaN only when all are NaN
    return out


def classify(
    iou: np.ndarray,
    status: np.ndarray,
    n_pred: np.ndarray,
    distance_s: np.ndarray,
    fail_iou: float = 0.05,
    offset_s: float = 300.0,
) -> np.ndarray:
    """The failure class of every query, as an index into `CLASSES` (`NOT_FAILED` = -1).

    Args:
        iou: `(Q,)` single-protocol IoU; NaN for negative queries (never failures).
        status: `(Q,)` answer status (ANSWERED, MISSING, PARSE_FAILURE).
        n_pred: `(Q,)` predicted intervals per query.
        distance_s: `(Q,)` from `nearest_midpoint_distance_s`.
        fail_iou: a query with IoU below this fails.
        offset_s: search vs localisation boundary, in seconds.

    >>> classify(np.array([0.0, 0.0, 0.0, 0.0, 0.6, np.nan]), np.array([2, 1, 0, 0, 0, 1]),
    ...          np.array([0, 0, 1, 1, 1, 0]), np.array([np.nan, np.nan, 400, 30, 0, np.nan]))
    array([ 0,  1,  2,  3, -1, -1])
    """
    failed = np.nan_to_num(iou, nan=np.inf) < fail_iou
    parse = status == PARSE_FAILURE
    empty = ~parse & ((status == MISSING) | (n_pred == 0))
    far = np.nan_to_num(distance_s, nan=np.inf) > offset_s
    label = np.where(parse, 0, np.where(empty, 1, np.where(far, 2, 3)))
    return np.where(failed, label, NOT_FAILED)


@dataclass(frozen=True)
class TaxonomyCounts:
    """How many failures fell in each class.

    Attributes:
        n_scored: queries scored (positives).
        counts: `{class: n}` for every name in `CLASSES`.
    """

    n_scored: int
    counts: dict[str, int]

    @classmethod
    def of(cls, labels: np.ndarray, n_scored: int) -> TaxonomyCounts:
        """Count `classify`'s labels."""
        return cls(n_scored, {name: int((labels == i).sum()) for i, name in enumerate(CLASSES)})

    @property
    def n_failures(self) -> int:
        return sum(self.counts.values())

    def fractions(self) -> dict[str, float]:
        """Each class as a fraction of the failures (0.0 each when nothing failed)."""
        total = self.n_failures
        return {name: (n / total if total else 0.0) for name, n in self.counts.items()}

    def to_dict(self) -> dict:
        return {
            "n_scored": self.n_scored,
            "n_failures": self.n_failures,
            "counts": dict(self.counts),
            "fractions": self.fractions(),
        }


def sample_failures(labels: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Indices (ascending) of `n` failed queries drawn without replacement, deterministically
    from `seed` (all failures when there are at most `n`).

    >>> sample_failures(np.array([-1, 0, 2, 3, -1]), 5, seed=42).tolist()
    [1, 2, 3]
    """
    failed = np.flatnonzero(labels != NOT_FAILED)
    if len(failed) <= n:
        return failed
    return np.sort(np.random.default_rng(seed).choice(failed, size=n, replace=False))


def failure_taxonomy(
    iou: np.ndarray,
    status: np.ndarray,
    n_pred: np.ndarray,
    distance_s: np.ndarray,
    qids: Sequence[str],
    fail_iou: float = 0.05,
    offset_min: float = 5.0,
    sample: int = 0,
    seed: int = 42,
) -> dict:
    """The taxonomy as `eval --json` reports it under "taxonomy".

    Returns:
        `{"fail_iou", "offset_min", "n_scored", "n_failures", "counts", "fractions",
        "sensitivity": [{"offset_min", "counts", "fractions"} at ±2, 5, 10 min]}`, plus
        "sample" (`{"n", "seed", "qids", "counts", "fractions"}`) when `sample` > 0.

    >>> t = failure_taxonomy(np.array([0.0, 0.9]), np.array([0, 0]), np.array([1, 1]),
    ...                      np.array([30.0, 0.0]), ["a", "b"])
    >>> t["counts"], t["sensitivity"][0]["offset_min"]
    ({'parse_fail': 0, 'no_answer': 0, 'search_fail': 0, 'localization_fail': 1}, 2.0)
    """
    check_taxonomy_options(fail_iou, offset_min, sample)
    n_scored = int(np.isfinite(iou).sum())

    def labels_at(minutes: float) -> np.ndarray:
        return classify(iou, status, n_pred, distance_s, fail_iou, 60.0 * minutes)

    labels = labels_at(offset_min)
    out = {"fail_iou": float(fail_iou), "offset_min": float(offset_min)}
    out.update(TaxonomyCounts.of(labels, n_scored).to_dict())
    out["sensitivity"] = []
    for minutes in SENSITIVITY_MIN:
        row = TaxonomyCounts.of(labels_at(minutes), n_scored).to_dict()
        out["sensitivity"].append({"offset_min": minutes, **{k: row[k] for k in CLASS_KEYS}})
    if sample > 0:
        picked = sample_failures(labels, sample, seed)
        row = TaxonomyCounts.of(labels[picked], n_scored).to_dict()
        out["sample"] = {"n": len(picked), "seed": seed, "qids": [qids[i] for i in picked],
                         **{k: row[k] for k in CLASS_KEYS}}  # fmt: skip
    return out


CLASS_KEYS = ("counts", "fractions")


def check_taxonomy_options(fail_iou: float, offset_min: float, sample: int) -> None:
    """`UserError` for options outside their range."""
    if not 0.0 <= fail_iou <= 1.0:
        raise UserError(f"--fail-iou must be in [0, 1], got {fail_iou}")
    if not (np.isfinite(offset_min) and offset_min >= 0):
        raise UserError(f"--offset-min must be a finite number >= 0, got {offset_min}")
    if sample < 0:
        raise UserError(f"--sample must be >= 0, got {sample}")
