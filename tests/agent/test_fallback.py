"""The empty-answer fallback (agent/perception/fallback.py) on the scripted fake video.

This fake's backgrounds vary from shot to shot, so its spread is wide and its faint rocket
stands 3 robust standard deviations above the video (a dog, never shown, 2): `K` = 2.5 here,
where the default 6 was chosen on rendered video (docs/notes/agent-log.md, "An answer that is
empty while candidates stand out")."""

from __future__ import annotations

from longground.moments import tiou_matrix
from tests.agent.test_decisions import rocket_shots, run

K = 2.5


def test_an_empty_answer_falls_back_to_events_that_stand_out():
    query = "every time a rocket appears"
    empty, _ = run(query, fallback_k=0)
    found, trace = run(query, fallback_k=K)
    assert empty.count == 0
    assert trace["fallback"]["moments"] == found.count > 0
    assert trace["fallback"]["best_separation"] >= trace["fallback"]["k_clear"]
    assert tiou_matrix(found.spans, rocket_shots()).max(axis=1).min() > 0
    assert (found.scores < 0.5).all()  # below the threshold: low confidence


def test_the_fallback_does_not_answer_what_is_not_there():
    for query in ("every time a dog appears", "every time a teddy bear appears"):
        moments, trace = run(query, fallback_k=K)
        assert moments.count == 0, query
        assert trace["fallback"]["moments"] == 0


def test_the_fallback_leaves_conditional_queries_alone():
    moments, trace = run("every time a rocket appears right after the cat", fallback_k=K)
    assert "fallback" not in trace
