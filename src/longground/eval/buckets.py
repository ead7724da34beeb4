"""Bucket rules for breakdowns: video duration, GT position in the video, GT event count."""

from __future__ import annotations

import numpy as np

DURATION_EDGES_S = np.array([10, 30, 60, 90]) * 60.0
DURATION_LABELS = ("<10 min", "10-30 min", "30-60 min", "60-90 min", ">=90 min")
POSITION_LABELS = ("0-20%", "20-40%", "40-60%", "60-80%", "80-100%")
COUNT_EDGES = np.array([1, 2, 4, 8])
COUNT_LABELS = ("0", "1", "2-3", "4-7", ">=8")
UNKNOWN = "unknown"


def duration_bucket(duration_s: np.ndarray) -> np.ndarray:
    """Index into `DURATION_LABELS`; each bucket includes its lower edge. -1 when unknown.

    Args:
        duration_s: `(N,)` video durations in seconds (0, negative or NaN: unknown).

    Returns:
        `(N,)` int.

    >>> duration_bucket(np.array([30.0, 600.0, 5399.0, 5400.0, np.nan])).tolist()
    [0, 1, 3, 4, -1]
    """
    duration_s = np.asarray(duration_s, dtype=np.float64)
    bucket = np.searchsorted(DURATION_EDGES_S, np.nan_to_num(duration_s), side="right")
    return np.where(np.isfinite(duration_s) & (duration_s > 0), bucket, -1)


def position_bucket(start_s: np.ndarray, end_s: np.ndarray, duration_s: np.ndarray) -> np.ndarray:
    """Fifth of the video holding each interval's centre: index into `POSITION_LABELS`.

    Centres outside the video are clamped to the first or last fifth; -1 when the duration
    is unknown.

    Args:
        start_s: `(N,)` interval starts in seconds.
        end_s: `(N,)` interval ends in seconds.
        duration_s: `(N,)` durations of the intervals' videos in seconds.

    Returns:
        `(N,)` int.

    >>> position_bucket(np.array([0.0, 90.0, 10.0]), np.array([10.0, 110.0, 20.0]),
    ...                 np.array([100.0, 100.0, 0.0])).tolist()
    [0, 4, -1]
    """
    duration_s = np.asarray(duration_s, dtype=np.float64)
    known = np.isfinite(duration_s) & (duration_s > 0)
    centre = (np.asarray(start_s) + np.asarray(end_s)) / 2.0
    relative = np.divide(centre, duration_s, out=np.zeros_like(centre), where=known)
    bucket = np.clip(np.floor(relative * 5.0), 0, 4).astype(np.int64)
    return np.where(known, bucket, -1)


def count_bucket(n_gt: np.ndarray) -> np.ndarray:
    """Index into `COUNT_LABELS` (0, 1, 2-3, 4-7, >=8 GT intervals).

    >>> count_bucket(np.array([0, 1, 2, 3, 4, 7, 8, 30])).tolist()
    [0, 1, 2, 2, 3, 3, 4, 4]
    """
    return np.searchsorted(COUNT_EDGES, np.asarray(n_gt), side="right")


def label_groups(bucket: np.ndarray, labels: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Row indices per non-empty bucket, in label order, with "unknown" (-1) last.

    >>> {k: v.tolist() for k, v in label_groups(np.array([1, -1, 1]), ("a", "b")).items()}
    {'b': [0, 2], 'unknown': [1]}
    """
    groups = {label: np.flatnonzero(bucket == i) for i, label in enumerate(labels)}
    groups[UNKNOWN] = np.flatnonzero(bucket == -1)
    return {label: rows for label, rows in groups.items() if len(rows)}
