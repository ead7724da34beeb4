"""Reading moments off each channel's evidence, on hand-made values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.channels import People, Readings, Transcript
from longground.channels.match import (
    KEYWORD_STANDOUT,
    STANDOUT_CUES,
    _standout,
    people_moments,
    speech_moments,
    text_moments,
)
from longground.moments import Moments


def transcript():
    words = [(1.0, 1.3, "talk"), (1.3, 1.6, "about"), (1.6, 2.2, "budget"),
             (10.0, 10.5, "but"), (10.5, 10.9, "it"), (20.0, 20.6, "elephants")]  # fmt: skip
    return Transcript.from_words(words, Moments.from_list([[0.8, 2.4], [9.8, 11.0], [19.8, 21]]))


def test_speech_exact_and_by_sound():
    moments, details = speech_moments(transcript(), "the budget")
    assert moments.to_list()[0] == [0.8, 2.4]
    assert speech_moments(transcript(), "elephant")[0].to_list() == [[19.8, 21.0]]
    assert len(speech_moments(transcript(), "volcano")[0]) == 0


def test_speech_itself_and_the_silences_between():
    """No needle: every segment, or the gaps of at least SILENCE_MIN_S (the 2.4-9.8 s and
    11-19.8 s gaps, and the end; not the first 0.8 s)."""
    anything, details = speech_moments(transcript(), "")
    assert anything.to_list() == [[0.8, 2.4], [9.8, 11.0], [19.8, 21.0]]
    assert details["any"] == "speech"
    silences, _ = speech_moments(transcript(), "", absent=True, duration_s=30.0)
    assert silences.to_list() == [[2.4, 9.8], [11.0, 19.8], [21.0, 30.0]]


def test_any_text_is_every_line_read():
    readings = Readings.from_rows([(5.0, 9.0, "HOME", 0.9), (9.5, 12.0, "AWAY", 0.9),
                                   (30.0, 31.0, "Budget", 0.95)])  # fmt: skip
    assert text_moments(readings, "")[0].to_list() == [[5.0, 12.0], [30.0, 31.0]]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("phone", [[0.0, 4.0]]), ("email", [[10.0, 14.0]]), ("url", [[20.0, 24.0]]),
     ("price", [[30.0, 34.0]]), ("date", [[60.0, 64.0]])],
)  # fmt: skip
def test_a_kind_of_text_without_its_words(kind, expected):
    """"A phone number on screen": the lines that hold one, not the score or the title."""
    readings = Readings.from_rows([
        (0.0, 4.0, "Call 0800 123 4567", 0.9), (10.0, 14.0, "news@example.org", 0.9),
        (20.0, 24.0, "www.longground.tv", 0.9), (30.0, 34.0, "Only $9.99", 0.9),
        (40.0, 44.0, "HOME 2-1 AWAY", 0.9), (50.0, 54.0, "Budget Review 2026", 0.9),
        (60.0, 64.0, "Opening 12 March", 0.9),
    ])  # fmt: skip
    moments, details = text_moments(readings, "", kind)
    assert moments.to_list() == expected and details["kind"] == kind


def test_text_holds_interval_and_reads_score_zeros():
    readings = Readings.from_rows([(5.0, 9.0, "HOMEO-OAWAY", 0.9), (9.0, 12.0, "HOME1-0AWAY", 0.9),
                                   (12.0, 20.0, "Budget Review", 0.95)])  # fmt: skip
    assert text_moments(readings, "0-0")[0].to_list() == [[5.0, 9.0]]
    assert text_moments(readings, "1-0")[0].to_list() == [[9.0, 12.0]]
    assert text_moments(readings, "budget review")[0].to_list() == [[12.0, 20.0]]
    assert len(text_moments(readings, "2-2")[0]) == 0


def test_people_runs_and_absence():
    persons = np.array([0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0])
    people = People(np.arange(12.0), persons * 0, persons)
    assert people_moments(people, "person", False)[0].to_list() == [[1.0, 7.0]]
    assert people_moments(people, "face", False)[0].to_list() == []
    assert people_moments(people, "", True)[0].to_list() == [[7.0, 10.0]]  # runs of 1 drop


def test_people_at_once():
    """"Two people": the frames with exactly two; "more than one person": two or more."""
    persons = np.array([1, 2, 2, 2, 1, 3, 3, 3, 1, 1])
    people = People(np.arange(10.0), persons * 0, persons)
    two, details = people_moments(people, "person", False, least=2, most=2)
    assert two.to_list() == [[1.0, 4.0]] and details["at_once"] == [2, 2]
    assert people_moments(people, "person", False, least=2)[0].to_list() == [[1.0, 8.0]]
    assert people_moments(people, "person", False, least=1, most=1)[0].to_list() == [[8.0, 10.0]]
    assert "at_once" not in people_moments(people, "person", False)[1]


def test_text_phrase_split_into_boxes_is_found_on_its_frame():
    readings = Readings.from_rows([(5.0, 9.0, "HALF", 0.9), (5.0, 9.0, "TIME", 0.9),
                                   (9.0, 12.0, "HALF", 0.9)])  # fmt: skip
    assert text_moments(readings, "half time")[0].to_list() == [[5.0, 9.0]]


def test_a_numeral_is_listened_for_as_it_is_said():
    """The recogniser writes "seven", never "7": a needle's numerals are spelled out."""
    said = Transcript.from_words([(1.0, 1.5, "room"), (1.5, 2.0, "seven")],
                                 Moments.from_list([[0.8, 2.2]]))  # fmt: skip
    assert speech_moments(said, "7")[0].to_list() == [[0.8, 2.2]]
    assert speech_moments(said, "the 7th")[0].to_list() == []


def test_a_spotted_word_counts_only_above_its_null_words():
    """Spotted in all three cues (above `KEYWORD_MATCH`); kept where it fits better than the
    best null word, or where no null word was heard at all."""
    spotted = {"scores": [-0.004, -0.004, -0.005],
               "null_best": [["garden", -0.006], ["river", -0.003], None]}  # fmt: skip
    found, details = speech_moments(transcript(), "volcano", spotted)
    assert found.to_list() == [[0.8, 2.4], [19.8, 21.0]]
    assert [d["segment"] for d in details["rejected"]] == [1]
    assert details["rejected"][0]["null"] == ["river", -0.003]


def test_a_spotted_word_must_stand_out_from_the_rest_of_the_talk():
    """Eight cues; the needle beats its null words in cues 0 and 5, but in cue 5 it fits only
    as well as it fits most cues (a word not said winning some cue of a long video by chance):
    only cue 0, where it fits clearly better than its median over the other cues, is kept."""
    cues = Moments.from_list([[10.0 * i, 10.0 * i + 2] for i in range(8)])
    talk = Transcript.from_words([(10.0 * i + 0.5, 10.0 * i + 1.0, "so") for i in range(8)], cues)
    scores = [-0.003, -0.0075, -0.0072, None, -0.0068, -0.0062, -0.007, -0.0074]
    spotted = {"scores": scores, "null_best": [["garden", -0.0065]] * 8}
    found, details = speech_moments(talk, "volcano", spotted)
    assert found.to_list() == [[0.0, 2.0]]
    (rejected,) = details["rejected"]
    assert rejected["segment"] == 5 and rejected["standout"] < KEYWORD_STANDOUT
    # the same scores in a video of too few cues for a median: both kept
    few, _ = speech_moments(
        Transcript.from_words([], Moments.from_list([[0, 2], [10, 12]])), "volcano",
        {"scores": [-0.003, -0.0062], "null_best": [["garden", -0.0065]] * 2},
    )
    assert few.count == 2


@given(st.lists(st.one_of(st.floats(-0.02, 0.0), st.just(-np.inf)), max_size=12))
def test_standout_is_the_score_less_the_lower_median_of_the_others(scores):
    """`_standout` against a naive reference: per cue, its score less the lower median of
    the other cues' scores (no detection lowest); `inf` where there are too few others or
    the median is no detection."""
    got = _standout(np.array(scores, np.float64))
    for i, score in enumerate(scores):
        others = sorted(scores[:i] + scores[i + 1 :])
        median = others[(len(others) - 1) // 2] if len(others) >= STANDOUT_CUES else -np.inf
        want = np.inf if median == -np.inf else score - median
        assert got[i] == pytest.approx(want) or (np.isneginf(want) and np.isneginf(got[i]))
