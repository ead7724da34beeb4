"""Each LLM role against a scripted chat model: good answers are used, an unreadable answer is
retried once with a correction, and a second unreadable answer counts as malformed and is
handled as a rejection. Plus one whole agent run on LLM roles."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.agent.frames import FrameSampler
from longground.agent.graph.cache import GraphCache
from longground.agent.graph.nodes import make_nodes
from longground.agent.pipeline import CometAgent
from longground.agent.plan.planner import Relation, plan_query
from longground.agent.roles import Evidence, build_role
from longground.agent.settings import AgentSettings
from longground.agent.verify.memory import MemoryEntry
from longground.llm.base import ChatClient, Completion
from tests.agent.test_pipeline import FakeSource, shot_spans
from tests.support.chat import ScriptedChat


def evidence(query="a cat right after a rocket"):
    times = np.arange(0.0, 40.0)
    emb = np.random.default_rng(0).normal(size=(40, 4)).astype(np.float32)
    events = make_nodes(np.array([[0.0, 10], [10, 25], [25, 40]]), times, emb, 3.0, 2)
    plan = plan_query(query, 40.0)
    ev = Evidence(
        plan,
        times,
        emb,
        emb,
        {t: np.zeros(40) for t in plan.texts},
        events,
        frames=FrameSampler(lambda ts: np.zeros((len(ts), 8, 8, 3), np.uint8)),
    )
    ev.actions = events
    return ev


BAD = "I think the cat is there."


def test_verifier_uses_a_good_answer_with_timestamped_frames():
    chat = ScriptedChat(
        [{"verified": True, "summary": "grey cat", "start_s": 11, "end_s": 24, "confidence": 0.8}]
    )
    verdict = build_role("verifier", "llm", client=chat, n_frames=6).verify(
        evidence(), 1, np.array([0, 1])
    )
    assert verdict.entry.summary == "grey cat" and verdict.entry.confidence == 0.8
    assert (verdict.entry.start_s, verdict.entry.end_s) == (11.0, 24.0)
    message = chat.calls[0][0]
    assert len(message.images) == 6 and len(message.image_labels) == 6
    assert any("candidate" in label for label in message.image_labels)
    assert "a cat right after a rocket" in message.text


def test_verifier_retries_once_then_counts_a_malformed_rejection():
    chat = ScriptedChat([BAD, '```json\n{"verified": 1}\n```'])
    verdict = build_role("verifier", "llm", client=chat).verify(evidence(), 1, np.array([1]))
    assert verdict.entry is None and verdict.malformed
    assert len(chat.calls) == 2
    retry = chat.calls[1]
    assert retry[1].role == "assistant" and retry[1].text == BAD
    assert "could not be used" in retry[2].text


def test_verifier_recovers_when_the_retry_is_good():
    chat = ScriptedChat([BAD, {"verified": False, "reason": "no rocket before"}])
    verdict = build_role("verifier", "llm", client=chat).verify(evidence(), 1, np.array([1]))
    assert verdict.entry is None and not verdict.malformed and len(chat.calls) == 2


def test_verifier_rejects_spans_outside_what_it_was_shown():
    chat = ScriptedChat([{"verified": True, "start_s": 30, "end_s": 39, "confidence": 0.9}])
    verdict = build_role("verifier", "llm", client=chat).verify(evidence(), 1, np.array([1]))
    assert verdict.malformed  # clamped to the context it collapses to nothing


def test_filter_keeps_what_the_model_names_and_drops_a_malformed_batch():
    chat = ScriptedChat([{"keep": [0]}, BAD, BAD])
    ev = evidence()
    result = build_role("filter", "llm", client=chat, frames_per_event=2, batch=2).select(ev)
    assert result.keep.tolist() == [True, False, False]
    assert result.malformed == 1 and len(chat.calls) == 3
    assert "unreadable" in result.reasons[2]


def test_planner_reads_the_model_plan_and_falls_back_to_the_rules():
    good = {
        "target": "a cat",
        "conditions": ["a rocket"],
        "relation": "right after",
        "window": None,
        "motion": None,
        "ordinal": None,
        "profile": "short",
    }
    plan = build_role("planner", "llm", client=ScriptedChat([good])).plan("q", 60.0)
    assert plan.relation is Relation.RIGHT_AFTER and plan.source == "llm"
    chat = ScriptedChat([BAD, {"target": "a cat", "relation": "sideways", "profile": "short"}])
    plan = build_role("planner", "llm", client=chat).plan("a cat right after a rocket", 60.0)
    assert plan.source == "rules-fallback" and plan.conditions == ("a rocket",)
    assert len(chat.calls) == 2


def test_aggregator_groups_entries_or_falls_back():
    entries = [
        MemoryEntry("cat A", 0, 5, 0.9),
        MemoryEntry("cat A", 5, 8, 0.7),
        MemoryEntry("cat B", 20, 25, 0.6),
    ]
    chat = ScriptedChat([{"occurrences": [[2], [0, 1]]}])
    result = build_role("aggregator", "llm", client=chat).aggregate(evidence(), entries)
    assert result.moments.to_list() == [[0.0, 8.0], [20.0, 25.0]] and not result.malformed
    chat = ScriptedChat([BAD, {"occurrences": [[0, 0]]}])
    result = build_role("aggregator", "llm", client=chat).aggregate(evidence(), entries)
    assert result.malformed and len(result.moments) == 2  # offline chaining: [0, 8] and [20, 25]


@pytest.mark.parametrize("malformed_verifier", [False, True])
def test_agent_on_llm_roles_counts_malformed_answers(malformed_verifier):
    spans = shot_spans()

    def reply(messages):
        text = messages[0].text
        if "planning a search" in text:
            return {
                "target": "a cat",
                "conditions": [],
                "relation": "none",
                "window": None,
                "motion": None,
                "ordinal": None,
                "profile": "short",
            }
        if "screening" in text:
            return {
                "keep": [
                    int(w.split()[1].rstrip(":"))
                    for w in text.splitlines()
                    if w.startswith("event ")
                ]
            }
        if "checking one candidate" in text:
            if malformed_verifier:
                return BAD
            return {"verified": True, "summary": "a cat", "confidence": 0.7}
        numbers = [int(line.split(":")[0]) for line in text.splitlines() if line[:1].isdigit()]
        return {"occurrences": [[i] for i in numbers]}

    class Chat(ChatClient):
        model = "rules"
        calls = 0

        def complete(self, messages, *, max_tokens=1024, temperature=0.0):
            Chat.calls += 1
            out = reply(messages)
            return Completion(out if isinstance(out, str) else json.dumps(out))

    agent = CometAgent(AgentSettings(), 1.0, GraphCache(None), client=Chat())
    moments, trace = agent.run(FakeSource(), "every cat")
    counters = trace.to_dict()["counters"]
    assert trace.record["plan"]["source"] == "llm"
    if malformed_verifier:
        iterations = trace.record["loop"]["iterations"]
        assert counters["malformed.verifier"] == iterations > 0
        assert len(moments) == 0
    else:
        assert counters["malformed.verifier"] == 0
        final_bank = trace.record["memory"][-1]["entries"]
        assert len(moments) == len(final_bank) > 0
        assert moments.spans.min() >= 0 and moments.spans.max() <= spans[-1, 1]
