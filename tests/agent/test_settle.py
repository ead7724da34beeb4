"""What one verification settles: Algorithm 1 removes the whole perception context from the
unverified set; the default removes only the candidate and the nodes inside its instance."""

from __future__ import annotations

import numpy as np

from longground.agent.verify.loop import Verdict, verification_loop
from longground.agent.verify.memory import MemoryEntry

# Three touching nodes of 10 s, all linked: one context holds them all.
SPANS = np.array([[0, 10], [10, 20], [20, 30.0]])
WEIGHTS = np.ones((3, 3)) - np.eye(3)


def shots_of_the_cat(v, context):
    """Nodes 0 and 2 show the cat (separate shots); node 1 does not. Each verified instance
    is its candidate's own span."""
    if v == 1:
        return Verdict(None, "target not visible")
    start_s, end_s = SPANS[v]
    return Verdict(MemoryEntry("cat", float(start_s), float(end_s), 0.9), "verified")


def run(settle_context: bool):
    return verification_loop(
        WEIGHTS, np.arange(3), shots_of_the_cat, hops=1, tau=0.5, max_action_nodes=None,
        max_iterations=None, settle_context=settle_context, spans_s=SPANS,
    )  # fmt: skip


def test_a_context_node_the_instance_does_not_reach_gets_its_own_turn():
    paper = run(settle_context=True)
    assert [s["candidate"] for s in paper.steps] == [0]  # nodes 1 and 2 were only context
    assert len(paper.bank) == 1  # the second shot of the cat is lost
    default = run(settle_context=False)
    assert [s["candidate"] for s in default.steps] == [0, 1, 2]
    assert len(default.bank) == 2


def test_nodes_inside_a_verified_instance_are_settled():
    def whole_run(v, context):
        return Verdict(MemoryEntry("cat", 0.0, 30.0, 0.9), "verified")

    result = verification_loop(
        WEIGHTS, np.arange(3), whole_run, hops=1, tau=0.5, max_action_nodes=None,
        max_iterations=None, settle_context=False, spans_s=SPANS,
    )  # fmt: skip
    assert result.iterations == 1
