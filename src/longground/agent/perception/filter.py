"""The filter (Step 2): which event nodes go on to the action graph.

Both backends decide here; `roles.offline.ScoreFilter` and `roles.llm.LLMFilter` are the thin
role classes around these functions.

- offline (`keep_seen`): keep an event node when some plan text (target or condition) is
  plausibly seen in it at some point: probability >= `filter_p` (see `visibility.Visibility`,
  whole frames and frame halves).
- Video-LLM (`event_batches`, `event_listing`, `read_keep`, `merge_kept`): events are shown in
  batches; the model names the ones to keep, and a batch whose answer stays unreadable is
  dropped and counted as malformed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.nodes import Nodes
from .visibility import Visibility


@dataclass
class FilterResult:
    """Which event nodes go on to the action graph.

    Attributes:
        keep: `(E,)` bool.
        relevance: `(E,)` float, the role's relevance of each event (for ordering).
        reasons: one short text per event.
        malformed: model answers that stayed unreadable after the retry.
    """

    keep: np.ndarray
    relevance: np.ndarray
    reasons: list[str]
    malformed: int = 0


def keep_seen(
    vis: Visibility, texts: tuple[str, ...], events: Nodes, filter_p: float
) -> FilterResult:
    """The offline filter: keep events where any plan text reaches probability `filter_p`.

    Args:
        vis: the query's visibility of each text.
        texts: the plan's texts (target and conditions).
        events: the event nodes.
        filter_p: the probability an event needs for some plan text.

    Returns:
        `FilterResult` with `relevance` = the best text's probability per event.
    """
    table = np.stack([vis.nodes(t, events, "events", seen_once=True) for t in texts])
    rel = table.max(axis=0)
    best = [texts[i] for i in table.argmax(axis=0)]
    keep = rel >= filter_p
    reasons = [
        f"{'keep' if k else 'drop'}: p({t})={r:.2f}"
        for k, t, r in zip(keep, best, rel, strict=True)
    ]
    return FilterResult(keep=keep, relevance=rel, reasons=reasons)


def event_batches(n_events: int, batch: int) -> list[list[int]]:
    """Event ids in requests of at most `batch`.

    >>> event_batches(5, 2)
    [[0, 1], [2, 3], [4]]
    """
    return [list(range(lo, min(lo + batch, n_events))) for lo in range(0, n_events, batch)]


def event_listing(spans_s: np.ndarray, ids: list[int]) -> str:
    """One line per shown event, with its span in seconds (the prompt's event list).

    >>> print(event_listing(np.array([[0.0, 4.0], [4.0, 9.5]]), [0, 1]))
    event 0: 0.0-4.0 s
    event 1: 4.0-9.5 s
    """
    return "\n".join(f"event {i}: {spans_s[i, 0]:.1f}-{spans_s[i, 1]:.1f} s" for i in ids)


def read_keep(data: Any, ids: list[int]) -> list[int]:
    """The event ids a model reply `{"keep": [...]}` names, sorted.

    Raises:
        ValueError: another shape, or an id that was not shown.

    >>> read_keep({"keep": [3, 2, 3]}, [2, 3, 4])
    [2, 3]
    """
    if not isinstance(data, dict) or not isinstance(data.get("keep"), list):
        raise ValueError('expected {"keep": [event numbers]}')
    bad = [k for k in data["keep"] if not isinstance(k, int) or k not in ids]
    if bad:
        raise ValueError(f"unknown event numbers {bad}")
    return sorted(set(data["keep"]))


UNREADABLE_DROP = "drop: model reply unreadable"  # a filter's reason for events it could not judge


def merge_kept(n_events: int, answers: list[tuple[list[int], list[int] | None]]) -> FilterResult:
    """The filter's result from per-batch answers `(shown ids, kept ids or None)`; None
    (unreadable) drops the batch's events and counts one malformed answer.

    >>> r = merge_kept(3, [([0, 1], [1]), ([2], None)])
    >>> r.keep.tolist(), r.malformed, r.reasons[2]
    ([False, True, False], 1, 'drop: model reply unreadable')
    """
    keep = np.zeros(n_events, bool)
    reasons = ["drop: not kept by the model"] * n_events
    malformed = 0
    for ids, kept in answers:
        if kept is None:
            malformed += 1
            for i in ids:
                reasons[i] = UNREADABLE_DROP
            continue
        for i in kept:
            keep[i], reasons[i] = True, "keep: model"
    return FilterResult(keep, keep.astype(float), reasons, malformed)
