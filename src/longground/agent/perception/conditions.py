"""Where a condition event must (or must not) be seen, relative to a target instance.

The offline verifier checks relations at the level of shots (event nodes, joined where a
boundary is a change inside one shot rather than a cut; see `events.shot_groups`). For an
instance spanning shots `first..last`:

- right after: the condition is seen in shot `first - 1` (the shot before);
- right before: in shot `last + 1` (the shot after); in both, a sliver there that is a
  piece of a neighbouring shot passes the look on to the next (`past_slivers`,
  `sliver_is_own_shot`);
- caused by, causes: in one of the instance's own shots `first..last`: a cause and its
  effect are one episode of motion inside one shot (`perception.episode`), so an object
  in the shot after (or before) is another scene;
- after / before: in one of the `lookback` shots before `first` / after `last`;
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
from .boxes import RARE, colour_codes, foreground, object_box, ring_shares
from .colors import border_pixels

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
    around a sliver is still one cut. A sliver that is a shot of its own (`own_shot`, see
    `sliver_is_own_shot`: a two-second filler, or a still of another object) ends the look
    there: the shot past it is two cuts away.

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


def holds_other_object(frames: np.ndarray, target_seen: float, accept_p: float) -> bool:
    """Whether every one of `frames` holds an object (`boxes.object_box` finds one in a
    half) and that object is not the target.

    Args:
        frames: `(N, H, W, 3)` uint8 frames.
        target_seen: probability that the target is seen at some point in them.
        accept_p: the probability at which a part of the plan holds.

    >>> still = np.zeros((2, 40, 80, 3), np.uint8); still[:, 10:30, 10:30] = 200
    >>> holds_other_object(still, 0.1, 0.5), holds_other_object(still, 0.9, 0.5)
    (True, False)
    >>> holds_other_object(np.zeros((2, 40, 80, 3), np.uint8), 0.1, 0.5)
    False
    """
    if target_seen >= accept_p or len(frames) == 0:
        return False
    width = frames.shape[2]
    return all(_has_object(f, ((0, width // 2), (width // 2, width))) for f in frames)


def _has_object(frame: np.ndarray, halves: tuple[tuple[int, int], ...]) -> bool:
    """Some half of the frame holds an object (`boxes.object_box`, one foreground for all)."""
    fg = foreground(frame)
    return any(object_box(frame, x0, x1, fg) is not None for x0, x1 in halves)


def backdrop_carries_on(frames: np.ndarray, neighbour: np.ndarray) -> bool:
    """Whether the backdrop of `frames` is the backdrop of `neighbour`: most (more than half)
    of their outer ring's pixels have colours that are not rare (`boxes.RARE`, the rarity
    that makes a pixel foreground) in the neighbour's ring.

    Args:
        frames: `(N, H, W, 3)` uint8.
        neighbour: `(M, H, W, 3)` uint8.

    >>> a = np.zeros((1, 40, 60, 3), np.uint8); a[...] = (50, 90, 210)
    >>> b = a.copy(); b[:, 10:30, 10:50] = (200, 40, 40)
    >>> backdrop_carries_on(a, b), backdrop_carries_on(a, 255 - b)
    (True, False)
    """
    ours = colour_codes(border_pixels(frames))
    return float(np.mean(ring_shares(neighbour)[ours] >= RARE)) > 0.5


def sliver_is_own_shot(frames: np.ndarray, step: int, target_seen: float, accept_p: float) -> bool:
    """Whether a sliver is a shot of its own, so that the shot past it is two cuts away.

    A sliver that is a piece of a neighbouring shot (a cut the graph split in two) has that
    shot's backdrop: the piece of the shot beyond it passes the look on; so does a piece
    of the instance's own shot (its backdrop alone before the object enters or after it
    leaves, or the target), unless it holds another object (`holds_other_object`). A
    backdrop of its own is a short shot of its own (a two-second filler or still).

    Args:
        frames: `(N + 2, H, W, 3)` uint8: the sample before the sliver, its N timeline
            samples, the sample after it.
        step: -1 looking back from the instance ("right after"), +1 looking ahead.
        target_seen: probability that the target is seen at some point in the sliver.
        accept_p: the probability at which a part of the plan holds.

    >>> blue = np.zeros((1, 40, 80, 3), np.uint8); blue[...] = (50, 90, 210)
    >>> red = blue[..., ::-1].copy(); grey = np.full_like(blue, 128)
    >>> sliver_is_own_shot(np.concatenate([red, blue, blue]), -1, 0.0, 0.5)
    False
    >>> sliver_is_own_shot(np.concatenate([red, grey, blue]), -1, 0.0, 0.5)
    True
    """
    before, inner, after = frames[:1], frames[1:-1], frames[-1:]
    near, far = (after, before) if step < 0 else (before, after)
    if backdrop_carries_on(inner, far):
        return False
    if backdrop_carries_on(inner, near):
        return holds_other_object(inner, target_seen, accept_p)
    return True
