"""Is a text visible in a stretch of video? Pooled encoder scores mapped to a probability.

The encoder gives every timeline sample a raw relevance per text. A stretch pools its samples
(median by default: robust to a few odd frames) and a logistic calibration turns the pooled
score into a presence probability; 0.5 is the decision point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Calibration:
    """Logistic map from a raw score to a presence probability.

    Attributes:
        threshold: raw score whose probability is 0.5.
        width: raw-score distance that moves the log-odds by 1 (> 0).

    >>> Calibration(0.5, 0.05).probability(np.array([0.5, 0.6])).round(3).tolist()
    [0.5, 0.881]
    """

    threshold: float
    width: float = 0.05

    def probability(self, raw: np.ndarray | float) -> np.ndarray:
        z = (np.asarray(raw, dtype=np.float64) - self.threshold) / max(self.width, 1e-9)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


def pooled(scores: np.ndarray, start: int, stop: int, quantile: float = 0.5) -> float:
    """The `quantile` of `scores[start:stop]` (-inf when empty).

    >>> pooled(np.array([0.1, 0.9, 0.5, 0.4]), 0, 4)
    0.45
    """
    part = np.asarray(scores)[start:stop]
    return float(np.quantile(part, quantile)) if part.size else float("-inf")


def span_frames(times_s: np.ndarray, start_s: float, end_s: float) -> tuple[int, int]:
    """`[start, stop)` indices of the samples with `start_s <= t < end_s`.

    >>> span_frames(np.arange(10.0), 2.5, 6.0)
    (3, 6)
    """
    t = np.asarray(times_s)
    return int(np.searchsorted(t, start_s, "left")), int(np.searchsorted(t, end_s, "left"))


def timeline_step(times_s: np.ndarray) -> float:
    """The timeline's sample step in seconds (the median gap; 1.0 with fewer than two samples).

    >>> timeline_step(np.array([0.5, 1.0, 1.5])), timeline_step(np.array([3.0]))
    (0.5, 1.0)
    """
    return float(np.median(np.diff(times_s))) if len(times_s) > 1 else 1.0
