"""Null texts: how far an unrelated text stands out on this video, so that a text whose
threshold the relative rule would lower must first stand out further than that.

The relative rule (`perception.relative`) lowers a text's threshold where the video is quiet
for it. On long videos that also admits texts naming nothing on screen: the encoder confuses
"an airplane" with a rocket, and on a 70-minute video that text's best shot stands 4.5
robust standard deviations above its median, above the lowered threshold, while unrelated
everyday texts reach 6.1. Objects that are really there stand further out (8 to 19 on a
45-minute video whose null texts reach 7.5; docs/agent.md, "Null texts"). How far is
"further" depends on the video (its length, its backdrops, the encoder's confusions on it),
so it is measured on it: a fixed vocabulary of everyday texts that name none of the things a
query asked about is scored the same way, and

    null_z = the largest best-event standout among the null texts
    lowered threshold allowed  <=>  best-event standout of the text >= null_z

where a text's best-event standout is (the largest event median of its scores - m) / r with
m and r its median and robust spread over the video (`relative.Decision`). A text that does
not stand out further than every null text keeps the absolute threshold: the rule never
makes a decision stricter than the absolute one, so a frequent object is unaffected.

Each text is held to its own nulls (`text_null`): the vocabulary's texts that name none of
what it names ("a truck" is no null for "the trucks"), and the texts naming the things it is
most easily confused with (`query.vocabulary.neighbour_texts`: "a moped", "a go-kart" for "a
car"). A near miss stands out because its neighbour is on screen ("a car" where motorcycles
are); the neighbour's own text then stands out further, and the threshold is not lowered.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ...query.vocabulary import name_alike
from .relative import Decision

#: Everyday things, none of them a synthetic-benchmark object or negative: the null texts.
NULL_TEXTS: tuple[str, ...] = (
    "a chair", "a tree", "a bottle", "a truck", "a person", "a pizza", "a clock",
    "a guitar", "an umbrella", "a laptop", "a train", "a banana", "a shoe", "a bus",
    "a table", "a book",
)  # fmt: skip


def event_medians(times_s: np.ndarray, scores: np.ndarray, spans_s: np.ndarray) -> np.ndarray:
    """Median score of the timeline samples inside each event `(K,)` (NaN for an event with
    no sample).

    >>> t = np.arange(6.0)
    >>> event_medians(t, np.array([0, 1, 2, 9, 9, 9.0]), np.array([[0, 3], [3, 6.0]]))
    array([1., 9.])
    """
    t = np.asarray(times_s, np.float64)
    s = np.asarray(scores, np.float64)
    lo = np.searchsorted(t, np.asarray(spans_s, np.float64)[:, 0], side="left")
    hi = np.searchsorted(t, np.asarray(spans_s, np.float64)[:, 1], side="left")
    return np.array([np.median(s[a:b]) if b > a else np.nan for a, b in zip(lo, hi)])


def best_standout(
    times_s: np.ndarray, scores: np.ndarray, spans_s: np.ndarray, decision: Decision
) -> float:
    """How many robust standard deviations the text's best event median lies above its
    median over the video (-inf when no event has a sample or the rule was off)."""
    med = event_medians(times_s, scores, spans_s)
    if not np.isfinite(med).any() or not np.isfinite(decision.spread):
        return float("-inf")
    return float((np.nanmax(med) - decision.median) / decision.spread)


def null_standout(
    score: Callable[[str], np.ndarray],
    decide: Callable[[np.ndarray], Decision],
    times_s: np.ndarray,
    spans_s: np.ndarray,
    texts: Sequence[str] = NULL_TEXTS,
) -> dict[str, float]:
    """Each null text's best-event standout on this video.

    Args:
        score: raw frame scores `(T,)` of a text over the video's timeline.
        decide: the text's `Decision` from its scores (median and spread).
        times_s: `(T,)` timeline times in seconds.
        spans_s: `(K, 2)` event spans in seconds.
        texts: the null vocabulary.
    """
    out = {}
    for text in texts:
        s = score(text)
        out[text] = best_standout(times_s, s, spans_s, decide(s))
    return out


def text_null(
    text: str, vocabulary: dict[str, float], neighbours: dict[str, float]
) -> tuple[str, float]:
    """The null text `text` must stand out as far as for its threshold to be lowered, with
    its standout: the one that stands out furthest among the `vocabulary`'s texts naming none
    of its ImageNet classes and its confusable `neighbours` (`null_standout` of
    `query.vocabulary.neighbour_texts(text)`).

    >>> text_null("a truck", {"a truck": 9.7, "a chair": 1.5}, {"a moped": 12.0})
    ('a moped', 12.0)
    >>> text_null("the trucks", {"a truck": 9.7, "a chair": 1.5}, {})
    ('a chair', 1.5)
    """
    kept = {t: z for t, z in vocabulary.items() if t != text and not name_alike(t, text)}
    return max({**kept, **neighbours}.items(), key=lambda item: item[1], default=("", -math.inf))


def gate(decision: Decision, standout: float, null_z: float) -> Decision:
    """The decision after comparing the text with the null texts (`null_z`).

    - It stands out at least as far as they do: unchanged.
    - It does not, and no event's median reaches the absolute threshold: the video never
      shows it as a whole frame, and nothing singles it out either; the threshold becomes
      infinite (absent), so frame halves cannot find it in the noise of their smaller views.
    - Otherwise the absolute threshold (the relative rule may not lower it).

    >>> d = Decision(2.4, 0.2, 0.3, 1.4, 1.4)  # best event median: 0.2 + 0.3 * standout
    >>> [gate(d, z, null_z=7.6).threshold for z in (9.0, 7.5, 5.9)]
    [1.4, 2.4, inf]
    """
    if standout >= null_z:
        return decision
    best = decision.median + standout * decision.spread
    threshold = decision.absolute if best >= decision.absolute else float("inf")
    return Decision(
        decision.absolute, decision.median, decision.spread, decision.relative, threshold
    )
