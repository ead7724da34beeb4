"""CoMET Table 6's ablation switches (`-p graph=false`, `memory_bank=false`,
`iterative=false`): each one is checked to change what the agent does, so an ignored switch
fails here."""

from __future__ import annotations

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.graph.flat import flat_spans
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from longground.agent.verify.memory import MemoryEntry
from longground.errors import UserError
from tests.agent.test_pipeline import FakeSource

QUERY = "every time a cat appears"


def run(**settings):
    agent = CometAgent(AgentSettings(roles="offline", **settings), 1.0, GraphCache(None))
    moments, trace = agent.run(FakeSource(), QUERY)
    return moments, trace.to_dict()


def test_without_the_graph_candidates_are_flat_uniform_segments():
    _, full = run()
    _, flat = run(graph=False, flat_segment_s=7.0)
    window = flat["plan"]["window_s"]
    spans = [[e["start_s"], e["end_s"]] for e in flat["graph"]["events"]]
    assert spans == flat_spans(tuple(window), 7.0).tolist()
    assert all(e["end_s"] - e["start_s"] <= 7.0 for e in flat["graph"]["actions"])
    # no edges: every context is the candidate alone
    assert all(step["context"] == [step["candidate"]] for step in flat["verifications"])
    full_events = [[e["start_s"], e["end_s"]] for e in full["graph"]["events"]]
    assert full_events != spans


def test_without_iterative_verification_each_candidate_is_verified_once_alone():
    loose = {"overrides": {"tau": 0.0}, "max_iterations": 2, "early_stop": True}
    _, full = run(**loose)
    _, once = run(iterative=False, **loose)
    assert any(len(step["context"]) > 1 for step in full["verifications"])
    assert all(step["context"] == [step["candidate"]] for step in once["verifications"])
    assert once["loop"]["iterations"] == len(once["graph"]["actions"])  # no N_max, no early end
    assert once["loop"]["stop_reason"] == "exhausted"


def test_without_the_memory_bank_duplicates_stay_and_nothing_is_aggregated(monkeypatch):
    moments, full = run()
    kept, bare = run(memory_bank=False)
    assert all(s["commit"] in ("appended", "rejected") for s in bare["verifications"])
    accepted = [s["entry"] for s in bare["verifications"] if s["verified"]]
    assert len(kept) == len(accepted)  # every verified entry is an answer of its own
    assert bare["aggregate"]["reason"] == "no memory bank"
    assert len(kept) > len(moments)  # with the bank, pieces are deduplicated and chained


def test_memory_bank_off_keeps_overlapping_entries():
    from longground.agent.verify.memory import MemoryBank

    bank = MemoryBank(np.inf)
    assert [bank.commit(MemoryEntry("a", 0, 10, 0.5)) for _ in range(2)] == ["appended"] * 2


def test_flat_segment_length_must_be_positive():
    with pytest.raises(UserError, match="flat_segment_s"):
        AgentSettings.from_params({"flat_segment_s": "0"})


def test_switches_parse_from_the_command_line():
    s = AgentSettings.from_params({"graph": "false", "memory_bank": "no", "iterative": "0"})
    assert (s.graph, s.memory_bank, s.iterative) == (False, False, False)
