"""Moment scores that mean the same everywhere: the probability that a found moment is right.

Every channel and method scores its moments on its own scale: a speech match is 1.0 word for
word and 0.75 to 1.0 when the keyword spotter heard it, an on-screen text match is a string
similarity from 0.8, a people run is the share of its frames that show someone, retrieval's
is its peak encoder score, the agent's its own calibrated confidence. `calibrated` maps each
to the probability that the moment is right (it matches a true moment with tIoU >= 0.5), by
a logistic model of the raw score and ln(duration), one per answer kind
(`CALIBRATIONS`), fitted by `perf/fit_confidence.py` on generated renderings and the tuning
montage and checked on held-out data (docs/find.md, "What a score means").

The raw scores are kept beside the calibrated ones (`Grounding.raw_scores`) so the models can
be fitted again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..moments import Moments
from .base import Grounding


@dataclass(frozen=True)
class Logistic:
    """`p = 1 / (1 + exp(-(raw_w * f(raw) + log_s_w * ln(seconds) + bias)))`, where `f` is
    the logit for scores that are probabilities (`logit_raw`) and the identity otherwise."""

    raw_w: float
    log_s_w: float
    bias: float
    logit_raw: bool = True

    def __call__(self, raw: np.ndarray, duration_s: np.ndarray) -> np.ndarray:
        raw = np.asarray(raw, np.float64)
        if self.logit_raw:
            clipped = np.clip(raw, 0.01, 0.99)
            raw = np.log(clipped / (1 - clipped))
        log_s = np.log(np.maximum(np.asarray(duration_s, np.float64), 0.1))
        t = self.raw_w * raw + self.log_s_w * log_s + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(t, -50, 50)))


#: One model per answer kind: a channel ("speech", "text", "people") or a method's visual
#: answer ("retrieval"). The agent's visual answers are calibrated inside the agent
#: (`agent.confidence`, weights per scene in `AgentSettings`). Fitted by
#: `perf/fit_confidence.py` (docs/find.md, "What a score means").
CALIBRATIONS: dict[str, Logistic] = {
    "speech": Logistic(0.981, 1.927, -5.017),
    "text": Logistic(0.0, 3.0, -0.324),
    "people": Logistic(0.171, 0.996, -4.711),
    "retrieval": Logistic(0.614, 0.224, -4.367, logit_raw=False),
}


def calibrated(grounding: Grounding, kind: str) -> Grounding:
    """`grounding` with its moments' scores mapped by `CALIBRATIONS[kind]` (unchanged when
    the kind has no model or the moments no scores); the raw scores are kept.

    >>> g = calibrated(Grounding(Moments.from_list([[0.0, 2.0]], scores=[0.9])), "speech")
    >>> round(float(g.moments.scores[0]), 3), g.raw_scores
    (0.179, [0.9])
    """
    model = CALIBRATIONS.get(kind)
    moments = grounding.moments
    if model is None or moments.scores is None or moments.count == 0:
        return grounding
    duration_s = moments.spans[:, 1] - moments.spans[:, 0]
    scores = model(moments.scores, duration_s)
    return replace(
        grounding,
        moments=Moments(moments.spans, scores),
        raw_scores=[float(v) for v in moments.scores],
    )
