"""The shapes models write for Charades-STA (tests/answers/charades_answers.py): the parsed
mIoU of 3,720 answers stays within a point of the oracle's, and each class of wording the
parser learned for it reads right in its variants."""

from __future__ import annotations

import numpy as np
import pytest

from longground.answers import parse_answer
from tests.answers.charades_answers import measure


def test_3720_charades_answers_score_within_a_point_of_the_oracle(tmp_path):
    m = measure(tmp_path)
    assert m["oracle"] > 0.5  # the stated intervals are near, not on, the ground truth
    assert abs(m["parsed"] - m["oracle"]) <= 0.01, (m["parsed"], m["oracle"])
    assert m["parse_failures"] <= 3720 // 200


# One row per class of wording, with variants of verb, unit and punctuation.
CLASSES = [
    # a start and how long it lasts
    ("The event starts at 24.3 seconds and lasts for 6.1 seconds.", None, [[24.3, 30.4]]),
    ("The person begins at 3s, lasting 4.5s.", None, [[3.0, 7.5]]),
    ("It starts at 00:10 and lasts about 5 seconds.", None, [[10.0, 15.0]]),
    ("The action occurs at 12 s and runs for 3 s.", None, [[12.0, 15.0]]),
    ("Starting at 2 seconds, with a duration of 8 seconds.", None, [[2.0, 10.0]]),
    # ordinals
    ("The event happens from the 24th second to the 30th second.", None, [[24.0, 30.0]]),
    ("'person sits down' takes place between the 3rd and 9th seconds.", None, [[3.0, 9.0]]),
    ("From the 1st to the 22nd second.", None, [[1.0, 22.0]]),
    # second N
    ("From second 3 to second 9.5.", None, [[3.0, 9.5]]),
    ("It happens between second 12 and second 20.", None, [[12.0, 20.0]]),
    # both labels, then both times
    ("The start and end times of the event are 4.2 and 9.8 seconds.", None, [[4.2, 9.8]]),
    ("Start and end timestamps: 00:04, 00:09", None, [[4.0, 9.0]]),
    ("The beginning and end times are 2 to 6 seconds.", None, [[2.0, 6.0]]),
    # an event verb placing the start, then the end
    ("The event happens at 5 seconds and ends at 12 seconds.", None, [[5.0, 12.0]]),
    ("It occurs at 1:05 and finishes at 1:20.", None, [[65.0, 80.0]]),
    # the opening or closing stretch, when no range is named
    ("The event happens in the first 13 seconds of the video.", None, [[0.0, 13.0]]),
    ("It happens during the last 5 s.", 30.0, [[25.0, 30.0]]),
    ("In the opening 2 minutes.", None, [[0.0, 120.0]]),
    # an event placed over the whole video is an answer, not the video's extent
    ("In the video, the person opening a bag occurs at around 0 to 8 seconds.", 8.3,
     [[0.0, 8.0]]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "duration_s", "expected"), CLASSES)
def test_classes_of_wording(text, duration_s, expected):
    parsed = parse_answer(text, duration_s)
    assert parsed.moments is not None, parsed.error
    np.testing.assert_allclose(parsed.moments.spans, np.array(expected, float))


# What the new classes must not take for an answer.
NOT_ANSWERS = [
    ("The last 5 people leave.", 60.0),  # a count, not a length
    ("In the last 5 s of the clip.", None),  # the closing stretch needs the video's length
    ("The first person enters.", None),
]


@pytest.mark.parametrize(("text", "duration_s"), NOT_ANSWERS)
def test_what_the_classes_leave_alone(text, duration_s):
    assert parse_answer(text, duration_s).moments is None


@pytest.mark.parametrize(
    ("text", "duration_s", "expected"),
    [
        # a range beats the opening stretch mentioned beside it
        ("In the first 10 seconds nothing happens; it occurs from 12 s to 18 s.", None,
         [[12.0, 18.0]]),
        # a start and an end beat a start and a length read from the same words
        ("It starts at 10 s, looking for 2 s, and ends at 20 s.", None, [[10.0, 20.0]]),
        # the video's own extent is still not an answer
        ("The video is 0 - 60 s long; the event happens from 10 to 20 s.", 60.0, [[10.0, 20.0]]),
    ],
)  # fmt: skip
def test_the_classes_do_not_override_plainer_readings(text, duration_s, expected):
    np.testing.assert_allclose(parse_answer(text, duration_s).moments.spans, np.array(expected))
