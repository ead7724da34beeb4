"""When the score on screen changes: read from OCR lines, misreadings and clocks left out."""

from __future__ import annotations

import pytest

from longground.channels.changes import read_score, score_changes
from longground.channels.evidence import Readings


@pytest.mark.parametrize(
    ("line", "score"),
    [("HOME 2-1 AWAY", (2, 1)), ("HOME2-1AWAY", (2, 1)), ("HOMEO-OAWAY", (0, 0)),
     ("2 : 1", (2, 1)), ("3 – 0", (3, 0)), ("Quarterly Results", None), ("v1.2-3.4", None)],
)  # fmt: skip
def test_read_score(line, score):
    assert read_score(line) == score


def frames(*rows):
    """One reading per (start_s, end_s, lines...)."""
    return Readings.from_rows([(a, b, text, 0.9) for a, b, *lines in rows for text in lines])


def test_changes_are_where_the_score_becomes_another():
    readings = frames((10, 20, "HOME 0-0 AWAY"), (20, 25, "HOME 0-0 AWAY", "GOAL"),
                      (25, 31, "HOME 1-0 AWAY"), (31, 40, "HOME 1-1 AWAY"))  # fmt: skip
    moments, details = score_changes(readings)
    assert moments.to_list() == [[24.0, 26.0], [30.0, 32.0]]
    assert [c["score"] for c in details["changes"]] == ["1-0", "1-1"]


def test_a_single_misreading_and_a_clock_are_no_change():
    readings = frames((0, 5, "HOME 1-0 AWAY", "12:30"), (5, 6, "HOME 1-8 AWAY", "12:31"),
                      (6, 9, "HOME 1-0 AWAY", "12:34"), (9, 12))  # fmt: skip
    assert len(score_changes(readings)[0]) == 0
    assert len(score_changes(Readings.from_rows([]))[0]) == 0
