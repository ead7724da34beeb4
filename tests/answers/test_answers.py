"""parse_answer on realistic model answers: JSON, timestamps, prose, refusals, garbage."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.answers import moments_from_json, parse_answer, text_ranges, time_value
from longground.errors import UserError
from longground.query.windows import extract_window, time_to_s
from longground.timecode.grammar import amount_s, clock_s

FAIL = None  # expected moments for a parse failure

# (answer, duration_s, expected spans | [] for "no such event" | FAIL, expected invalid count)
CASES = [
    # --- JSON -------------------------------------------------------------------------------
    ("[[12.5, 20.0], [40, 48]]", None, [[12.5, 20.0], [40, 48]], 0),
    ("```json\n[[100, 130], [900, 930]]\n```", 3600, [[100, 130], [900, 930]], 0),
    ('```json\n{"intervals": [[5, 9]], "count": 1}\n```', None, [[5, 9]], 0),
    (
        'Here is my answer:\n```\n{"moments": [{"start": 61, "end": 75}]}\n```\nHope it helps!',
        None,
        [[61, 75]],
        0,
    ),
    (
        '[{"start_time": "00:01:02", "end_time": "00:01:10"}, {"start_time": "00:05:00", '
        '"end_time": "00:05:30"}]',
        None,
        [[62, 70], [300, 330]],
        0,
    ),
    ('{"start_s": 12.0, "end_s": 18.5}', None, [[12, 18.5]], 0),
    ('{"timestamps": [["0:45", "1:10"]]}', None, [[45, 70]], 0),
    ("The relevant windows are [10, 20] and [35, 50].", None, [[10, 20], [35, 50]], 0),
    ('["00:01:00-00:02:00", "00:05:00-00:06:00"]', None, [[60, 120], [300, 360]], 0),
    ("[[30, 10]]", None, FAIL, 1),
    ("[[NaN, 10], [5, 8]]", None, [[5, 8]], 1),
    ("[[1, 2, 3, 4], [5, 8], [9]]", None, [[5, 8]], 2),
    ("Final answer: [[5, 10]]\n\nNote: earlier I also considered 50-60 s.", None, [[5, 10]], 0),
    ("[[10, 20], [10, 20]]", None, [[10, 20], [10, 20]], 0),
    # --- explicit empty answers -------------------------------------------------------------
    ("[]", None, [], 0),
    ('```json\n{"count": 0, "intervals": []}\n```', None, [], 0),
    ("Answer: []", 3600, [], 0),
    ("I will output [] when nothing matches. The event: 10-20 s.", None, [[10, 20]], 0),
    # --- timestamps and prose ranges --------------------------------------------------------
    ("The event occurs from 00:12:05 to 00:12:31.", None, [[725, 751]], 0),
    ("12:05 - 12:31", None, [[725, 751]], 0),
    ("The man opens the door at 1:02:03.5–1:02:10.", None, [[3723.5, 3730]], 0),
    (
        "It happens 3 times: 1:05-1:20, 5:30–5:45, and 10:00 ~ 10:12.",
        None,
        [[65, 80], [330, 345], [600, 612]],
        0,
    ),
    ("**00:03:10 — 00:03:25**: the goalkeeper dives.", None, [[190, 205]], 0),
    ("The answer is: 10 - 20 seconds", None, [[10, 20]], 0),
    ("The person sits down between 34.2s and 41.8s.", None, [[34.2, 41.8]], 0),
    ("It happens from 5-min to 7-min.", None, [[300, 420]], 0),
    ("The dog runs 2-3 minutes in.", None, [[120, 180]], 0),
    ("From 2 to 3 minutes into the video the dog runs.", 600, [[120, 180]], 0),
    ("Around 1 min 5 s to 1 min 20 s, and again at 2m30s-2m45s.", None, [[65, 80], [150, 165]], 0),
    ("Start time: 12.5s, End time: 20s", None, [[12.5, 20]], 0),
    ("The event starts at 00:01:10 and ends at 00:01:25.", None, [[70, 85]], 0),
    ("The clip where she laughs begins at 4:10 and lasts until 4:31.", None, [[250, 271]], 0),
    ("The event can be found at [00:01:02, 00:01:10].", None, [[62, 70]], 0),
    ("(10.5, 20.0)", None, [[10.5, 20]], 0),
    ("Between 75:30 and 76:10.", 5400, [[4530, 4570]], 0),
    ("There are 2-3 people dancing from 00:10 to 00:20.", None, [[10, 20]], 0),
    ("The goal is scored from 30 to 10 seconds.", None, FAIL, 1),
    ("from 10% to 20% of the video", 1000, [[100, 200]], 0),
    ("from 10% to 20% of the video", None, FAIL, 0),
    ("The event happens from 10 to 20 s. So the answer is 10 to 20 s.", None, [[10, 20]], 0),
    (
        "<think>The video is 60 minutes. Maybe 10-20 s? No, later.</think>\n"
        "The dog appears from 00:30:00 to 00:30:15.",
        3600,
        [[1800, 1815]],
        0,
    ),
    # --- mentions of the video's duration ---------------------------------------------------
    (
        "The video is 3600 seconds long. The man enters the room from 120 to 150 seconds.",
        3600,
        [[120, 150]],
        0,
    ),
    (
        "In this 01:00:00 video, the person opens the door at 00:10:00 - 00:10:30.",
        3600,
        [[600, 630]],
        0,
    ),
    (
        "The video runs from 00:00:00 to 01:00:00. The dog barks between 00:20:00 and 00:20:10.",
        3600,
        [[1200, 1210]],
        0,
    ),
    ("The video runs from 0 to 3600 seconds and the event is at 100-110 s.", None, [[100, 110]], 0),
    ("Video length: 0-5400 s. Event: 5-9 s", 5400, [[5, 9]], 0),
    (
        "The whole clip (00:00-60:00) shows a kitchen; the kettle boils at 12:00-12:30.",
        3600,
        [[720, 750]],
        0,
    ),
    ("This 90-minute video is long. The event occurs at 45 minutes.", 5400, FAIL, 0),
    ("In this 1-hour video, the dog is never shown.", 3600, [], 0),
    ("In the video, the man walks from 0 to 15 seconds.", None, [[0, 15]], 0),
    # --- "no such event" --------------------------------------------------------------------
    ("None", None, [], 0),
    ("No such event.", None, [], 0),
    ("There is no person riding a horse in this video.", None, [], 0),
    ("The event does not occur in the video.", 3600, [], 0),
    ("The queried moment never happens in this clip.", None, [], 0),
    ("I could not find any moment where the cat jumps.", None, [], 0),
    ("No matching moments were found.", None, [], 0),
    ("The man doesn't appear at all.", None, [], 0),
    ("The event does not occur between 00:10 and 00:20.", None, [[10, 20]], 0),
    # --- refusals and garbage ---------------------------------------------------------------
    ("I'm sorry, but I cannot view videos.", None, FAIL, 0),
    ("As an AI language model, I am unable to watch the video.", None, FAIL, 0),
    ("It is unclear from the frames provided.", None, FAIL, 0),
    ("asdfgh qwerty", None, FAIL, 0),
    ("The person is wearing a red shirt.", None, FAIL, 0),
    ("The event occurs at 45 seconds.", None, FAIL, 0),
    ("12:30", None, FAIL, 0),
    ("", None, FAIL, 0),
    ("   \n", None, FAIL, 0),
    ("<think>Let me look at the frames carefully.</think>", None, FAIL, 0),
    ('{"video_duration": 3600}', 3600, FAIL, 0),
    ("No.", None, FAIL, 0),
]


@pytest.mark.parametrize(("text", "duration_s", "expected", "invalid"), CASES)
def test_parse_answer(text, duration_s, expected, invalid):
    parsed = parse_answer(text, duration_s)
    assert parsed.invalid_intervals == invalid
    if expected is FAIL:
        assert parsed.moments is None
        assert isinstance(parsed.error, str) and parsed.error
    else:
        assert parsed.error is None, parsed.error
        assert parsed.moments is not None
        assert parsed.moments.to_list() == [[float(s), float(e)] for s, e in expected]


def test_there_are_at_least_forty_cases():
    assert len(CASES) >= 40


def test_failure_and_empty_are_told_apart():
    empty, failed = parse_answer("[]"), parse_answer("banana")
    assert empty.moments is not None and empty.moments.count == 0 and empty.error is None
    assert failed.moments is None and failed.error


def test_scores_are_kept_when_every_interval_has_one():
    parsed = parse_answer('[{"start": 10, "end": 20, "score": 0.9}, [30, 45, 0.5]]')
    assert parsed.moments.scores.tolist() == [0.9, 0.5]
    mixed = parse_answer('[{"start": 10, "end": 20, "score": 0.9}, [30, 45]]')
    assert mixed.moments.scores is None and mixed.moments.count == 2


def test_refusal_message_says_so():
    assert "declined" in parse_answer("I cannot determine the timestamps.").error


def test_percent_without_duration_names_the_cause():
    assert "duration" in parse_answer("from 10% to 20%").error


def test_all_invalid_is_a_failure_not_a_rejection():
    parsed = parse_answer("[[50, 40], [9, 3]]")
    assert parsed.moments is None and parsed.invalid_intervals == 2
    assert "invalid" in parsed.error


def test_moments_from_json_rejects_non_lists():
    assert moments_from_json("10-20").moments is None
    assert moments_from_json({"foo": 1}).moments is None
    assert moments_from_json([]).moments.count == 0


def test_time_value_units():
    assert time_value("1h 2m 3s") == 3723.0
    assert time_value("75:30") == 4530.0
    assert time_value("1:75:00") is None
    assert time_value("12 apples") is None


# One grammar of times: the answer parser and the agent's query windows read these alike.
SHARED_TIMES = [
    ("1:02:03", 3723.0),
    ("1:02:03.5", 3723.5),
    ("12:05", 725.0),
    ("75:30", 4530.0),
    ("123:45", 7425.0),
    ("90 s", 90.0),
    ("90 sec", 90.0),
    ("90 secs", 90.0),
    ("90 seconds", 90.0),
    ("1.5 minutes", 90.0),
    ("2 min 5 s", 125.0),
    ("2m30s", 150.0),
    ("1h2m3s", 3723.0),
    ("2 hours", 7200.0),
    ("1 hr", 3600.0),
    ("10-minute", 600.0),
    ("10 - min", 600.0),
    ("3 H", 10800.0),
    ("1h30", 5400.0),  # the smaller unit unsaid
    ("2m30", 150.0),
]


@pytest.mark.parametrize(("text", "seconds"), SHARED_TIMES)
def test_answers_and_query_windows_read_times_alike(text, seconds):
    assert time_value(text) == seconds
    assert time_to_s(text) == seconds
    assert extract_window(f"a cat after {text}", 20_000.0)[0] == (seconds, 20_000.0)


@pytest.mark.parametrize("text", ["1h75", "12 apples", "10 -", "soon", "5 mins2"])
def test_not_a_time_for_either(text):
    assert time_value(text) is None
    assert extract_window(f"a cat after {text}", 10_000.0)[0] is None


def test_out_of_range_clock_times():
    assert clock_s("1:75:00") is None and clock_s("12:60") is None
    assert time_value("1:75:00") is None
    with pytest.raises(ValueError, match="clock time"):
        time_to_s("1:75:00")
    with pytest.raises(UserError, match=r"query 'a cat after 1:75:00': not a valid clock"):
        extract_window("a cat after 1:75:00", 10_000.0)


def test_amounts_sum_every_unit():
    assert amount_s("1 hour and 5 minutes") == 3900.0
    assert amount_s("no units here 12") is None


def test_text_ranges_reports_reversed_ranges():
    spans, invalid, unresolved = text_ranges("from 00:20 to 00:10, then 00:30-00:40")
    assert spans == [(30.0, 40.0)] and invalid == 1 and not unresolved


def test_overflowing_numbers_are_invalid_not_a_crash():
    huge = "9" * 400
    assert parse_answer(f"from 1 to {huge} s").invalid_intervals == 1
    assert parse_answer(f"[[1, {huge}], [2, 3]]").moments.to_list() == [[2.0, 3.0]]


@given(st.text(max_size=200))
def test_never_raises_on_any_text(text):
    parsed = parse_answer(text, 600.0)
    assert (parsed.moments is None) == (parsed.error is not None)
    if parsed.moments is not None:
        assert all(math.isfinite(v) for v in parsed.moments.spans.ravel())


TOKENS = [
    "00:12", "1:02:03.5", "75:30", "12.5", "3", "s", " seconds", "%", " min ", "-", " to ",
    "~", "–", "between ", " and ", "from ", "[", "]", "{", "}", ",", '"start": ', '"end": ',
    "NaN", "null", "none", " video ", " long", "starts at ", " ends at ", "<think>",
    "</think>", "Answer:", " ", "\n", "```json\n", "```", "no such event", "cannot view",
]  # fmt: skip


@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join), st.sampled_from([None, 60.0]))
def test_never_raises_on_answer_like_text(text, duration_s):
    parsed = parse_answer(text, duration_s)
    assert (parsed.moments is None) == (parsed.error is not None)
    assert parsed.invalid_intervals >= 0


spans_st = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 500)).map(
        lambda t: [t[0] / 4, (t[0] + t[1]) / 4]
    ),
    min_size=1,
    max_size=8,
)


@given(spans_st)
def test_json_round_trip(spans):
    import json

    assert parse_answer(json.dumps(spans)).moments.to_list() == spans


@given(spans_st)
def test_clock_round_trip(spans):
    from longground.timecode import format_time

    text = "; ".join(f"{format_time(s, 2)} - {format_time(e, 2)}" for s, e in spans)
    unique = []
    for span in spans:
        if span not in unique:
            unique.append(span)
    assert parse_answer(text).moments.to_list() == unique
