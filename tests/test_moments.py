"""Invariants of the interval core (Moments, tiou_matrix, time codes), checked with Hypothesis
and against naive pure-Python loops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.moments import Moments, tiou_matrix
from longground.timecode import format_time, parse_time

# Times on a 1/8 s grid are exact in binary, so shifting and subtracting them is exact too.
times = st.integers(0, 80_000).map(lambda v: v / 8)
lengths = st.integers(0, 4_000).map(lambda v: v / 8)
spans = st.tuples(times, lengths).map(lambda t: (t[0], t[0] + t[1]))
span_lists = st.lists(spans, max_size=12)
scores = st.integers(0, 1000).map(lambda v: v / 1000)


def naive_tiou(a: tuple, b: tuple) -> float:
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - inter
    return inter / union if union > 0 else 0.0


def as_array(items: list) -> np.ndarray:
    return np.array(items, dtype=np.float64).reshape(-1, 2)


# --- tIoU ---------------------------------------------------------------------------------


@given(span_lists, span_lists)
def test_tiou_matches_naive_loop(a, b):
    got = tiou_matrix(as_array(a), as_array(b))
    assert got.shape == (len(a), len(b))
    want = [[naive_tiou(x, y) for y in b] for x in a]
    np.testing.assert_allclose(got, np.array(want).reshape(len(a), len(b)), rtol=0, atol=1e-12)


@given(span_lists, span_lists)
def test_tiou_is_symmetric_and_bounded(a, b):
    ab = tiou_matrix(as_array(a), as_array(b))
    assert np.array_equal(ab, tiou_matrix(as_array(b), as_array(a)).T)
    assert np.all((ab >= 0) & (ab <= 1))


@given(span_lists)
def test_tiou_with_itself_is_one_for_positive_length(a):
    diag = np.diag(tiou_matrix(as_array(a), as_array(a)))
    lengths_s = as_array(a)[:, 1] - as_array(a)[:, 0]
    assert np.all(diag[lengths_s > 0] == 1.0)
    assert np.all(diag[lengths_s == 0] == 0.0)


@given(span_lists, span_lists, st.integers(-8_000, 8_000).map(lambda v: v / 8))
def test_tiou_is_shift_invariant(a, b, offset_s):
    before = tiou_matrix(as_array(a), as_array(b))
    after = tiou_matrix(as_array(a) + offset_s, as_array(b) + offset_s)
    assert np.array_equal(before, after)


def test_tiou_hand_worked():
    got = tiou_matrix(as_array([(0, 10)]), as_array([(5, 15), (0, 5), (10, 20), (3, 3)]))
    assert got.tolist() == [[5 / 15, 0.5, 0.0, 0.0]]


# --- NMS, merge, clip ---------------------------------------------------------------------


def naive_nms(items: list, item_scores: list, threshold: float) -> list[int]:
    order = sorted(range(len(items)), key=lambda i: -item_scores[i])  # stable: ties keep order
    kept: list[int] = []
    for i in order:
        if all(naive_tiou(items[i], items[k]) <= threshold for k in kept):
            kept.append(i)
    return kept


@given(
    st.lists(st.tuples(spans, scores), max_size=12),
    st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]),
)
def test_nms_matches_naive_loop(pairs, threshold):
    items = [p[0] for p in pairs]
    item_scores = [p[1] for p in pairs]
    moments = Moments(as_array(items), np.array(item_scores, dtype=np.float64))
    kept = naive_nms(items, item_scores, threshold)
    got = moments.nms(threshold)
    assert got.to_list() == [list(items[i]) for i in kept]
    assert got.scores.tolist() == [item_scores[i] for i in kept]


@given(span_lists)
def test_nms_without_scores_prefers_earlier_spans(items):
    kept = naive_nms(items, [-i for i in range(len(items))], 0.5)
    assert Moments(as_array(items)).nms(0.5).to_list() == [list(items[i]) for i in kept]


def naive_merge(items: list, item_scores: list, gap_s: float) -> tuple[list, list]:
    order = sorted(range(len(items)), key=lambda i: items[i][0])
    merged: list[list[float]] = []
    best: list[float] = []
    for i in order:
        start, end = items[i]
        if merged and start <= merged[-1][1] + gap_s:
            merged[-1][1] = max(merged[-1][1], end)
            best[-1] = max(best[-1], item_scores[i])
        else:
            merged.append([start, end])
            best.append(item_scores[i])
    return merged, best


@given(st.lists(st.tuples(spans, scores), max_size=12), st.integers(0, 80).map(lambda v: v / 8))
def test_merge_matches_naive_loop(pairs, gap_s):
    items = [p[0] for p in pairs]
    item_scores = [p[1] for p in pairs]
    got = Moments(as_array(items), np.array(item_scores, dtype=np.float64)).merge(gap_s)
    want_spans, want_scores = naive_merge(items, item_scores, gap_s)
    assert got.to_list() == want_spans
    assert got.scores.tolist() == want_scores
    if len(got) > 1:
        assert np.all(got.starts_s[1:] > got.ends_s[:-1] + gap_s)


def naive_clip(items: list, start_s: float, end_s: float) -> list:
    """By the definition: keep the part of each span inside the window; drop spans that share
    no time with it, except zero-length spans lying inside it."""
    out = []
    for s, e in items:
        lo, hi = max(s, start_s), min(e, end_s)
        if hi > lo or (s == e and start_s <= s <= end_s):
            out.append([lo, hi])
    return out


@given(span_lists, times, lengths)
def test_clip_matches_its_definition(items, start_s, length_s):
    end_s = start_s + length_s
    got = Moments(as_array(items)).clip(start_s, end_s)
    assert got.to_list() == naive_clip(items, start_s, end_s)
    assert np.all((got.spans >= start_s) & (got.spans <= end_s))


@given(span_lists, times, lengths, st.integers(0, 40).map(lambda v: v / 8))
def test_gaps_are_what_no_span_covers(items, start_s, length_s, min_s):
    """Every gap lies in the window, is at least `min_s` long and overlaps no span; and the
    gaps are the window's uncovered stretches of that length, walked naively."""
    end_s = start_s + length_s
    gaps = Moments(as_array(items)).gaps(start_s, end_s, min_s)
    for a, b in gaps.spans:
        assert start_s <= a < b <= end_s and b - a >= min_s
        assert all(e <= a or s >= b for s, e in items)
    covered = Moments(as_array(items)).clip(start_s, end_s).merge().spans.tolist()
    free = [start_s, *[t for span in covered for t in span], end_s]
    wide = [(a, b) for a, b in zip(free[::2], free[1::2]) if b - a >= max(min_s, 1e-9)]
    assert gaps.to_list() == [list(w) for w in wide]


@given(span_lists, st.integers(-800, 800).map(lambda v: v / 8))
def test_shift_and_sort(items, offset_s):
    moments = Moments(as_array(items))
    assert np.array_equal(moments.shift(offset_s).spans, as_array(items) + offset_s)
    assert moments.sorted().starts_s.tolist() == sorted(s for s, _ in items)


@pytest.mark.parametrize(
    "bad", [[[1.0, 0.0]], [[np.nan, 1.0]], [[0.0, np.inf]]], ids=["reversed", "nan", "inf"]
)
def test_moments_refuse_invalid_spans(bad):
    with pytest.raises(ValueError):
        Moments(np.array(bad))


# --- time codes ---------------------------------------------------------------------------


@given(st.integers(0, 400_000 * 10))
def test_format_then_parse_round_trips(tenths):
    seconds = tenths / 10
    text = format_time(seconds)
    assert abs(parse_time(text) - seconds) < 1e-6
    assert format_time(parse_time(text)) == text


@settings(max_examples=200)
@given(st.integers(0, 99), st.integers(0, 59), st.integers(0, 59), st.integers(0, 9))
def test_parse_then_format_round_trips(hours, minutes, secs, tenth):
    text = f"{hours:02d}:{minutes:02d}:{secs:02d}.{tenth}"
    assert format_time(parse_time(text)) == text
    assert parse_time(f"{minutes:02d}:{secs:02d}") == minutes * 60 + secs


@pytest.mark.parametrize("bad", ["12:60", "1:61:00", "abc", "-5", "nan", ""])
def test_parse_time_rejects_bad_text(bad):
    with pytest.raises(ValueError):
        parse_time(bad)
