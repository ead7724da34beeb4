"""Where a condition event must (or must not) be seen, relative to a target instance.

The offline verifier checks relations at the level of shots (event nodes, joined where a
boundary is a change inside one shot rather than a cut; see `cuts.EventCuts`). For an
instance spanning shots `first..last`:

- right after: the condition is seen in shot `first - 1` (the shot before);
- right before: in shot `last + 1` (the shot after); in both, a sliver there that is a
  piece of a neighbouring shot passes the look on to the next (`past_slivers`; a sliver
  holding two cuts is a shot of its own, `cuts.cut_count`);
- caused by, causes: in one of the instance's own shots `first..last`: a cause and its
  effect are one episode of motion inside one shot (`perception.episode`), so an object
  in the shot after (or before) is another scene;
- after / before: in one of the `lookback` shots before `first` / after `last`; with a reach
  in seconds ("within 10 seconds after X", `Plan.reach_s`) in any shot that ends that close
  before the instance starts (starts that close after it ends; `roles.offline`);
- near: in one of the instance's own shots or the `lookback` shots either side; with its
  reach in seconds (always set: `QueryAnalysis.reach_s`) in any shot with an event that
  close to the instance, on either side;
- while: visible together with the target in the instance itself;
- without: not visible during the instance.

In an episode (`Plan.episode`: "the ball misses the cat", "rolls past the horse") the other
party is checked as in a cause and its effect, seen in the instance's shots
(`episode_relation`): it stands in the shot throughout while the small mover crosses it in a
second or two, so a node seldom shows both together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..plan.planner import Relation

#: A shot of at most this many timeline samples is a sliver: each of its boundaries is known
#: only to half a sampling step, so it may hold little but the ends of the shots around it.
SLIVER_SAMPLES = 2


@dataclass(frozen=True)
class ConditionCheck:
    """Shots (or events) to inspect and how: "seen" (the condition is seen in one of `events`),
    "together" (with the target, in the instance) or "absent" (not in the instance)."""

    events: tuple[int, ...]
    mode: str


def condition_check(
    relation: Relation, first: int, last: int, n_events: int, lookback: int = 4
) -> ConditionCheck | None:
    """The check a relation asks for, or None when it asks for none.

    Args:
        relation: the plan's relation.
        first, last: indices of the first and last shots (or events) of the instance.
        n_events: number of shots (or events).
        lookback: how many of them "after" / "before" may reach.

    Returns:
        `ConditionCheck`; its `events` may be empty (e.g. "right after" for an instance in the
        first event), which fails a "seen" check.

    >>> condition_check(Relation.RIGHT_AFTER, 3, 3, 10).events
    (2,)
    >>> condition_check(Relation.BEFORE, 3, 4, 7, lookback=4).events
    (5, 6)
    """
    inside = lambda idx: tuple(i for i in idx if 0 <= i < n_events)  # noqa: E731
    if relation is Relation.RIGHT_AFTER:
        return ConditionCheck(inside([first - 1]), "seen")
    if relation is Relation.RIGHT_BEFORE:
        return ConditionCheck(inside([last + 1]), "seen")
    if relation in (Relation.CAUSED_BY, Relation.CAUSES):
        return ConditionCheck(inside(range(first, last + 1)), "seen")
    if relation is Relation.AFTER:
        return ConditionCheck(inside(range(first - lookback, first)), "seen")
    if relation is Relation.BEFORE:
        return ConditionCheck(inside(range(last + 1, last + 1 + lookback)), "seen")
    if relation is Relation.NEAR:
        return ConditionCheck(inside(range(first - lookback, last + 1 + lookback)), "seen")
    if relation is Relation.WHILE:
        return ConditionCheck((), "together")
    if relation is Relation.WITHOUT:
        return ConditionCheck((), "absent")
    return None


def episode_relation(relation: Relation, episode: str | None) -> Relation:
    """The relation the verifier checks: "while" in an episode plan is checked as "causes"
    (the other party seen in the instance's shots); any other relation as it is.

    >>> episode_relation(Relation.WHILE, "passing").value
    'causes'
    >>> episode_relation(Relation.WHILE, None).value
    'while'
    """
    return Relation.CAUSES if episode is not None and relation is Relation.WHILE else relation


def past_slivers(
    shots: tuple[int, ...],
    samples: np.ndarray,
    step: int,
    limit: int = SLIVER_SAMPLES,
    own_shot: Callable[[int], bool] | None = None,
) -> tuple[int, ...]:
    """The neighbouring shots a "right after" / "right before" check looks at, with each
    sliver (a shot of at most `limit` timeline samples, see `SLIVER_SAMPLES`) followed by
    the next shot in the same direction: a cut that the graph split into two boundaries
    around a sliver is still one cut. A sliver that is a shot of its own (`own_shot`: a
    two-second filler, or a still of another object) ends the look there: the shot past it
    is two cuts away.

    Args:
        shots: the shots `condition_check` named (one neighbour, or none).
        samples: `(S,)` timeline samples per shot.
        step: -1 looking back ("right after"), +1 looking ahead ("right before").
        limit: most samples of a sliver.
        own_shot: shot index -> whether that sliver is a shot of its own; None: none is.

    >>> past_slivers((5,), np.array([9, 9, 9, 9, 9, 2, 7]), step=+1)
    (5, 6)
    >>> past_slivers((1,), np.array([9, 9, 9]), step=-1)
    (1,)
    >>> past_slivers((5,), np.array([9, 9, 9, 9, 9, 2, 7]), step=+1, own_shot=lambda k: True)
    (5,)
    """
    out = list(shots)
    while out and samples[out[-1]] <= limit and 0 <= out[-1] + step < len(samples):
        if own_shot is not None and own_shot(out[-1]):
            break
        out.append(out[-1] + step)
    return tuple(out)
