"""Step 3: iterative graph-based verification with online deduplication (CoMET Algorithm 1).

U <- all action nodes; M <- empty
while U is not empty and iter < N_max:
    v <- next candidate of U (coverage-aware order or uniform draw, see coverage.py)
    C(v) <- {v} + K-hop neighbours over edges w > tau (at most max_action_nodes)
    m <- Verifier(C(v), Q)                     # entry or rejection
    if m: commit m to M under temporal NMS (gamma)
    U <- U - C(v); iter += 1
    [early_stop: end when this iteration added nothing to M]

`settle_context=False` (the agent's default) replaces U <- U - C(v) by U <- U - A(v), the
nodes the verdict answered for: v itself and, when m is an instance, the nodes inside m's
span. The context is evidence for v, not a verdict on its other nodes: on r1's 45-minute
video whole still shots of the cat (23 and 29 s) fell in the context of a neighbour whose
instance did not reach them (or of a rejected candidate) and were never verified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph.edges import k_hop_context
from .memory import MemoryBank, MemoryEntry


@dataclass
class Verdict:
    """A verifier's answer for one candidate: a memory entry, or a rejection and why."""

    entry: MemoryEntry | None
    reason: str
    malformed: bool = False
    details: dict[str, Any] = field(default_factory=dict)


# Commits that put a new candidate into the memory bank.
ACCEPTED = ("appended", "replaced")

VerifyFn = Callable[[int, np.ndarray], Verdict]


@dataclass
class LoopResult:
    """What the loop did.

    Attributes:
        bank: the populated memory bank.
        steps: one record per iteration (candidate, context, verdict, commit, bank size).
        iterations: number of verifier calls.
        stop_reason: "exhausted" (U empty), "max_iterations" (N_max reached) or
            "early_stop" (an iteration added nothing to the bank).
        malformed: verdicts that came from unreadable model answers.
        last_verdict: the verdict of the last iteration (None before the first).
    """

    bank: MemoryBank
    steps: list[dict] = field(default_factory=list)
    iterations: int = 0
    stop_reason: str = "exhausted"
    malformed: int = 0
    last_verdict: Verdict | None = None


def verification_loop(
    weights: np.ndarray,
    order: np.ndarray,
    verify: VerifyFn,
    *,
    hops: int,
    tau: float,
    max_action_nodes: int | None,
    max_iterations: int | None,
    gamma: float = 0.5,
    early_stop: bool = False,
    on_step: Callable[[dict, MemoryBank], None] | None = None,
    settle_context: bool = True,
    spans_s: np.ndarray | None = None,
) -> LoopResult:
    """Run Algorithm 1 over an action graph.

    Args:
        weights: `(A, A)` action-graph edge weights.
        order: `(A,)` candidate order (a permutation of the nodes).
        verify: `verify(candidate, context) -> Verdict`.
        hops: K, hops of the perception context.
        tau: edge traversal threshold.
        max_action_nodes: most nodes in one context (None: no limit).
        max_iterations: N_max (None: until U is empty).
        gamma: tIoU above which a new entry duplicates an existing one.
        early_stop: stop after the first iteration whose verdict is a rejection or a
            duplicate, i.e. accepts no new candidate into the bank (CoMET App. D).
        on_step: called after each iteration with its record and the bank.
        settle_context: remove the whole context from U after a verification (Algorithm 1);
            False: only the nodes the verdict answered for (needs `spans_s`).
        spans_s: `(A, 2)` node spans in seconds (for `settle_context=False`).

    Returns:
        `LoopResult`.

    >>> w = np.zeros((3, 3)); w[0, 1] = w[1, 0] = 0.9
    >>> accept = lambda v, c: Verdict(None, "rejected")
    >>> r = verification_loop(w, np.arange(3), accept, hops=1, tau=0.5, max_action_nodes=None,
    ...                       max_iterations=None)
    >>> r.iterations, [s["context"] for s in r.steps]
    (2, [[0, 1], [2]])
    >>> spans = np.array([[0, 1], [1, 2], [2, 3.0]])
    >>> r = verification_loop(w, np.arange(3), accept, hops=1, tau=0.5, max_action_nodes=None,
    ...                       max_iterations=None, settle_context=False, spans_s=spans)
    >>> [s["context"] for s in r.steps]  # node 1 was only context: it gets its own turn
    [[0, 1], [0, 1], [2]]
    """
    bank = MemoryBank(gamma)
    result = LoopResult(bank)
    unverified = np.ones(len(order), dtype=bool)
    for v in (int(i) for i in order):
        if not unverified.any():
            break
        if max_iterations is not None and result.iterations >= max_iterations:
            result.stop_reason = "max_iterations"
            break
        if not unverified[v]:
            continue
        context = k_hop_context(weights, v, hops, tau, max_action_nodes)
        verdict = verify(v, context)
        commit = bank.commit(verdict.entry) if verdict.entry is not None else "rejected"
        unverified[context if settle_context else answered(v, verdict, spans_s)] = False
        result.iterations += 1
        result.malformed += int(verdict.malformed)
        result.last_verdict = verdict
        record = {
            "iteration": result.iterations,
            "candidate": v,
            "context": context.tolist(),
            "verified": verdict.entry is not None,
            "reason": verdict.reason,
            "entry": verdict.entry.to_record() if verdict.entry is not None else None,
            "commit": commit,
            "malformed": verdict.malformed,
            "bank_size": len(bank),
            **({"details": verdict.details} if verdict.details else {}),
        }
        result.steps.append(record)
        if on_step is not None:
            on_step(record, bank)
        if early_stop and commit not in ACCEPTED and unverified.any():
            result.stop_reason = "early_stop"
            break
    return result


def answered(v: int, verdict: Verdict, spans_s: np.ndarray | None) -> np.ndarray:
    """Indices of the nodes a verdict on candidate `v` answered for: `v`, and every node
    whose span lies inside the returned instance.

    >>> spans = np.array([[0, 2], [2, 4], [4, 6.0]])
    >>> answered(1, Verdict(MemoryEntry("x", 0, 4, 0.9), "verified"), spans).tolist()
    [0, 1]
    >>> answered(1, Verdict(None, "rejected"), spans).tolist()
    [1]
    """
    if verdict.entry is None or spans_s is None:
        return np.array([v])
    inside = spans_inside(spans_s, verdict.entry.start_s, verdict.entry.end_s)
    return np.union1d(np.flatnonzero(inside), [v]).astype(int)


def spans_inside(spans_s: np.ndarray, start_s: float, end_s: float) -> np.ndarray:
    """`(A,)` bool: which of the `(A, 2)` node spans lie inside `[start_s, end_s]` (to 1 us).

    >>> spans_inside(np.array([[0, 2], [2, 4], [4, 6.0]]), 0.0, 4.0).tolist()
    [True, True, False]
    """
    spans = np.asarray(spans_s, np.float64)
    eps = 1e-6
    return (spans[:, 0] >= start_s - eps) & (spans[:, 1] <= end_s + eps)
