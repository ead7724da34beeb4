"""Decisions relative to the video: each plan text gets its own "visible" threshold, read off
its own score distribution over the whole video.

An encoder's absolute threshold (label-bridge: 2.4 standard deviations above an average
ImageNet class) fits the footage it was tuned on. On other footage (smaller objects, other
backdrops, another resolution) an object's frames can score clearly above the rest of the
video and still below that constant, and the agent then finds nothing at all. Most frames of a
long video do not show any one named thing, so the median of a text's frame scores and their
spread (median absolute deviation) describe "not this"; a frame `k_mad` robust standard
deviations above that is clearly separated.

The rule, per text, with `m` the median and `r = 1.4826 * MAD` (at least `min_spread`):

    threshold = min(absolute, max(m + k_mad * r, absolute - max_drop))

The absolute threshold stays an upper bound (a frequent object, whose frames raise the median,
is never judged more strictly than before), and `max_drop` bounds how far a quiet video may
pull the threshold down (a text that scores uniformly low is not "found" in its noise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .presence import Calibration

#: Scale from the median absolute deviation to a normal standard deviation.
MAD_TO_SD = 1.4826


@dataclass(frozen=True)
class RelativeRule:
    """Parameters of the relative threshold (see the module docstring).

    Attributes:
        k_mad: robust standard deviations above the video's median that count as visible.
        max_drop: most the threshold may fall below the absolute one (raw score units).
        min_spread: smallest robust standard deviation used (raw score units), so a nearly
            constant score does not make every tiny wiggle "separated".
    """

    k_mad: float = 4.0
    max_drop: float = 1.0
    min_spread: float = 0.1


@dataclass(frozen=True)
class Decision:
    """One text's threshold and the distribution it came from (all in raw score units)."""

    absolute: float
    median: float
    spread: float
    relative: float
    threshold: float

    def to_record(self) -> dict[str, float | None]:
        """Fields as floats; an infinite threshold (absent, `perception.null`) as None."""
        return {k: None if math.isinf(v) else float(v) for k, v in self.__dict__.items()}


def decide(scores: np.ndarray, absolute: float, rule: RelativeRule | None) -> Decision:
    """The threshold of one text from its raw frame scores over the video `(T,)`.

    With `rule` None the absolute threshold is used unchanged.

    >>> rng = np.random.default_rng(0)
    >>> quiet = np.r_[rng.normal(0.0, 0.2, 300), np.full(20, 1.9)]  # weak but separated
    >>> d = decide(quiet, absolute=2.4, rule=RelativeRule())
    >>> round(d.threshold, 2) < 1.9 < 2.4
    True
    >>> decide(quiet, 2.4, None).threshold
    2.4
    """
    s = np.asarray(scores, np.float64)
    s = s[np.isfinite(s)]
    if rule is None or s.size == 0:
        return Decision(absolute, float("nan"), float("nan"), absolute, absolute)
    median = float(np.median(s))
    spread = max(MAD_TO_SD * float(np.median(np.abs(s - median))), rule.min_spread)
    relative = median + rule.k_mad * spread
    threshold = min(absolute, max(relative, absolute - rule.max_drop))
    return Decision(absolute, median, spread, relative, threshold)


def calibrations(decisions: dict[str, Decision], width: float) -> dict[str, Calibration]:
    """One logistic calibration per text, centred on its own threshold (same width).

    >>> d = {"cat": Decision(2.4, 0.0, 0.3, 1.2, 1.4)}
    >>> calibrations(d, 0.24)["cat"]
    Calibration(threshold=1.4, width=0.24)
    """
    return {t: Calibration(d.threshold, width) for t, d in decisions.items()}
