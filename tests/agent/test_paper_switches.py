"""The switches that turn the agent's own choices into CoMET's (`--preset paper`): each one is
checked to change what the agent does, so a switch that is ignored fails here."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.graph.levels import event_nodes
from longground.agent.pipeline import CometAgent
from longground.agent.profiles import PROFILES
from longground.agent.settings import AgentSettings
from longground.agent.verify.coverage import uniform_order
from longground.agent.verify.loop import Verdict, verification_loop
from longground.agent.verify.memory import MemoryEntry
from longground.errors import UserError
from longground.methods.agent import PAPER
from longground.methods.presets import apply_preset, preset_names
from tests.agent.test_pipeline import FakeSource

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _trace(**settings):
    agent = CometAgent(AgentSettings(roles="offline", **settings), 1.0, GraphCache(None))
    _, trace = agent.run(FakeSource(), "every time a cat appears")
    return trace.to_dict()


def test_early_stop_ends_at_the_first_iteration_that_accepts_nothing():
    answers = {0: MemoryEntry("a", 0, 1, 0.9), 1: None, 2: MemoryEntry("c", 4, 5, 0.9)}
    verify = lambda v, c: Verdict(answers[v], "ok" if answers[v] else "rejected")  # noqa: E731
    kw = dict(hops=1, tau=0.5, max_action_nodes=None, max_iterations=None)
    full = verification_loop(np.zeros((3, 3)), np.arange(3), verify, **kw)
    early = verification_loop(np.zeros((3, 3)), np.arange(3), verify, early_stop=True, **kw)
    assert (full.iterations, full.stop_reason, len(full.bank)) == (3, "exhausted", 2)
    assert (early.iterations, early.stop_reason, len(early.bank)) == (2, "early_stop", 1)
    # A duplicate accepts nothing new either.
    answers[1] = MemoryEntry("a again", 0, 1, 0.5)
    early = verification_loop(np.zeros((3, 3)), np.arange(3), verify, early_stop=True, **kw)
    assert early.steps[-1]["commit"] == "duplicate" and early.stop_reason == "early_stop"


def test_uniform_order_is_a_seeded_draw_not_the_coverage_order():
    coverage = _trace()["loop"]["order"]
    uniform = _trace(order="uniform", seed=3)["loop"]["order"]
    assert uniform == uniform_order(len(coverage), 3).tolist()
    assert sorted(uniform) == sorted(coverage) and uniform != coverage
    assert _trace(order="uniform", seed=4)["loop"]["order"] != uniform


def test_inherited_timestamps_are_the_visited_node_span():
    def spans(trace):
        nodes = trace["graph"]["actions"]
        return [
            (s["entry"]["start_s"], s["entry"]["end_s"],
             nodes[s["candidate"]]["start_s"], nodes[s["candidate"]]["end_s"])
            for s in trace["verifications"] if s["verified"]
        ]  # fmt: skip

    moved = spans(_trace())
    assert moved and any((a, b) != (c, d) for a, b, c, d in moved)  # the verifier grows them
    kept = spans(_trace(inherit_bounds=True))
    assert kept and all((a, b) == (c, d) for a, b, c, d in kept)


def test_events_at_rho_e_use_every_stride_th_sample():
    """At 4 fps with rho_E = 0.5 a one-sample dip is invisible to the rho_E curve."""
    times = np.arange(0, 60, 0.25)
    feats = np.tile([1.0, 0.0], (len(times), 1))
    feats[41:45] = [0.0, 1.0]  # a 1-s flash between two rho_E samples (every 8th)
    profile = PROFILES["long"]
    args = (times, {"appearance": feats, "embedding": feats}, (0.0, 60.0), profile, 4.0, 2)
    full, _ = event_nodes(GraphCache(None), "v", *args, full_rate=True)
    coarse, _ = event_nodes(GraphCache(None), "v", *args, full_rate=False)
    assert len(full.spans_s) == 3 and len(coarse.spans_s) == 1


def test_n_max_caps_the_loop_and_order_is_checked():
    trace = _trace(max_iterations=1, scale_budget=False)
    assert trace["loop"]["iterations"] == 1 and trace["loop"]["stop_reason"] == "max_iterations"
    with pytest.raises(UserError, match="order='random'"):
        AgentSettings(order="random")


def test_a_scaled_budget_grows_with_the_candidates_that_stand_out():
    trace = _trace(max_iterations=1)
    budget = trace["budget"]
    assert budget["scaled"] and budget["stand_out"] >= 1
    assert budget["max_iterations"] == 1 + budget["stand_out"] + 1  # one per 10 min searched
    assert trace["loop"]["iterations"] > 1


def test_paper_preset_sets_every_switch():
    assert preset_names("agent") == ["longground", "paper"]
    paper = AgentSettings.from_params(apply_preset("agent", "paper", {}))
    assert (paper.order, paper.max_iterations, paper.early_stop) == ("uniform", 3, True)
    assert paper.inherit_bounds and not paper.full_rate_events
    assert AgentSettings.from_params(apply_preset("agent", "longground", {})) == AgentSettings()
    # -p still wins over the preset.
    assert AgentSettings.from_params(apply_preset("agent", "paper", {"max_iterations": "5"})
                                     ).max_iterations == 5  # fmt: skip
    trace = _trace(**{k: v for k, v in PAPER.values.items()})
    assert trace["loop"]["iterations"] <= 3


def test_docs_table_matches_the_registry():
    text = (DOCS / "agent.md").read_text()
    defaults = AgentSettings()
    for key, value in PAPER.values.items():
        row = re.search(rf"^\| `{key}` \| `([^`]+)` \| `([^`]+)` \| ([^|]+) \|$", text, re.M)
        assert row is not None, key
        assert row.group(1) == str(getattr(defaults, key)).lower()
        assert row.group(2) == str(value).lower()
        assert "CoMET" in row.group(3) and PAPER.sources[key].split(" (")[0] in row.group(3)


def test_substitutions_table_names_real_settings_and_flags(capsys):
    """Every `-p key=` and `--flag` the Substitutions table offers exists."""
    from longground.agent.settings import PROFILE_FIELDS
    from longground.cli.main import main

    text = (DOCS / "agent.md").read_text()
    table = text.split("### Substitutions")[1].split("\n\n")[2]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r][1:]
    assert len(rows) >= 15
    keys = set(re.findall(r"-p (\w+)=", table))
    known = {f for f in AgentSettings.__dataclass_fields__} | set(PROFILE_FIELDS)
    assert keys and keys <= known, keys - known
    flags = set(re.findall(r"`(--[a-z-]+)", table))
    assert flags >= {"--preset", "--appearance", "--segment-encoder", "--llm"}
    try:
        main(["find", "--help"])
    except SystemExit:
        pass
    help_text = capsys.readouterr().out
    assert all(flag in help_text for flag in flags), [f for f in flags if f not in help_text]
