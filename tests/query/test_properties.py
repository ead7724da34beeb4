"""Properties of the query analysis on queries put together from its own trigger words: any
query is read or refused with one line, never a crash, and what it reads is consistent."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.errors import UserError
from longground.query import analyse

# Words that set off a rule of the grammar, and plain words between them.
WORDS = """
the a an cat dog car man woman person face people slide caption text speech silence score
says said mentions word spoken written shown on screen not no nobody without with while when
after before right just as soon once then and both together alongside in frame first last
second time times shot scene what comes happens next previous every each how many often
count number of lots couple minutes minute seconds few five twenty-five half an hour at
around @ from to until between the start beginning end towards near 1:30 2:00-3:00 00:45
1:75 90 s 1 min 30 "GOAL" 'hello' SALE 2 - 1 -> , . ? ! : ( ) speech: on screen: OCR:
command ls /usr it is isn't can't we see there where please only them it does missing gone
anything but except longest shortest 3rd 2nd halfway midway through percent 10% 1h30 2m30
[00:12:00] runs chasing followed by music applause song phone number website HALF TIME DOG 🐶 🐱
explains start stop speaking talking one fewer than most up any how long total
""".split()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14))
def test_any_query_is_read_or_refused_in_one_line(words):
    query = " ".join(words)
    try:
        a = analyse(query)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert a.events and a.events[0].role == "target"
    assert all(e.route.channel in ("visual", "speech", "text", "people") for e in a.events)
    assert not (a.hidden and a.adjacent)
    if a.adjacent:
        assert len(a.events) == 2
    window = a.window_s(600.0)
    if window is not None:
        assert 0.0 <= window[0] <= window[1] <= 600.0


@pytest.mark.parametrize("query", ["?", "the", ", ,", "speech:", "no", "what comes after"])
def test_queries_of_only_grammar_words(query):
    try:
        analyse(query)
    except UserError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=60))
def test_any_text_is_read_or_refused_in_one_line(query):
    """Any characters at all (pictographs, marks, other scripts): read, or one line."""
    try:
        a = analyse(query)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert a.events and a.target.route.channel in ("visual", "speech", "text", "people")
