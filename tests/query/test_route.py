"""Routing a query to a channel: a table of phrasings, each with its channel and needle."""

from __future__ import annotations

import pytest

from longground.query import route as route_query

CASES = [
    ("someone says budget", "speech", "budget"),
    ("when does the instructor first mention backpropagation?", "speech", "backpropagation"),
    ("the speaker talks about the weather", "speech", "the weather"),
    ('the word "elephant" is spoken', "speech", "elephant"),
    ("when does the caption say GOAL", "text", "goal"),
    ("the slide reads 'Quarterly Results'", "text", "quarterly results"),
    ("the score is 2 - 1", "text", "2-1"),
    ("the scoreboard shows 3-1", "text", "3-1"),
    ("a person", "people", "person"),
    ("someone", "people", "person"),
    ("a face on screen", "people", "face"),
    ("nobody", "people", ""),
    ("every time the score changes", "text", "score"),
    ("the scoreboard updates", "text", "scoreboard"),
    ("the score changes to 2-1", "text", "2-1"),
    ("a tabby cat", "visual", "a tabby cat"),
    ("a person riding a bike", "visual", "a person riding a bike"),
    # the viewer's verbs are not the person's actions
    ("the second person we see", "people", "person"),
    ("the man you meet first", "people", "person"),
]


@pytest.mark.parametrize(("query", "channel", "needle"), CASES)
def test_route(query, channel, needle):
    route = route_query(query)
    assert (route.channel, route.needle) == (channel, needle)


def test_nobody_asks_for_absence():
    assert route_query("no one on screen").absent
    assert not route_query("a person").absent


def test_the_score_changes_asks_for_a_change():
    assert route_query("the first time the score changes").change
    assert not route_query("the score changes to 2-1").change
