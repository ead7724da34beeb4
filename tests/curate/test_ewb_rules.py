"""The rules `build ewb` enforces in code, against naive restatements and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.curate.ewb_rules import (
    covered,
    grid_times,
    group_by_gap,
    keep_top,
    question_problem,
    word_count,
)


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        ("When does the woman in the blue coat first open the front door?", None),
        ("When does the dog jump?", "5 words (8-18 allowed)"),
        ("When " + "very " * 17 + "late?", "19 words (8-18 allowed)"),
        ("In which scene does the woman in the blue coat open the door?", "cinematic word 'scene'"),
        ("When does the CAMERA move past the woman in the blue coat?", "cinematic word 'camera'"),
        # a word that merely contains a banned one is fine
        ("When does the woman in the blue coat scatter the cutlery?", None),
    ],
)
def test_question_rules(question, problem):
    assert question_problem(question) == problem


def test_the_word_list_can_be_set():
    q = "When does the referee blow the whistle for the second time?"
    assert question_problem(q) is None
    assert question_problem(q, banned=("whistle",)) == "cinematic word 'whistle'"
    assert word_count("the man's half-time drink") == 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 5000, allow_nan=False), max_size=40), st.integers(1, 15))
def test_groups_partition_in_time_order(starts, max_size):
    starts = np.array(starts)
    groups = group_by_gap(starts, max_size=max_size, gap_s=300.0)
    flat = [i for g in groups for i in g]
    assert sorted(flat) == list(range(len(starts)))
    assert list(starts[flat]) == sorted(starts)
    for g in groups:
        assert 1 <= len(g) <= max_size
        assert all(starts[b] - starts[a] <= 300.0 for a, b in zip(g, g[1:], strict=False))
    for g, h in zip(groups, groups[1:], strict=False):  # a group ends for a reason
        assert len(g) == max_size or starts[h[0]] - starts[g[-1]] > 300.0


def naive_keep_top(scores, share=0.3, min_score=7.0):
    n = math.ceil(share * len(scores))
    ranked = sorted(enumerate(scores), key=lambda p: (-p[1], p[0]))
    return [i for i, s in ranked[:n] if s >= min_score]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 10), max_size=15))
def test_keep_top_matches_naive(scores):
    got = keep_top([float(s) for s in scores])
    assert got == naive_keep_top(scores)
    assert len(got) <= math.ceil(0.3 * len(scores)) and all(scores[i] >= 7 for i in got)


def test_grid_times_skip_empty_time_and_cap():
    t = grid_times(np.array([[0.0, 5.0], [500.0, 505.0]]), 1000.0, pad_s=10.0)
    assert t[0] == 0.0 and 16.0 not in t and 490.0 in t and t[-1] == 515.0
    long = grid_times(np.array([[0.0, 5000.0]]), 6000.0, max_frames=64)
    assert len(long) == 64 and long[0] == 0.0


def test_covered_needs_the_whole_gt_inside_one_window():
    windows = np.array([[0.0, 120.0], [110.0, 230.0]])
    assert covered((10, 20), windows) and covered((115, 225), windows)
    assert not covered((100, 130), np.array([[0.0, 120.0]]))
    assert not covered((10, 20), np.zeros((0, 2)))
