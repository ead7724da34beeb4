"""Step 4: consolidate the memory bank into the final intervals and count.

Two passes over the verified entries:

1. Chaining. Entries that touch or overlap (gap <= `merge_gap_s`) and say the same thing (equal
   summaries) are pieces of one continuous occurrence and become one interval, as a moment
   lasts from the first to the last frame where the query holds. When the plan is about one
   identity, pieces must also show the same identity to be joined, or lie in one shot (no
   cut between them: an object entering or leaving shows another part of itself in each).
2. Identity selection. When the plan asks for one identity by rank ("the second cat to
   appear"), instances are grouped by identity in order of first appearance and only the
   asked-for group is kept. When it asks for returns only ("when does it come back"), the
   first instance is left out.

Identity is compared with a caller's same-identity matrix over the instances when one is
given (the composited scene's object looks, `composited.identity`), else on the instances'
embeddings (cosine >= `same_identity`), or on their summaries when one has no embedding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..moments import Moments
from .verify.memory import MemoryEntry


@dataclass
class Aggregation:
    """The final answer: moments (scores = confidence) and which entries form each one."""

    moments: Moments
    groups: list[list[int]]
    malformed: bool = False
    reason: str = ""


@dataclass(frozen=True)
class Instance:
    """A consolidated instance: its span, confidence, member entries and mean embedding."""

    start_s: float
    end_s: float
    confidence: float
    members: tuple[int, ...]
    z: np.ndarray | None


def _same(a_z, a_text: str, b_z, b_text: str, same_identity: float) -> bool:
    if a_z is None or b_z is None:
        return a_text == b_text
    denom = float(np.linalg.norm(a_z) * np.linalg.norm(b_z)) or 1.0
    return float(np.dot(a_z, b_z)) / denom >= same_identity


def _mean_z(zs: list[np.ndarray | None]) -> np.ndarray | None:
    known = [np.asarray(z, np.float64) for z in zs if z is not None]
    return np.mean(known, axis=0) if known else None


def chain_entries(
    entries: list[MemoryEntry],
    merge_gap_s: float = 1.0,
    same_identity: float = 0.9,
    by_identity: bool = False,
    joins: Callable[[int, int], bool] | None = None,
) -> list[Instance]:
    """Join touching entries with equal summaries (and, `by_identity`, matching embeddings,
    or `joins(previous entry index, entry index)` when given) into instances, in time order.

    >>> e = [MemoryEntry("cat", 0, 5, 0.7), MemoryEntry("cat", 5, 9, 0.9),
    ...      MemoryEntry("cat", 20, 25, 0.8)]
    >>> [(i.start_s, i.end_s, i.confidence, i.members) for i in chain_entries(e)]
    [(0, 9, 0.9, (0, 1)), (20, 25, 0.8, (2,))]
    """
    order = sorted(range(len(entries)), key=lambda i: (entries[i].start_s, entries[i].end_s))
    groups: list[list[int]] = []
    for i in order:
        e = entries[i]
        if groups:
            last = entries[groups[-1][-1]]
            group_end = max(entries[j].end_s for j in groups[-1])
            touching = e.start_s <= group_end + merge_gap_s and e.summary == last.summary
            if touching and (
                not by_identity
                or (joins(groups[-1][-1], i) if joins is not None
                    else _same(e.z, e.summary, last.z, last.summary, same_identity))
            ):  # fmt: skip
                groups[-1].append(i)
                continue
        groups.append([i])
    return [
        Instance(
            start_s=min(entries[j].start_s for j in g),
            end_s=max(entries[j].end_s for j in g),
            confidence=max(entries[j].confidence for j in g),
            members=tuple(g),
            z=_mean_z([entries[j].z for j in g]),
        )
        for g in groups
    ]


# Instances (time order) -> `(K, K)` bool: which pairs may show the same identity.
SameMatrix = Callable[[list[Instance]], np.ndarray]
# (earlier piece's end_s, later piece's start_s) -> no cut between them: one shot.
OneShot = Callable[[float, float], bool]


def identity_groups(
    instances: list[Instance], same_identity: float = 0.9, same: np.ndarray | None = None
) -> list[list[int]]:
    """Group instances by identity, groups ordered by first appearance (instances are in time
    order). Each instance joins the first group whose first member it matches: by `same`
    (`(K, K)` bool) when given, else by embedding cosine.

    >>> z = [np.array([1.0, 0]), np.array([0.0, 1]), np.array([1.0, 0.05])]
    >>> inst = [Instance(t, t + 1, 1.0, (t,), v) for t, v in enumerate(z)]
    >>> identity_groups(inst), identity_groups(inst, same=np.ones((3, 3), bool))
    ([[0, 2], [1]], [[0, 1, 2]])
    """
    groups: list[list[int]] = []
    for i, inst in enumerate(instances):
        for g in groups:
            head = instances[g[0]]
            if same is not None:
                match = bool(same[i, g[0]])
            else:
                match = _same(inst.z, str(inst.members), head.z, str(head.members), same_identity)
            if match:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


def consolidate(
    entries: list[MemoryEntry],
    merge_gap_s: float = 1.0,
    same_identity: float = 0.9,
    ordinal: int | None = None,
    skip_first: bool = False,
    same: SameMatrix | None = None,
    one_shot: OneShot | None = None,
) -> tuple[Moments, list[list[int]]]:
    """The final answer from the memory bank.

    Args:
        entries: verified memory entries.
        merge_gap_s: largest gap between pieces of one instance.
        same_identity: cosine at or above which two embeddings are the same identity.
        ordinal: keep only the n-th identity to appear (1-based; -1 the last), or None.
        skip_first: leave out the first of the remaining instances.
        same: which instances may show the same identity (ordinal selection, and which
            touching pieces join before it); default the embedding cosine.
        one_shot: whether two touching pieces (the earlier one's end, the later one's start)
            lie in one shot: such pieces join whatever `same` says (with `same` only).

    Returns:
        `(moments, groups)`: moments in time order with confidences as scores, and for each
        moment the indices of the entries it was made from.

    >>> m, g = consolidate([MemoryEntry("a", 0, 4, 0.8), MemoryEntry("a", 4, 6, 0.6)])
    >>> m.to_list(), g
    ([[0.0, 6.0]], [[0, 1]])
    """
    joins = None
    if ordinal is not None and same is not None and entries:
        # pieces are joined by the same identity measure the groups use: each entry alone
        pieces = same([Instance(e.start_s, e.end_s, e.confidence, (k,), e.z)
                       for k, e in enumerate(entries)])  # fmt: skip

        def joins(a: int, b: int) -> bool:
            if pieces[a, b]:
                return True
            ends = sorted((entries[a].end_s, entries[b].start_s))
            return one_shot is not None and one_shot(ends[0], ends[1])

    instances = chain_entries(
        entries, merge_gap_s, same_identity, by_identity=ordinal is not None, joins=joins
    )
    if ordinal is not None and instances:
        matrix = same(instances) if same is not None else None
        by_identity = identity_groups(instances, same_identity, matrix)
        pick = ordinal - 1 if ordinal > 0 else len(by_identity) + ordinal
        chosen = set(by_identity[pick]) if 0 <= pick < len(by_identity) else set()
        instances = [inst for i, inst in enumerate(instances) if i in chosen]
    if skip_first:
        instances = instances[1:]
    if not instances:
        return Moments.empty(), []
    spans = [[inst.start_s, inst.end_s] for inst in instances]
    moments = Moments.from_list(spans, [inst.confidence for inst in instances])
    return moments, [list(inst.members) for inst in instances]
