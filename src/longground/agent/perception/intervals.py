"""The plan's relations over intervals: how a condition's moments constrain a target's.

`conditions.condition_check` relates events of the frame graph (shots); sub-events answered
by evidence channels (speech, on-screen text, people) come as intervals instead, so the same
relations are read on the timeline. For a target instance `t = [a, b]` and the condition's
instances `c = [c0, c1]` (`near_s`: how far "right" after / before reaches; `slack_s`: the
timing tolerance of sampled channels):

- while: the parts of `t` covered by some `c` (both hold at once), each kept apart; a part
  cut to `slack_s` or less from a longer `t` is a graze within the channels' timing, dropped;
- without: `t` when no `c` overlaps it;
- near: some `c` overlaps `t` widened by `reach_s` on both sides ("a dog within 10 seconds
  of a cat");
- after: some `c` ended before `t` began (`c1 <= a + slack_s`);
- before: some `c` begins after `t` ended (`c0 >= b - slack_s`);
- right after: some `c` ended within `near_s` before `t` began, or runs into it
  (`a - near_s <= c1` and `c0 <= a + slack_s`);
- right before: some `c` begins within `near_s` after `t` ended, or runs from inside it;
- caused by: as right after, or `c` begins inside `t` within `slack_s` of its start;
- causes: as right before, or `c` ends inside `t` within `slack_s` of its end;
- none / between times: `t` unchanged (the window is applied by the caller).
"""

from __future__ import annotations

import numpy as np

from ...moments import Moments
from ..plan.planner import Relation


def relate(
    relation: Relation, target: Moments, condition: Moments, near_s: float, slack_s: float,
    reach_s: float | None = None,
) -> Moments:
    """The target instances (or, for "while", their parts) the relation keeps.

    Args:
        relation: the plan's relation.
        target: `(K, 2)` target instances in seconds.
        condition: `(M, 2)` condition instances in seconds.
        near_s: reach of "right after" / "right before" / causal relations, seconds.
        slack_s: timing tolerance, seconds (sampled channels know a change to a step).
        reach_s: for "after" / "before", how far the condition may end before the target
            starts (start after it ends), seconds; None: anywhere. For "near", how far
            either side.

    >>> t = Moments.from_list([[10, 20], [40, 50]])
    >>> c = Moments.from_list([[15, 30]])
    >>> relate(Relation.WHILE, t, c, 2, 0).to_list()
    [[15.0, 20.0]]
    >>> relate(Relation.AFTER, t, c, 2, 0).to_list(), relate(Relation.WITHOUT, t, c, 2, 0).to_list()
    ([[40.0, 50.0]], [[40.0, 50.0]])
    >>> relate(Relation.RIGHT_AFTER, t, Moments.from_list([[5, 9]]), 2, 0).to_list()
    [[10.0, 20.0]]
    >>> relate(Relation.AFTER, t, Moments.from_list([[5, 9]]), 2, 0, reach_s=10).to_list()
    [[10.0, 20.0]]
    >>> relate(Relation.NEAR, t, Moments.from_list([[55, 60]]), 2, 0, reach_s=10).to_list()
    [[40.0, 50.0]]
    """
    if relation is Relation.WHILE:
        return _overlaps(target, condition, slack_s)
    keep = np.array([_holds(relation, a, b, condition, near_s, slack_s, reach_s)
                     for a, b in target.spans], dtype=bool)  # fmt: skip
    return target[keep] if len(target) else target


def _holds(relation: Relation, a: float, b: float, cond: Moments, near_s: float,
           slack_s: float, reach_s: float | None) -> bool:  # fmt: skip
    c0, c1 = cond.starts_s, cond.ends_s
    far = np.inf if reach_s is None else reach_s + slack_s
    if relation is Relation.WITHOUT:
        return not bool(((c0 < b) & (c1 > a)).any())
    if relation is Relation.NEAR:
        return bool(((c0 <= b + far) & (c1 >= a - far)).any())
    if relation is Relation.AFTER:
        return bool(((c1 <= a + slack_s) & (c1 >= a - far)).any())
    if relation is Relation.BEFORE:
        return bool(((c0 >= b - slack_s) & (c0 <= b + far)).any())
    right_after = (c1 >= a - near_s) & (c0 <= a + slack_s)
    right_before = (c0 <= b + near_s) & (c1 >= b - slack_s)
    if relation is Relation.RIGHT_AFTER:
        return bool(right_after.any())
    if relation is Relation.RIGHT_BEFORE:
        return bool(right_before.any())
    if relation is Relation.CAUSED_BY:
        return bool((right_after | ((c0 >= a) & (c0 <= a + max(slack_s, near_s)))).any())
    if relation is Relation.CAUSES:
        return bool((right_before | ((c1 <= b) & (c1 >= b - max(slack_s, near_s)))).any())
    return True


def _overlaps(target: Moments, condition: Moments, slack_s: float) -> Moments:
    """Every intersection of a target instance with a condition instance, but a sliver of
    at most `slack_s` cut from a longer instance (the two only graze within the timing
    tolerance).

    >>> t = Moments.from_list([[10, 20], [30, 30.4]])
    >>> _overlaps(t, Moments.from_list([[19.6, 25], [29, 31]]), 0.5).to_list()
    [[30.0, 30.4]]
    """
    pieces, scores = [], []
    for k, (a, b) in enumerate(target.spans):
        starts = np.maximum(a, condition.starts_s)
        ends = np.minimum(b, condition.ends_s)
        keep = (ends > starts) & ((ends - starts > slack_s) | (ends - starts >= b - a))
        for start, end in zip(starts[keep], ends[keep]):
            pieces.append([start, end])
            scores.append(1.0 if target.scores is None else float(target.scores[k]))
    return Moments(np.array(pieces, np.float64).reshape(-1, 2), np.array(scores, np.float64))


#: The moments picked by length ("the longest shot of the cat"), for `occurrence`.
EXTREMES = ("longest", "shortest")


def occurrence(
    moments: Moments, which: int | str | None, length_s: tuple[float, float | None] | None = None
) -> Moments:
    """Only the `which`-th moment in time order (1-based; -1: the last), the "longest" or
    "shortest" one (the earliest of equals), the "first N" or "last N", or "every N" (the
    first, then every Nth after it); all when None.
    With `length_s` (least, most or None), only among the moments that last that long ("the
    first dog shot longer than 5 seconds").

    >>> occurrence(Moments.from_list([[30, 40], [5, 9]]), 1).to_list()
    [[5.0, 9.0]]
    >>> len(occurrence(Moments.from_list([[5, 9]]), 2))
    0
    >>> occurrence(Moments.from_list([[5, 9], [30, 40], [50, 60]]), "longest").to_list()
    [[30.0, 40.0]]
    >>> occurrence(Moments.from_list([[50, 60], [5, 9], [30, 40]]), "last 2").to_list()
    [[30.0, 40.0], [50.0, 60.0]]
    >>> occurrence(Moments.from_list([[50, 60], [5, 9], [30, 40]]), "every 2").to_list()
    [[5.0, 9.0], [50.0, 60.0]]
    >>> occurrence(Moments.from_list([[5, 9], [30, 40], [50, 60]]), None, (5, None)).to_list()
    [[30.0, 40.0], [50.0, 60.0]]
    """
    if length_s is not None:
        least, most = length_s
        lengths = moments.lengths_s
        moments = moments[(lengths >= least) & (lengths <= (np.inf if most is None else most))]
    if which is None:
        return moments
    order = np.argsort(moments.starts_s, kind="stable")
    if isinstance(which, str) and which.startswith(("first ", "last ", "every ")):
        side, n = which.split()
        n = int(n)
        picked = order[:n] if side == "first" else order[-n:] if side == "last" else order[::n]
        return moments[picked]
    if which in EXTREMES:
        if not len(moments):
            return moments
        lengths = moments.lengths_s[order]
        pick = np.argmax(lengths) if which == "longest" else np.argmin(lengths)
        return moments[order[pick : pick + 1]]
    index = which - 1 if which > 0 else len(order) + which
    if not 0 <= index < len(order):
        return moments[np.zeros(len(moments), dtype=bool)]
    return moments[order[index : index + 1]]
