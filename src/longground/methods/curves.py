"""From a per-frame relevance curve to moments: the pure core of frame-retrieval grounding.

Every function takes sample times `times_s` `(N,)` (ascending, seconds) and scores `(N,)`
(higher is more relevant) and returns `Moments`. A sample at time t stands for the span
`[t, t + step_s)`, where `step_s` is the sampling interval (1/fps).
"""

from __future__ import annotations

import numpy as np

from ..moments import Moments
from ..topk import EWB_WINDOWS


def smooth(scores: np.ndarray, window: int) -> np.ndarray:
    """Moving average over `window` samples (edges repeat the end values).

    >>> smooth(np.array([0., 0., 3., 0., 0.]), 3).tolist()
    [0.0, 1.0, 1.0, 1.0, 0.0]
    """
    scores = np.asarray(scores, dtype=np.float64)
    window = int(window)
    if window <= 1 or scores.size == 0:
        return scores
    before = window // 2
    padded = np.pad(scores, (before, window - 1 - before), mode="edge")
    return np.convolve(padded, np.full(window, 1.0 / window), mode="valid")


def _span(times_s: np.ndarray, first: int, last: int, step_s: float) -> tuple[float, float]:
    return float(times_s[first]), float(times_s[last] + step_s)


def single_moment(
    times_s: np.ndarray,
    scores: np.ndarray,
    step_s: float,
    *,
    beta: float = 0.7,
    min_len_s: float = 4.0,
    max_len_s: float = 60.0,
    duration_s: float | None = None,
) -> Moments:
    """The ExtremeWhenBench peak rule: one moment around the highest score.

    Start at the peak sample and grow the run of neighbouring samples while each one scores at
    least `beta * peak`. The span covers those samples. A span shorter than `min_len_s` is
    widened symmetrically about its centre; one longer than `max_len_s` is cut to `max_len_s`
    centred on the peak (kept inside the grown run). Finally the span is moved, not shrunk,
    to lie inside the video `[0, duration_s]`.

    >>> t = np.arange(10.0)
    >>> s = np.array([0, 0, .5, .8, 1, .9, .2, 0, 0, 0])
    >>> single_moment(t, s, 1.0, min_len_s=1).to_list()
    [[3.0, 6.0]]
    >>> single_moment(t, s, 1.0).to_list()  # 3 s grown to the 4 s minimum
    [[2.5, 6.5]]
    """
    if len(scores) == 0:
        return Moments.empty()
    peak = int(np.argmax(scores))
    floor = beta * scores[peak]
    first = peak
    while first > 0 and scores[first - 1] >= floor:
        first -= 1
    last = peak
    while last < len(scores) - 1 and scores[last + 1] >= floor:
        last += 1
    start_s, end_s = _span(times_s, first, last, step_s)
    if end_s - start_s < min_len_s:
        centre = (start_s + end_s) / 2
        start_s, end_s = centre - min_len_s / 2, centre + min_len_s / 2
    elif end_s - start_s > max_len_s:
        centre = float(times_s[peak]) + step_s / 2
        start_s = min(max(centre - max_len_s / 2, start_s), end_s - max_len_s)
        end_s = start_s + max_len_s
    limit = duration_s if duration_s is not None else float(times_s[-1] + step_s)
    shift = max(0.0, -start_s) - max(0.0, end_s - limit)
    start_s, end_s = max(0.0, start_s + shift), min(limit, end_s + shift)
    return Moments(np.array([[start_s, end_s]]), np.array([float(scores[peak])]))


def threshold_moments(
    times_s: np.ndarray,
    scores: np.ndarray,
    step_s: float,
    *,
    threshold: float,
    merge_gap_s: float = 2.0,
    min_len_s: float = 1.0,
    nms_iou: float = 0.5,
) -> Moments:
    """Every separated region whose scores reach `threshold`; none when nothing does.

    Samples at or above `threshold` form runs; runs closer than `merge_gap_s` are joined;
    regions shorter than `min_len_s` are dropped; each region is scored by its peak, and
    temporal NMS at `nms_iou` removes overlaps. The result is sorted by start time.

    >>> t = np.arange(12.0)
    >>> s = np.array([0, .6, .7, 0, 0, 0, 0, .9, .8, .9, 0, 0])
    >>> threshold_moments(t, s, 1.0, threshold=0.5).to_list()
    [[1.0, 3.0], [7.0, 10.0]]
    >>> len(threshold_moments(t, s, 1.0, threshold=0.95))
    0
    """
    above = np.asarray(scores) >= threshold
    if not above.any():
        return Moments.empty()
    edges = np.diff(np.concatenate([[0], above.astype(np.int8), [0]]))
    firsts, lasts = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    spans = np.array([_span(times_s, f, last, step_s) for f, last in zip(firsts, lasts)])
    peaks = np.array([scores[f : last + 1].max() for f, last in zip(firsts, lasts)])
    regions = Moments(spans, peaks).merge(gap_s=merge_gap_s)
    regions = regions[regions.lengths_s >= min_len_s]
    return regions.nms(nms_iou).sorted()


def top_k_windows(
    times_s: np.ndarray,
    scores: np.ndarray,
    *,
    k: int = 3,
    half_width_s: float = EWB_WINDOWS.half_width_s,
    nms_s: float = EWB_WINDOWS.nms_s,
    duration_s: float | None = None,
) -> Moments:
    """The `k` best peaks, at least `nms_s` apart, each widened to `±half_width_s`.

    Used by the retrieve-then-ground hybrid: the windows are where a Video-LLM looks.
    Windows are clipped to `[0, duration_s]` and returned best first.

    >>> t = np.arange(0.0, 600.0)
    >>> s = np.exp(-((t - 100) / 5) ** 2) + 0.8 * np.exp(-((t - 400) / 5) ** 2)
    >>> top_k_windows(t, s, k=2, duration_s=600).to_list()
    [[40.0, 160.0], [340.0, 460.0]]
    """
    order = np.argsort(-np.asarray(scores), kind="stable")
    centres: list[float] = []
    peak_scores: list[float] = []
    for i in order:
        if len(centres) == k:
            break
        t = float(times_s[i])
        if all(abs(t - c) >= nms_s for c in centres):
            centres.append(t)
            peak_scores.append(float(scores[i]))
    spans = np.array([[c - half_width_s, c + half_width_s] for c in centres]).reshape(-1, 2)
    end_s = duration_s if duration_s is not None else float(times_s[-1]) if len(times_s) else 0.0
    spans = np.clip(spans, 0.0, end_s)
    return Moments(spans, np.array(peak_scores))
