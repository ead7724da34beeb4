"""Metric layer: every vectorised metric against the naive reference loops on randomised
inputs, invariants, and the hand-worked examples of issue 2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground import Moments, Prediction, Sample
from longground.eval import evaluate, padded, reference
from longground.eval.counting import mean_absolute_error, off_by_one_accuracy, pearson
from longground.eval.grounding import best_iou_per_gt, greedy_match
from longground.eval.padded import batched_tiou, pad_spans, query_chunks
from longground.eval.rejection import false_positive_rate, positive_coverage, rejection_f1

COMET_KEYS = ("mae", "obo", "pearson", "miou", "rej_rate", "pos_cov", "rej_f1", "fpr")


# ----------------------------------------------------------------------------- helpers
def random_spans(rng: np.random.Generator, k: int, grid: bool) -> list[tuple[float, float]]:
    """k spans; on a coarse integer grid they tie and hit thresholds exactly."""
    if grid:
        starts = rng.integers(0, 12, k).astype(float)
        lengths = rng.integers(0, 6, k).astype(float)
    else:
        starts = rng.uniform(0, 100, k)
        lengths = rng.exponential(8, k)
    return [(float(s), float(s + n)) for s, n in zip(starts, lengths, strict=True)]


def random_benchmark(seed: int, n_queries: int, grid: bool):
    """Samples, predictions (some missing, some unparsed) and the same as plain lists."""
    rng = np.random.default_rng(seed)
    samples, predictions, gts, preds, answered = [], [], [], [], []
    for q in range(n_queries):
        gt = random_spans(rng, int(rng.choice(7, p=[0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05])), grid)
        pred = random_spans(rng, int(rng.integers(0, 8)), grid)
        kind = rng.choice(3, p=[0.85, 0.08, 0.07])  # answered, missing, parse failure
        samples.append(Sample(f"q{q}", "v.mp4", 600.0, "query", Moments.from_list(gt)))
        if kind == 0:
            predictions.append(Prediction(f"q{q}", Moments.from_list(pred)))
        elif kind == 2:
            predictions.append(Prediction(f"q{q}", None, raw="?", parse_error="no answer"))
        gts.append(gt)
        preds.append(pred if kind == 0 else [])
        answered.append(bool(kind == 0))
    return samples, predictions, gts, preds, answered


def comet_result(gt: list, pred: list, theta: float = 0.5) -> dict:
    """Headline comet metrics for one query given as span lists."""
    sample = Sample("q", "v", 100.0, "query", Moments.from_list(gt))
    return evaluate([sample], [Prediction("q", Moments.from_list(pred))], theta=theta).metrics


def close(a, b) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or math.isnan(b)
    return b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ------------------------------------------------------------------ functional layer
@pytest.mark.parametrize("grid", [True, False])
def test_batched_tiou_matches_pairwise_loop(grid):
    rng = np.random.default_rng(1)
    a = [random_spans(rng, int(rng.integers(0, 5)), grid) for _ in range(50)]
    b = [random_spans(rng, int(rng.integers(0, 5)), grid) for _ in range(50)]
    iou = batched_tiou(
        pad_spans([np.array(x).reshape(-1, 2) for x in a]),
        pad_spans([np.array(x).reshape(-1, 2) for x in b]),
    )
    for q in range(50):
        for i, span_a in enumerate(a[q]):
            for j, span_b in enumerate(b[q]):
                assert iou[q, i, j] == reference.tiou(span_a, span_b)
    assert iou.min() >= 0.0 and iou.max() <= 1.0


@pytest.mark.parametrize("seed", range(3))
def test_greedy_match_matches_naive_walk(seed):
    rng = np.random.default_rng(seed)
    gts = [random_spans(rng, int(rng.integers(0, 6)), True) for _ in range(200)]
    preds = [random_spans(rng, int(rng.integers(0, 6)), True) for _ in range(200)]
    gt = pad_spans([np.array(x).reshape(-1, 2) for x in gts])
    pred = pad_spans([np.array(x).reshape(-1, 2) for x in preds])
    for theta in (0.0, 0.3, 0.5):
        matched = greedy_match(batched_tiou(pred, gt), pred.mask, gt.mask, theta)
        for q in range(200):
            tp = int((matched[q] >= 0).sum())
            expected = reference.comet_query(gts[q], preds[q], theta)["tp"] if gts[q] else 0
            assert tp == expected


def test_best_iou_per_gt_without_predictions_is_zero():
    gt = pad_spans([np.array([[0.0, 1.0], [2.0, 3.0]])])
    pred = pad_spans([np.zeros((0, 2))])
    best, best_pred = best_iou_per_gt(batched_tiou(pred, gt), pred.mask, gt.mask)
    assert best.tolist() == [[0.0, 0.0]] and best_pred.tolist() == [[-1, -1]]


def test_counting_metrics_match_naive_loops():
    rng = np.random.default_rng(7)
    n_pred, n_gt = rng.integers(0, 9, 300), rng.integers(0, 9, 300)
    assert mean_absolute_error(n_pred, n_gt) == pytest.approx(
        sum(abs(int(a) - int(b)) for a, b in zip(n_pred, n_gt, strict=True)) / 300
    )
    assert off_by_one_accuracy(n_pred, n_gt) == pytest.approx(
        sum(abs(int(a) - int(b)) <= 1 for a, b in zip(n_pred, n_gt, strict=True)) / 300
    )
    r, undefined = pearson(n_pred, n_gt)
    expected = reference._pearson([float(x) for x in n_pred], [float(x) for x in n_gt])
    assert (float(r), bool(undefined)) == (pytest.approx(expected[0]), expected[1])
    assert float(r) == pytest.approx(np.corrcoef(n_pred, n_gt)[0, 1])


def test_pearson_is_vectorised_over_resamples_and_flags_zero_variance():
    n_pred = np.array([[1, 2, 3], [2, 2, 2]])
    n_gt = np.array([[1, 2, 4], [1, 5, 9]])
    r, undefined = pearson(n_pred, n_gt)
    assert r[0] == pytest.approx(np.corrcoef([1, 2, 3], [1, 2, 4])[0, 1])
    assert r[1] == 0.0 and undefined.tolist() == [False, True]


def test_query_chunks_cover_every_query_once():
    rng = np.random.default_rng(3)
    n_pred, n_gt = rng.integers(0, 40, 1000), rng.integers(0, 40, 1000)
    chunks = list(query_chunks(n_pred, n_gt, max_cells=5000))
    assert sorted(np.concatenate(chunks).tolist()) == list(range(1000))
    for chunk in chunks:
        cells = len(chunk) * max(n_pred[chunk].max(), 1) * max(n_gt[chunk].max(), 1)
        assert len(chunk) == 1 or cells <= 5000


# --------------------------------------------------------- protocols vs reference
@pytest.mark.parametrize("grid", [True, False])
@pytest.mark.parametrize("theta", [0.3, 0.5, 0.7])
def test_comet_matches_reference(grid, theta):
    samples, predictions, gts, preds, answered = random_benchmark(11, 400, grid)
    result = evaluate(samples, predictions, protocol="comet", theta=theta)
    expected = reference.comet(gts, preds, theta, answered)
    for key in COMET_KEYS:
        assert close(result.metrics[key], expected[key]), key
    assert close(result.metrics[f"recall@{theta:g}"], expected["recall"])
    assert close(result.metrics[f"f1@{theta:g}"], expected["f1"])
    positives = np.flatnonzero(result.queries["n_gt"] > 0)
    for i, row in zip(positives, expected["per_query"], strict=True):
        for key in ("miou", "recall", "precision", "f1", "tp"):
            assert close(float(result.queries[key][i]), float(row[key])), key


@pytest.mark.parametrize("grid", [True, False])
def test_single_matches_reference(grid):
    samples, predictions, gts, preds, _ = random_benchmark(5, 400, grid)
    result = evaluate(samples, predictions, protocol="single")
    expected = reference.single(gts, preds)
    for key in ("miou", "recall@0.3", "recall@0.5", "recall@0.7"):
        assert close(result.metrics[key], expected[key]), key
    scored = result.queries["iou"][result.queries["n_gt"] > 0]
    assert scored.tolist() == pytest.approx(expected["ious"])


def test_small_chunks_give_identical_results(monkeypatch):
    samples, predictions, *_ = random_benchmark(8, 300, True)
    whole = evaluate(samples, predictions, by=["position"])
    monkeypatch.setattr(padded, "MAX_CELLS", 40)
    chunked = evaluate(samples, predictions, by=["position"])
    assert chunked.metrics == whole.metrics and chunked.by == whole.by
    for key, column in whole.intervals.items():
        assert np.array_equal(chunked.intervals[key], column)
    assert chunked.rows() == whole.rows()


span_lists = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 8)).map(lambda t: (float(t[0]), float(sum(t)))),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(gt=span_lists, pred=span_lists, shift=st.integers(-50, 50))
def test_one_query_matches_reference_and_ignores_shifts(gt, pred, shift):
    metrics = comet_result(gt, pred)
    expected = reference.comet([gt], [pred], 0.5)
    for key in ("mae", "obo", "miou", "recall", "f1", "pos_cov", "rej_rate"):
        name = {"recall": "recall@0.5", "f1": "f1@0.5"}.get(key, key)
        assert close(metrics[name], expected[key]), key
    moved = comet_result(
        [(s + shift, e + shift) for s, e in gt], [(s + shift, e + shift) for s, e in pred]
    )
    assert moved == metrics
    for key in ("miou", "recall@0.5", "f1@0.5", "rej_f1"):
        assert metrics[key] is None or 0.0 <= metrics[key] <= 1.0


# ------------------------------------------------------------- hand-worked examples
def test_exact_duplicate_predictions_count_once_as_true_positive():
    m = comet_result([(10, 20)], [(10, 20), (10, 20)])
    # Both reach tIoU 1, but one GT interval can match only one prediction.
    assert (m["miou"], m["recall@0.5"]) == (1.0, 1.0)
    assert m["f1@0.5"] == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert (m["mae"], m["obo"]) == (1.0, 1.0)
    two_gt = comet_result([(10, 20), (30, 40)], [(10, 20), (10, 20)])
    assert (two_gt["miou"], two_gt["recall@0.5"], two_gt["f1@0.5"]) == (0.5, 0.5, 0.5)


def test_iou_exactly_at_threshold_is_a_recall_hit_but_not_an_f1_match():
    m = comet_result([(0, 10)], [(0, 5)])  # tIoU = 5 / 10 = 0.5 exactly
    assert (m["miou"], m["recall@0.5"], m["f1@0.5"]) == (0.5, 1.0, 0.0)
    single = evaluate(
        [Sample("q", "v", 100.0, "query", Moments.from_list([(0, 10)]))],
        [Prediction("q", Moments.from_list([(0, 5)]))],
        protocol="single",
    )
    assert single.metrics["recall@0.5"] == 1.0 and single.metrics["recall@0.7"] == 0.0


def test_one_prediction_overlapping_two_gt_intervals_matches_only_one():
    gt, pred = [(0, 10), (11, 13)], [(0, 12)]
    m = comet_result(gt, pred)
    # tIoU with the first GT is 10/12, with the second 1/13.
    assert m["miou"] == pytest.approx((10 / 12 + 1 / 13) / 2)
    assert m["recall@0.5"] == 0.5
    assert m["f1@0.5"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)  # precision 1, recall 0.5


def test_equal_overlap_with_two_gt_intervals_matches_the_earliest():
    sample = Sample("q", "v", 100.0, "query", Moments.from_list([(0, 10), (20, 30)]))
    result = evaluate([sample], [Prediction("q", Moments.from_list([(5, 25)]))], theta=0.1)
    assert result.matches["gt_index"].tolist() == [0]
    assert result.matches["tiou"].tolist() == [pytest.approx(0.2)]


def benchmark_with_negatives(answer) -> tuple[list, list]:
    """Four positives and four negatives; `answer(i)` gives the predicted spans."""
    samples = [
        Sample(f"q{i}", "v", 100.0, "query", Moments.from_list([(i, i + 5)] if i < 4 else []))
        for i in range(8)
    ]
    return samples, [Prediction(f"q{i}", Moments.from_list(answer(i))) for i in range(8)]


def test_always_empty_system_has_zero_rejection_f1():
    m = evaluate(*benchmark_with_negatives(lambda i: [])).metrics
    assert (m["rej_rate"], m["pos_cov"], m["rej_f1"], m["fpr"]) == (1.0, 0.0, 0.0, 0.0)
    assert m["pearson"] == 0.0 and m["pearson_undefined"] is True


def test_always_non_empty_system_has_fpr_one():
    m = evaluate(*benchmark_with_negatives(lambda i: [(0, 5)])).metrics
    assert (m["fpr"], m["rej_rate"], m["pos_cov"], m["rej_f1"]) == (1.0, 0.0, 1.0, 0.0)


def test_llava_onevision_row_of_comet_table_2():
    # FPR 2.6 % and PosCov 4.9 % (per 1000 queries each) give Rej.-F1 9.3 %.
    rej_rate, pos_cov = 1 - 26 / 1000, 49 / 1000
    assert round(100 * float(rejection_f1(rej_rate, pos_cov)), 1) == 9.3
    samples = [Sample(f"p{i}", "v", 60.0, "q", Moments.from_list([(1, 2)])) for i in range(1000)]
    samples += [Sample(f"n{i}", "v", 60.0, "q", Moments.empty()) for i in range(1000)]
    answers = [
        Prediction(f"p{i}", Moments.from_list([(1, 2)] if i < 49 else [])) for i in range(1000)
    ]
    answers += [
        Prediction(f"n{i}", Moments.from_list([(1, 2)] if i < 26 else [])) for i in range(1000)
    ]
    m = evaluate(samples, answers).metrics
    assert m["fpr"] == pytest.approx(0.026) and m["pos_cov"] == pytest.approx(0.049)
    assert round(100 * m["rej_f1"], 1) == 9.3


def test_unparsed_or_missing_answer_to_a_negative_is_not_a_rejection():
    samples = [Sample(f"n{i}", "v", 60.0, "q", Moments.empty()) for i in range(3)]
    answers = [Prediction("n0", Moments.empty()), Prediction("n1", None, parse_error="junk")]
    m = evaluate(samples, answers).metrics
    assert m["rej_rate"] == pytest.approx(1 / 3) and m["fpr"] == pytest.approx(2 / 3)
    assert (m["missing"], m["parse_failures"]) == (1, 1)
    assert m["mae"] == 0.0  # counted as zero intervals for counting


def test_rejection_helpers():
    assert math.isnan(float(positive_coverage(np.array([1, 0]), np.array([0, 0]))))
    assert float(false_positive_rate(np.array(1.0))) == 0.0
    assert float(rejection_f1(np.array(0.0), np.array(0.0))) == 0.0
