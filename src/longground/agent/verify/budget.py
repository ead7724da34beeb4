"""How much the verifier looks at, and what it never looked at.

- `scaled_budget`: a budget N_max (CoMET App. D: 3) caps an answer at N_max instances, however
  long the video and however many candidates stand out. With `scale_budget` on, the loop gets
  one more verification per candidate that stands out (its median score reaches the text's
  threshold) and one per 10 minutes searched, so recall does not fall off with length.
- `unexamined`: the time the verifier never saw: events the filter dropped and action nodes
  that no perception context reached (a budget ran out), as merged spans.
"""

from __future__ import annotations

import math

import numpy as np

from ..graph.nodes import Nodes
from .loop import spans_inside

#: Searched minutes that earn one more verification.
MINUTES_PER_EXTRA = 10.0


def standing_out(scores: np.ndarray, frames: np.ndarray, threshold: float) -> int:
    """How many nodes' median raw score (over their samples `frames` `(K, 2)`) reaches the
    text's `threshold` (`perception.relative.Decision.threshold`).

    >>> standing_out(np.array([0.0, 3.0, 3.0, 0.0]), np.array([[1, 3], [1, 2], [3, 4]]), 2.0)
    2
    """
    scores = np.asarray(scores)
    medians = [np.median(scores[a:b]) if b > a else -np.inf for a, b in frames]
    return int(np.sum(np.asarray(medians) >= threshold))


def scaled_budget(n_max: int, stand_out: int, searched_s: float) -> int:
    """N_max plus one per standing-out candidate and one per `MINUTES_PER_EXTRA` searched.

    >>> scaled_budget(3, 12, 70 * 60.0)
    22
    """
    return n_max + stand_out + math.ceil(max(searched_s, 0.0) / 60.0 / MINUTES_PER_EXTRA)


def merged_spans(spans_s: np.ndarray) -> list[list[float]]:
    """Touching or overlapping spans `(K, 2)` joined, in time order.

    >>> merged_spans(np.array([[4.0, 6.0], [0.0, 2.0], [2.0, 3.0]]))
    [[0.0, 3.0], [4.0, 6.0]]
    """
    out: list[list[float]] = []
    for start, end in sorted(np.asarray(spans_s, np.float64).reshape(-1, 2).tolist()):
        if out and start <= out[-1][1] + 1e-6:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def unexamined(
    window_s: tuple[float, float], events: Nodes, acts: Nodes | None, steps: list[dict]
) -> dict:
    """The trace's "unexamined" record: spans the filter dropped, spans of action nodes no
    verification reached, and the share of the searched window `window_s` the verifier saw."""
    kept = np.zeros(len(events.spans_s), bool)
    if acts is not None and len(acts.spans_s):
        kept[np.unique(acts.parent)] = True
    seen = np.zeros(0 if acts is None else len(acts.spans_s), bool)
    for step in steps:
        seen[step["context"]] = True
        entry = step.get("entry")
        if entry is not None:  # the nodes a verified instance spans were examined too
            seen[spans_inside(acts.spans_s, entry["start_s"], entry["end_s"])] = True
    dropped = merged_spans(events.spans_s[~kept])
    never = merged_spans(acts.spans_s[~seen]) if acts is not None else []
    start_s, end_s = window_s
    seen_s = float(np.diff(acts.spans_s[seen], axis=1).sum()) if acts is not None else 0.0
    return {
        "filtered_out_s": dropped,
        "not_verified_s": never,
        "examined_fraction": seen_s / (end_s - start_s) if end_s > start_s else 0.0,
    }
