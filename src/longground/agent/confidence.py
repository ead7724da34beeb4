"""Calibrated moment scores: how likely a found moment is right, in [0, 1].

The offline verifier's part probabilities saturate (a clearly visible object scores 1.000
whatever else is true), so they cannot rank moments for `find --max N`. A moment's score is
instead a logistic model of two things measured on it:

- its *separation* z: how far the target's scores inside the moment rise above the threshold
  decided for that text on this video (`perception.relative`), in the video's own robust
  standard deviations, `z = (q90(raw scores inside) - threshold) / spread` (for "while"
  plans the weaker of target and condition);
- its length: short pieces are the usual wrong answers (a motion burst taken for a crossing,
  a fragment of a causal scene),

    confidence = 1 / (1 + exp(-(w_z * z + w_len * ln(duration_s) + bias)))

The weights are a logistic regression of "this moment overlaps a true interval with tIoU >=
0.5", fitted on the rendering the defaults were chosen on (docs/agent.md, "Calibrated
scores"), and are settings (`confidence_z`, `confidence_log_s`, `confidence_bias`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..moments import Moments
from .perception.presence import span_frames
from .perception.relative import Decision


@dataclass(frozen=True)
class Weights:
    """Weights of the confidence model: per unit of separation z, per unit of ln(seconds),
    and the bias."""

    z: float
    log_s: float
    bias: float


def separation(
    spans_s: np.ndarray, times_s: np.ndarray, scores: np.ndarray, decision: Decision
) -> np.ndarray:
    """`(K,)` robust standard deviations by which each span's 90th-percentile raw score lies
    above the text's threshold (the span's nearest sample when it holds none).

    >>> d = Decision(2.4, 0.0, 0.5, 2.0, 2.0)
    >>> separation(np.array([[0.0, 2.0]]), np.arange(4.0), np.array([3.0, 3.0, 0, 0]), d)
    array([2.])
    """
    times_s, scores = np.asarray(times_s), np.asarray(scores, np.float64)
    spread = decision.spread if np.isfinite(decision.spread) else 1.0
    out = np.empty(len(spans_s))
    for k, (start_s, end_s) in enumerate(np.asarray(spans_s).reshape(-1, 2)):
        a, b = span_frames(times_s, start_s, end_s)
        if b <= a:
            a = int(np.clip(np.searchsorted(times_s, (start_s + end_s) / 2), 0, len(times_s) - 1))
            b = a + 1
        out[k] = (np.quantile(scores[a:b], 0.9) - decision.threshold) / spread
    return out


def confidence(z: np.ndarray, duration_s: np.ndarray, weights: Weights) -> np.ndarray:
    """The logistic model of the module docstring, `(K,)` in [0, 1].

    >>> confidence(np.array([-1.0, 0.0, 3.0]), np.ones(3), Weights(1.0, 0.0, 0.0)).round(3)
    array([0.269, 0.5  , 0.953])
    """
    log_s = np.log(np.maximum(np.asarray(duration_s, np.float64), 0.1))
    t = weights.z * np.asarray(z, np.float64) + weights.log_s * log_s + weights.bias
    return 1.0 / (1.0 + np.exp(-np.clip(t, -50, 50)))


def rescored(
    moments: Moments,
    times_s: np.ndarray,
    scores: dict[str, np.ndarray],
    decisions: dict[str, Decision],
    texts: tuple[str, ...],
    weights: Weights,
) -> tuple[Moments, np.ndarray]:
    """`moments` with calibrated scores, and the separations `(K,)` they came from; the
    weakest of `texts` counts."""
    if moments.count == 0:
        return moments, np.zeros(0)
    z = np.min([separation(moments.spans, times_s, scores[t], decisions[t]) for t in texts], axis=0)
    duration_s = moments.spans[:, 1] - moments.spans[:, 0]
    return Moments(moments.spans, confidence(z, duration_s, weights)), z
