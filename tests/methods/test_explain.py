"""`find --explain`'s lines, from the traces the methods record."""

from longground.methods.base import Grounding
from longground.methods.explain import explain
from longground.moments import Moments


def _people(query: str) -> Grounding:
    trace = {"analysis": {"query": query},
             "route": {"channel": "people", "needle": "person", "rule": "people-presence"},
             "channel": {"counted": "faces", "frames_with": 3, "frames": 10}}  # fmt: skip
    return Grounding(Moments.from_list([[1.0, 4.0]], [0.9]), trace=trace)


def test_a_people_answer_says_what_it_counted_and_that_a_rank_is_not_applied():
    lines = explain(_people("the second person to appear"))
    assert lines[:2] == ["why: the people channel, needle 'person' (rule people-presence)",
                         "why: faces on 3 of 10 sampled frames"]  # fmt: skip
    assert "rank the query asks for is not applied" in lines[-1]
    assert not any("rank" in line for line in explain(_people("every time a person is seen")))
