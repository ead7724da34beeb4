"""Edges, perception contexts, the memory bank's NMS rule, the verification loop, candidate
order and aggregation, each against a plain reference implementation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.agent.aggregate import chain_entries, consolidate
from longground.agent.graph.edges import edge_weights, k_hop_context
from longground.agent.roles.interfaces import Verdict
from longground.agent.verify.coverage import coverage_order
from longground.agent.verify.loop import verification_loop
from longground.agent.verify.memory import MemoryBank, MemoryEntry


def naive_weights(z, sigma, k):
    n = len(z)
    w = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j and abs(i - j) <= k:
                cos = z[i] @ z[j] / (np.linalg.norm(z[i]) * np.linalg.norm(z[j]))
                w[i, j] = cos * math.exp(-abs(i - j) / sigma)
    return w


@pytest.mark.parametrize(("sigma", "k"), [(1.0, 1), (3.0, 2), (5.0, 4)])
def test_edge_weights_match_eq15(sigma, k):
    z = np.random.default_rng(0).normal(size=(9, 5))
    np.testing.assert_allclose(edge_weights(z, sigma, k), naive_weights(z, sigma, k), atol=1e-12)


def naive_context(w, v, hops, tau):
    reached, frontier = {v}, {v}
    for _ in range(hops):
        frontier = {j for i in frontier for j in range(len(w)) if w[i, j] > tau} - reached
        reached |= frontier
    return sorted(reached)


@pytest.mark.parametrize("seed", range(6))
def test_context_is_the_k_hop_neighbourhood_over_strong_edges(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(12, 3)) + np.array([2.0, 0, 0])
    w = edge_weights(z, sigma=4.0, k=3)
    for v in range(12):
        for hops in (0, 1, 2, 3):
            assert k_hop_context(w, v, hops, 0.4).tolist() == naive_context(w, v, hops, 0.4)


def test_context_never_crosses_a_weak_edge():
    z = np.array([[1.0, 0], [1, 0], [0, 1], [1, 0]])
    w = edge_weights(z, sigma=10.0, k=1)
    assert k_hop_context(w, 0, hops=5, tau=0.5).tolist() == [0, 1]


def test_context_budget_keeps_the_nearest_strongest_nodes():
    w = edge_weights(np.ones((7, 2)), sigma=10.0, k=3)
    ctx = k_hop_context(w, 3, hops=2, tau=0.5, budget=3)
    assert ctx.tolist() == [2, 3, 4]  # direct neighbours beat the weaker 2- and 3-apart edges


def test_table4_short_profile_edges_never_pass_tau():
    # exp(-1/2) < 0.85: with the published short profile no edge is traversed.
    w = edge_weights(np.ones((5, 2)), sigma=2.0, k=2)
    assert k_hop_context(w, 2, hops=2, tau=0.85).tolist() == [2]


def naive_commit(bank, m, gamma):
    """Algorithm 1 lines 11-22, literally."""
    is_dup = False
    for old in list(bank):
        inter = max(0.0, min(m[1], old[1]) - max(m[0], old[0]))
        union = (m[1] - m[0]) + (old[1] - old[0]) - inter
        iou = inter / union if union > 0 else 0.0
        if iou > gamma:
            is_dup = True
            if m[2] > old[2]:
                bank = [e for e in bank if e is not old]
                if m not in bank:
                    bank.append(m)
    if not is_dup:
        bank.append(m)
    return bank


spans = st.tuples(st.floats(0, 50), st.floats(0.5, 20), st.floats(0, 1)).map(
    lambda t: (round(t[0], 1), round(t[0] + t[1], 1), round(t[2], 2))
)


@settings(max_examples=300, deadline=None)
@given(st.lists(spans, max_size=12), st.sampled_from([0.3, 0.5, 0.7]))
def test_memory_bank_follows_algorithm_1(entries, gamma):
    bank, naive = MemoryBank(gamma), []
    for s, e, c in entries:
        bank.commit(MemoryEntry("x", s, e, c))
        naive = naive_commit(naive, (s, e, c), gamma)
    got = sorted((m.start_s, m.end_s, m.confidence) for m in bank.entries)
    assert got == sorted(naive)


def test_nms_replaces_only_a_less_confident_duplicate():
    bank = MemoryBank(0.5)
    assert bank.commit(MemoryEntry("a", 0, 10, 0.5)) == "appended"
    assert bank.commit(MemoryEntry("b", 0, 10, 0.5)) == "duplicate"  # a tie keeps the first
    assert bank.commit(MemoryEntry("c", 2, 10, 0.8)) == "replaced"
    assert bank.commit(MemoryEntry("d", 6, 10, 0.9)) == "appended"  # tIoU 0.5 is not > 0.5
    assert [e.summary for e in bank.entries] == ["c", "d"]


def chain_weights(n, strong=()):
    w = np.zeros((n, n))
    for i, j in strong:
        w[i, j] = w[j, i] = 0.9
    return w


def test_loop_removes_the_context_and_stops_when_all_are_verified():
    seen = []

    def verify(v, ctx):
        seen.append((v, ctx.tolist()))
        return Verdict(None, "no")

    result = verification_loop(
        chain_weights(5, [(0, 1), (1, 2)]),
        np.arange(5),
        verify,
        hops=2,
        tau=0.5,
        max_action_nodes=None,
        max_iterations=None,
    )
    assert seen == [(0, [0, 1, 2]), (3, [3]), (4, [4])]
    assert result.stop_reason == "exhausted" and result.iterations == 3


def test_loop_respects_n_max_and_the_context_budget():
    calls = []

    def verify(v, ctx):
        calls.append(ctx.tolist())
        return Verdict(MemoryEntry("x", v * 10.0, v * 10.0 + 5, 0.9, v), "ok")

    w = chain_weights(6, [(i, i + 1) for i in range(5)])
    result = verification_loop(
        w, np.arange(6), verify, hops=3, tau=0.5, max_action_nodes=2, max_iterations=2
    )
    assert result.stop_reason == "max_iterations" and result.iterations == 2
    assert all(len(c) <= 2 for c in calls)
    assert len(result.bank) == 2


def test_loop_counts_malformed_verdicts():
    verdicts = iter([Verdict(None, "bad json", malformed=True), Verdict(None, "no")])
    result = verification_loop(
        np.zeros((2, 2)),
        np.arange(2),
        lambda v, c: next(verdicts),
        hops=1,
        tau=0.5,
        max_action_nodes=None,
        max_iterations=None,
    )
    assert result.malformed == 1 and result.steps[0]["malformed"]


def test_coverage_order_spreads_every_prefix():
    rng = np.random.default_rng(0)
    starts = np.sort(rng.uniform(0, 1000, 200))
    spans = np.stack([starts, starts + 3], axis=1)
    # Relevance that favours the start of the video, like a salient opening.
    priority = -starts + rng.normal(0, 5, 200)
    order = coverage_order(spans, priority, 0, 1003, n_bins=8)
    assert sorted(order.tolist()) == list(range(200))
    first = spans[order[:16]].mean(axis=1)
    assert len(np.unique((first // (1003 / 8)).astype(int))) == 8
    greedy = spans[np.argsort(-priority)[:16]].mean(axis=1)
    assert greedy.max() < 200  # best-first alone never leaves the opening


def test_chaining_needs_touching_pieces_of_one_identity():
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    entries = [
        MemoryEntry("x", 0, 5, 0.6, z=a),
        MemoryEntry("x", 5, 9, 0.8, z=a),
        MemoryEntry("x", 9, 12, 0.7, z=b),
        MemoryEntry("x", 30, 35, 0.9, z=a),
    ]
    got = [(i.start_s, i.end_s, i.members) for i in chain_entries(entries, 1.0, 0.9, True)]
    assert got == [(0, 9, (0, 1)), (9, 12, (2,)), (30, 35, (3,))]
    # Without identity, one continuous occurrence: the moment lasts while the query holds.
    got = [(i.start_s, i.end_s) for i in chain_entries(entries, 1.0, 0.9, by_identity=False)]
    assert got == [(0, 12), (30, 35)]
    other = [*entries[:2], MemoryEntry("a cup", 9, 12, 0.7, z=a)]
    assert len(chain_entries(other, 1.0, 0.9)) == 2


@pytest.mark.parametrize(
    ("ordinal", "expected"), [(1, [[0, 5], [40, 45]]), (2, [[20, 25]]), (-1, [[20, 25]]), (3, [])]
)
def test_ordinal_keeps_one_identity(ordinal, expected):
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    entries = [
        MemoryEntry("x", 0, 5, 0.9, z=a),
        MemoryEntry("x", 20, 25, 0.9, z=b),
        MemoryEntry("x", 40, 45, 0.9, z=a),
    ]
    moments, _ = consolidate(entries, ordinal=ordinal)
    assert moments.to_list() == expected
