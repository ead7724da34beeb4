"""Retrieval grounding: the curve rules against naive loops, and the method on fake parts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from longground.errors import UserError
from longground.methods import MethodConfig
from longground.methods.curves import single_moment, smooth, threshold_moments, top_k_windows
from longground.methods.retrieval import RetrievalMethod, RetrievalParams


def naive_runs(scores, threshold):
    runs, start = [], None
    for i, s in enumerate(scores):
        if s >= threshold and start is None:
            start = i
        if s < threshold and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(scores) - 1))
    return runs


@pytest.mark.parametrize("seed", range(20))
def test_threshold_regions_match_naive_runs(seed):
    rng = np.random.default_rng(seed)
    scores = rng.random(200)
    times = np.arange(200.0)
    got = threshold_moments(times, scores, 1.0, threshold=0.7, merge_gap_s=0, min_len_s=0)
    want = [[float(a), float(b + 1)] for a, b in naive_runs(scores, 0.7)]
    assert got.to_list() == want
    for (a, b), peak in zip(naive_runs(scores, 0.7), got.scores):
        assert peak == scores[a : b + 1].max()


def test_threshold_merges_close_regions_and_drops_short_ones():
    times = np.arange(30.0)
    scores = np.zeros(30)
    scores[[2, 3, 5, 6]] = 1.0  # gap of one sample: merged with merge_gap_s=1
    scores[20] = 1.0  # a 1 s blip: dropped with min_len_s=2
    got = threshold_moments(times, scores, 1.0, threshold=0.5, merge_gap_s=1, min_len_s=2)
    assert got.to_list() == [[2.0, 7.0]]


def test_nothing_above_threshold_is_no_event():
    assert len(threshold_moments(np.arange(5.0), np.zeros(5), 1.0, threshold=0.1)) == 0


def test_single_moment_follows_the_beta_rule():
    times = np.arange(100.0)
    scores = np.zeros(100)
    scores[40:50] = 0.75
    scores[44] = 1.0
    scores[30:40] = 0.69  # just below beta * peak: not included
    got = single_moment(times, scores, 1.0, beta=0.7)
    assert got.to_list() == [[40.0, 50.0]]


@pytest.mark.parametrize(("width", "expected_len"), [(1, 4.0), (10, 10.0), (120, 60.0)])
def test_single_moment_duration_is_clipped_to_4_60(width, expected_len):
    times = np.arange(600.0)
    scores = np.zeros(600)
    scores[300 : 300 + width] = 1.0
    got = single_moment(times, scores, 1.0)
    assert got.lengths_s[0] == pytest.approx(expected_len)
    assert got.starts_s[0] >= 300 - 2 and got.ends_s[0] <= 300 + width + 2


def test_single_moment_stays_inside_the_video():
    got = single_moment(np.arange(10.0), np.eye(10)[0], 1.0, duration_s=10.0)
    assert got.to_list() == [[0.0, 4.0]]


def test_top_k_windows_respect_nms_spacing():
    times = np.arange(1000.0)
    scores = np.zeros(1000)
    scores[[100, 130, 500, 900]] = [1.0, 0.95, 0.9, 0.5]
    got = top_k_windows(times, scores, k=3, half_width_s=60, nms_s=60, duration_s=1000)
    centres = (got.starts_s + got.ends_s) / 2
    assert centres.tolist() == [100.0, 500.0, 900.0]  # 130 is within 60 s of 100
    assert got.lengths_s.tolist() == [120.0, 120.0, 120.0]


def test_smooth_keeps_length_and_mean_of_constant():
    assert np.allclose(smooth(np.full(7, 2.0), 3), 2.0)


@dataclass
class FakeTimeline:
    times_s: np.ndarray
    features: dict
    duration_s: float
    fps: float = 1.0  # times_s is 0, 1, 2, ...


class FakeStore:
    def __init__(self, timeline):
        self.timeline, self.calls = timeline, 0

    def get_or_build(self, video, encoder, fps):
        self.calls += 1
        return self.timeline


class FakeEncoder:
    """Scores are a fixed curve per query word."""

    default_threshold = 0.5

    def __init__(self, curves):
        self.curves = curves

    def score(self, features, text):
        return self.curves[text]


def make_method(curve, **params):
    times = np.arange(len(curve), dtype=float)
    store = FakeStore(FakeTimeline(times, {}, float(len(curve))))
    config = MethodConfig(params=params)
    return RetrievalMethod(config, encoder=FakeEncoder({"cat": np.asarray(curve)}), store=store)


def test_method_multi_mode_uses_encoder_threshold():
    curve = np.zeros(60)
    curve[10:20] = 0.9
    curve[40:45] = 0.8
    result = make_method(curve, smooth_s="1").ground(Path("v.mp4"), "cat")
    assert result.moments.to_list() == [[10.0, 20.0], [40.0, 45.0]]


def test_method_absent_query_returns_nothing():
    result = make_method(np.full(60, 0.2)).ground(Path("v.mp4"), "cat")
    assert result.moments.count == 0


def test_method_single_and_topk_modes():
    curve = np.zeros(300)
    curve[100:110] = 1.0
    single = make_method(curve, mode="single", smooth_s="1").ground(Path("v"), "cat")
    assert single.moments.to_list() == [[100.0, 110.0]]
    topk = make_method(curve, mode="topk", k="1", smooth_s="1").ground(Path("v"), "cat")
    assert topk.moments.to_list() == [[40.0, 160.0]]


@pytest.mark.parametrize(
    ("params", "message"),
    [({"bogus": "1"}, "unknown parameter"), ({"beta": "x"}, "is not a finite number"),
     ({"mode": "all"}, "mode must be")],
)  # fmt: skip
def test_bad_params_are_user_errors(params, message):
    with pytest.raises(UserError, match=message):
        RetrievalParams.from_config(MethodConfig(params=params))


def test_empty_query_is_a_user_error():
    with pytest.raises(UserError, match="empty"):
        make_method(np.zeros(5)).ground(Path("v"), "  ")
