"""Step 3: iterative graph-based verification with online deduplication (CoMET Algorithm 1).

U <- all action nodes; M <- empty
while U is not empty and iter < N_max:
    v <- next candidate of U (coverage-aware order or uniform draw, see coverage.py)
    C(v) <- {v} + K-hop neighbours over edges w > tau (at most max_action_nodes)
    m <- Verifier(C(v), Q)                     # entry or rejection
    if m: commit m to M under temporal NMS (gamma)
    U <- U - C(v); iter += 1
    [early_stop: end when this iteration added nothing to M]
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

    Returns:
        `LoopResult`.

    >>> w = np.zeros((3, 3)); w[0, 1] = w[1, 0] = 0.9
    >>> accept = lambda v, c: Verdict(None, "rejected")
    >>> r = verification_loop(w, np.arange(3), accept, hops=1, tau=0.5, max_action_nodes=None,
    ...                       max_iterations=None)
    >>> r.iterations, [s["context"] for s in r.steps]
    (2, [[0, 1], [2]])
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
        unverified[context] = False
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
