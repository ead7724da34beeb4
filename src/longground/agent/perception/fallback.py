"""The empty-answer fallback: a plain "every time X appears" query must not come back empty
while event nodes stand clearly above the rest of the video for X.

The verifier judges a candidate against the text's threshold, which the relative rule keeps
within `max_drop` of the encoder's absolute one (so a quiet video does not answer negative
queries from its noise). An object that the encoder sees only weakly can then be separated
from everything else in the video and still be rejected everywhere. When the verified answer
is empty, the event nodes whose median score lies `k_clear` robust standard deviations above
the text's median over the whole video (stricter than the rule's `k_mad`, and with no floor)
are the answer instead, merged where they touch; the trace's "fallback" record says so.
"""

from __future__ import annotations

import numpy as np

from .presence import span_frames
from .relative import Decision


def clear_event_spans(
    spans_s: np.ndarray, times_s: np.ndarray, scores: np.ndarray, decision: Decision,
    k_clear: float, gap_s: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Events that stand clearly above the video, merged where they touch.

    Args:
        spans_s: `(K, 2)` event spans in seconds, in time order.
        times_s: `(T,)` timeline sample times; scores: `(T,)` the text's raw frame scores.
        decision: the text's decision (its median and spread over the whole video).
        k_clear: robust standard deviations above the median an event's median must reach.
        gap_s: events closer than this are one moment.

    Returns:
        `(M, 2)` merged spans and `(K,)` each event's separation (robust SDs above the median).

    >>> d = Decision(2.4, 0.0, 0.5, 2.0, 2.0)
    >>> spans = np.array([[0.0, 2.0], [2.0, 4.0], [4.0, 6.0], [6.0, 8.0]])
    >>> scores = np.r_[0, 0, 4, 4, 4, 4, 0, 0]
    >>> merged, z = clear_event_spans(spans, np.arange(8.0), scores, d, 6, 0.5)
    >>> merged.tolist(), z.tolist()
    ([[2.0, 6.0]], [0.0, 8.0, 8.0, 0.0])
    """
    spans_s = np.asarray(spans_s, np.float64).reshape(-1, 2)
    spread = decision.spread if np.isfinite(decision.spread) and decision.spread > 0 else 1.0
    z = np.full(len(spans_s), -np.inf)
    for k, (start_s, end_s) in enumerate(spans_s):
        a, b = span_frames(times_s, start_s, end_s)
        if b > a:
            z[k] = (float(np.median(scores[a:b])) - decision.median) / spread
    merged: list[list[float]] = []
    for start_s, end_s in spans_s[z >= k_clear]:
        if merged and start_s - merged[-1][1] <= gap_s:
            merged[-1][1] = max(merged[-1][1], float(end_s))
        else:
            merged.append([float(start_s), float(end_s)])
    return np.asarray(merged, np.float64).reshape(-1, 2), z
