"""Queries across channels through the agent: each sub-event goes to its channel (here a
scripted speech channel beside the scripted frames of `test_pipeline`), and the moments are
combined with the plan's relation."""

from __future__ import annotations

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.agent.perception.intervals import relate
from longground.agent.pipeline import CometAgent
from longground.agent.plan.planner import Relation
from longground.agent.settings import AgentSettings
from longground.agent.source import ChannelAnswer
from longground.moments import Moments

from .test_pipeline import FakeSource, cat_shots

SAID = {"hello": [[30.0, 33.0], [60.0, 62.0], [80.0, 82.5]], "goodbye": [[40.0, 41.5]]}


class TalkingSource(FakeSource):
    """The scripted video with a speech channel: speech needles are answered from SAID."""

    def channel_answer(self, route) -> ChannelAnswer | None:
        if route.channel != "speech":
            return None
        word = route.needle
        spans = np.array(SAID.get(word, []), np.float64).reshape(-1, 2)
        return ChannelAnswer("speech", Moments(spans), {"route": {"needle": word}})


def run(query: str):
    agent = CometAgent(AgentSettings(roles="offline"), 1.0, GraphCache(None))
    moments, trace = agent.run(TalkingSource(), query)
    return moments, trace.to_dict()


def close(pred: Moments, truth: list[list[float]], tol_s: float = 1.0) -> bool:
    truth = np.array(truth, np.float64).reshape(-1, 2)
    return len(pred) == len(truth) and bool(np.all(np.abs(pred.spans - truth) <= tol_s))


def speech_with_cats() -> list[list[float]]:
    """Each "hello" cut to the cat shots it overlaps (from the scripts, not the agent)."""
    out = []
    for a, b in SAID["hello"]:
        for c, d in cat_shots():
            if min(b, d) > max(a, c):
                out.append([max(a, c), min(b, d)])
    return out


def test_speech_while_a_visual_condition():
    moments, trace = run("every time someone says hello while a cat is on screen")
    assert close(moments, speech_with_cats()), moments.to_list()
    events = trace["combined"]["subevents"]
    assert [(e["role"], e["channel"]) for e in events] == [
        ("target", "speech"),
        ("condition", "visual"),
    ]
    assert "plan" in events[1]["agent"]  # the frame graph's own trace of "a cat"


def test_visual_target_right_after_speech_and_occurrence():
    after = [[a, b] for a, b in cat_shots() if any(0 <= a - e <= 3.0 for _, e in SAID["goodbye"])]
    moments, _ = run("a cat right after someone says goodbye")
    assert close(moments, after), (moments.to_list(), after)
    first, _ = run("the first time someone says hello")
    assert first.to_list() == [SAID["hello"][0]]
    last, _ = run("the last time someone says hello")
    assert last.to_list() == [SAID["hello"][-1]]


def test_the_longest_and_shortest_moment():
    longest, _ = run("the longest stretch where someone says hello")
    assert longest.to_list() == [[30.0, 33.0]]
    shortest, _ = run("when does someone say hello for the shortest time")
    assert shortest.to_list() == [[60.0, 62.0]]


def test_a_window_and_without():
    moments, _ = run("between 00:00:50 and 00:01:30, someone says hello")
    assert moments.to_list() == [[60.0, 62.0], [80.0, 82.5]]
    moments, _ = run("someone says hello without a cat")
    assert close(moments, [[60.0, 62.0]]), moments.to_list()


def test_a_query_without_channels_keeps_the_frame_graph():
    _, trace = run("every time a cat appears")
    assert "combined" not in trace and "verifications" in trace


T = Moments.from_list([[10, 20], [40, 50]])


@pytest.mark.parametrize(
    ("relation", "condition", "kept"),
    [
        (Relation.WHILE, [[15, 45]], [[15, 20], [40, 45]]),
        (Relation.WITHOUT, [[25, 30]], [[10, 20], [40, 50]]),
        (Relation.AFTER, [[21, 30]], [[40, 50]]),
        (Relation.BEFORE, [[21, 30]], [[10, 20]]),
        (Relation.RIGHT_AFTER, [[30, 38]], [[40, 50]]),
        (Relation.RIGHT_AFTER, [[30, 36]], []),
        (Relation.RIGHT_BEFORE, [[52, 60]], [[40, 50]]),
        (Relation.CAUSED_BY, [[41, 44]], [[40, 50]]),
        (Relation.CAUSES, [[19, 25]], [[10, 20]]),
        (Relation.NONE, [[0, 1]], [[10, 20], [40, 50]]),
    ],
)
def test_relations_over_intervals(relation, condition, kept):
    got = relate(relation, T, Moments.from_list(condition), near_s=3.0, slack_s=0.5)
    assert got.to_list() == kept


@pytest.mark.parametrize(
    ("condition", "kept"),
    [([[25, 30]], []), ([[22, 30]], [[10, 20]]), ([[52, 55]], [[40, 50]]),
     ([[0, 60]], [[10, 20], [40, 50]])],  # 5 s from each; 2 s from one; 2 s; over both
)  # fmt: skip
def test_near_over_intervals(condition, kept):
    got = relate(Relation.NEAR, T, Moments.from_list(condition), 3.0, 0.5, reach_s=2.5)
    assert got.to_list() == kept


def test_a_reach_in_seconds_across_channels():
    """Each hello that some cat ended at most 5 s before (the one at 80 s is 23 s after)."""
    anywhere, _ = run("someone says hello after a cat")
    assert anywhere.to_list() == [[60.0, 62.0], [80.0, 82.5]]
    near, trace = run("someone says hello within 5 seconds after a cat")
    assert close(near, [[60.0, 62.0]]), near.to_list()
    assert trace["combined"]["reach_s"] == 5.0


def test_near_in_time_across_channels():
    """"Within N seconds of a cat" reaches either side: the hello inside a cat shot is kept
    (not "after" one), and goodbye (4 s after one cat, 3.5 s before the next) only at 5 s."""
    near, trace = run("someone says hello within 5 seconds of a cat")
    assert close(near, SAID["hello"]), near.to_list()
    assert (trace["combined"]["relation"], trace["combined"]["reach_s"]) == ("near", 5.0)
    assert close(run("someone says goodbye within 5 seconds of a cat")[0], SAID["goodbye"])
    assert len(run("someone says goodbye within 2 seconds of a cat")[0]) == 0
