"""The headline metrics of the answered queries alone, beside the full ones (`eval
--answered-only`).

A partial log (a run stopped early, an lmms-eval log of 40 answers out of 3,720) scores
near zero under the protocol, which is the right headline: a missing answer is a wrong
answer. A researcher also wants to know how good the answers that exist are, so this
scores the same per-query results again over the queries that have an answer (a parse
failure is an answer, and still scores zero). It never replaces the full metrics.
"""

from __future__ import annotations

import numpy as np

from .plain import plain_row
from .protocol import MISSING
from .registry import get_protocol
from .result import EvalResult


def answered_metrics(result: EvalResult) -> dict:
    """The protocol's headline metrics over the answered queries of `result`.

    Returns:
        The protocol's summary (fractions in [0, 1], None where undefined, as in
        `result.metrics`) preceded by "answered" and "unanswered": the number of queries
        with and without an answer in the predictions.

    >>> from longground import Moments, Prediction, Sample
    >>> from longground.eval import evaluate
    >>> gt = [Sample(q, "v.mp4", 60.0, "a dog", Moments.from_list([[0, 10]])) for q in "abcd"]
    >>> result = evaluate(gt, [Prediction("a", Moments.from_list([[0, 5]]))], protocol="single")
    >>> result.metrics["miou"], answered_metrics(result)["miou"]
    (0.125, 0.5)
    >>> {k: answered_metrics(result)[k] for k in ("answered", "unanswered")}
    {'answered': 1, 'unanswered': 3}
    """
    status = result.queries["status"]
    answered = np.flatnonzero(status != MISSING)
    scorer = get_protocol(result.protocol, **result.settings)
    summary = plain_row(scorer.summarize(result.queries, answered[None, :], result.theta))
    return {"answered": len(answered), "unanswered": len(status) - len(answered), **summary}
