"""Event-level segmentation (Step 2): cut a feature timeline where appearance changes.

The inter-frame cosine similarity stays high inside a shot or scene and drops at a change.
After wavelet smoothing (Daubechies-4, soft threshold, noise measured on the plateaus above
`tau_e`), every local minimum below `tau_e` is a boundary; the runs between boundaries are the
event nodes.
"""

from __future__ import annotations

import numpy as np

from .denoise import plateau_noise, wavelet_denoise


def adjacent_cosine(features: np.ndarray) -> np.ndarray:
    """Cosine similarity of each frame with the previous one.

    Args:
        features: `(T, D)` per-frame features.

    Returns:
        `(T - 1,)` float64; entry `i` compares frames `i` and `i + 1`.

    >>> adjacent_cosine(np.array([[1.0, 0], [1, 0], [0, 1]])).tolist()
    [1.0, 0.0]
    """
    x = np.asarray(features, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1)
    norms[norms == 0] = 1.0
    x = x / norms[:, None]
    return np.einsum("ij,ij->i", x[1:], x[:-1])


def local_minima_below(curve: np.ndarray, threshold: float, min_gap: int = 1) -> np.ndarray:
    """Indices of the local minima of `curve` whose value is below `threshold`.

    A flat-bottomed minimum counts once, at its first sample. With `min_gap > 1`, minima closer
    than `min_gap` samples to a deeper accepted one are dropped.

    Args:
        curve: `(M,)` values.
        threshold: only minima strictly below it count.
        min_gap: smallest distance in samples between two accepted minima.

    Returns:
        `(B,)` int64 indices, ascending.

    >>> local_minima_below(np.array([1.0, 0.5, 0.9, 0.95, 0.7, 0.7, 1.0]), 0.8).tolist()
    [1, 4]
    """
    c = np.asarray(curve, dtype=np.float64)
    if c.size == 0:
        return np.zeros(0, dtype=np.int64)
    left = np.r_[np.inf, c[:-1]]
    right = np.r_[c[1:], np.inf]
    found = np.flatnonzero((c < left) & (c <= right) & (c < threshold))
    if min_gap <= 1 or found.size < 2:
        return found.astype(np.int64)
    kept: list[int] = []
    for i in found[np.argsort(c[found], kind="stable")]:
        if all(abs(int(i) - k) >= min_gap for k in kept):
            kept.append(int(i))
    return np.array(sorted(kept), dtype=np.int64)


def event_bounds(
    features: np.ndarray, tau_e: float, stride: int = 1, min_gap: int = 1, denoise: bool = True
) -> np.ndarray:
    """Event nodes of a feature timeline as frame-index ranges.

    Segmentation runs on every `stride`-th frame (the profile's rho_E on a denser timeline);
    each boundary found there is then placed at the lowest full-rate similarity between the two
    coarse samples, so boundaries keep the timeline's own precision.

    Args:
        features: `(T, D)` appearance features at the timeline's rate.
        tau_e: boundary threshold on the smoothed similarity.
        stride: take every `stride`-th frame for the coarse curve.
        min_gap: smallest event length in coarse samples.
        denoise: apply the soft wavelet smoothing (on by default; off for tests).

    Returns:
        `(K, 2)` int64 `[start, stop)` frame ranges covering `0..T` in order.

    >>> f = np.repeat(np.eye(3), [4, 3, 5], axis=0)
    >>> event_bounds(f, 0.8, denoise=False).tolist()
    [[0, 4], [4, 7], [7, 12]]
    """
    x = np.asarray(features, dtype=np.float64)
    n = len(x)
    if n < 2:
        return np.array([[0, n]] if n else [], dtype=np.int64).reshape(-1, 2)
    fine = adjacent_cosine(x)
    stride = max(int(stride), 1)
    coarse = adjacent_cosine(x[::stride])
    if denoise:
        sigma = plateau_noise(coarse, coarse >= tau_e)
        coarse = wavelet_denoise(coarse, "soft", noise_sigma=sigma)
    curve = coarse
    cuts = []
    for j in local_minima_below(curve, tau_e, min_gap):
        lo, hi = j * stride, min((j + 1) * stride, n - 1)
        cuts.append(lo + int(np.argmin(fine[lo:hi])) + 1)
    starts = np.unique(np.r_[0, cuts]).astype(np.int64)
    return np.stack([starts, np.r_[starts[1:], n]], axis=1)


def bounds_to_spans(bounds: np.ndarray, times_s: np.ndarray, end_s: float) -> np.ndarray:
    """Frame ranges to seconds: a cut between two samples is placed halfway between them.

    Args:
        bounds: `(K, 2)` `[start, stop)` frame ranges in order, covering all frames.
        times_s: `(T,)` sample times in seconds.
        end_s: end of the last span (the clip's end).

    Returns:
        `(K, 2)` float64 spans in seconds; the first starts at `times_s[0]`.

    >>> bounds_to_spans(np.array([[0, 2], [2, 4]]), np.arange(4.0), 4.0).tolist()
    [[0.0, 1.5], [1.5, 4.0]]
    """
    t = np.asarray(times_s, dtype=np.float64)
    b = np.asarray(bounds, dtype=np.int64).reshape(-1, 2)
    if len(b) == 0:
        return np.zeros((0, 2))
    cut_s = 0.5 * (t[b[1:, 0] - 1] + t[b[1:, 0]])
    starts = np.r_[t[b[0, 0]], cut_s]
    ends = np.r_[cut_s, max(end_s, t[b[-1, 1] - 1])]
    return np.stack([starts, ends], axis=1)
