"""`longground.eval.evaluate`: keys, accounting of bad predictions, breakdowns, bootstrap,
per-query rows, errors, and the QVHighlights golden numbers."""

from __future__ import annotations

import numpy as np
import pytest

from longground import Moments, Prediction, Sample, UserError
from longground.eval import EvalResult, evaluate, evaluate_files

COMET_KEYS = [
    "n_queries", "n_positive", "n_negative", "mae", "obo", "pearson", "miou", "recall@0.5",
    "f1@0.5", "rej_rate", "pos_cov", "rej_f1", "fpr", "missing", "parse_failures",
    "invalid_intervals", "unknown_qids",
]  # fmt: skip
SINGLE_KEYS = [
    "n_queries", "miou", "recall@0.3", "recall@0.5", "recall@0.7", "missing", "parse_failures",
]  # fmt: skip


def sample(qid, spans, duration_s=600.0, attributes=(), domain=""):
    return Sample(qid, f"{qid}.mp4", duration_s, "query", Moments.from_list(spans),
                  frozenset(attributes), domain)  # fmt: skip


def answer(qid, spans, invalid=0):
    return Prediction(qid, Moments.from_list(spans), invalid_intervals=invalid)


@pytest.fixture
def bench():
    """Six queries across durations, domains, attributes and counts."""
    samples = [
        sample("a", [(0, 10)], 300.0, {"causal"}, "sports"),
        sample("b", [(100, 110), (1000, 1040)], 1200.0, {"causal", "static"}, "sports"),
        sample("c", [], 2400.0, {"negative"}, "cooking"),
        sample("d", [(5000, 5100)], 6000.0, {"dynamic"}, "cooking"),
        sample("e", [(i * 10, i * 10 + 5) for i in range(9)], 4000.0, (), ""),
        sample("f", [], 300.0, {"negative"}, "sports"),
    ]
    predictions = [
        answer("a", [(0, 8)]),
        answer("b", [(100, 110), (300, 310)], invalid=2),
        answer("c", [(1, 2)]),
        Prediction("d", None, raw="I think it happens late", parse_error="no times found"),
        answer("zz", [(0, 1)]),
        answer("f", []),
        answer("f", [(3, 4)]),
    ]
    return samples, predictions


def test_comet_keys_follow_the_contract(bench):
    result = evaluate(*bench)
    data = result.to_dict()
    assert isinstance(result, EvalResult)
    assert [k for k in data if k in COMET_KEYS] == COMET_KEYS
    assert "by" not in data and "ci" not in data
    assert all(0.0 <= data[k] <= 1.0 for k in ("obo", "miou", "recall@0.5", "rej_f1", "fpr"))


def test_single_keys_follow_the_contract(bench):
    data = evaluate(*bench, protocol="single").to_dict()
    assert [k for k in data if k in SINGLE_KEYS] == SINGLE_KEYS
    assert data["n_queries"] == 4 and data["skipped_negatives"] == 2


def test_key_names_follow_theta(bench):
    comet = evaluate(*bench, theta=0.3).metrics
    assert "recall@0.3" in comet and "f1@0.3" in comet and "recall@0.5" not in comet
    single = evaluate(*bench, protocol="single", theta=0.25).metrics
    assert [k for k in single if k.startswith("recall@")] == [
        "recall@0.25", "recall@0.3", "recall@0.5", "recall@0.7",
    ]  # fmt: skip


def test_bad_predictions_are_counted_never_scored_as_answers(bench):
    m = evaluate(*bench).metrics
    assert m["n_queries"] == 6 and (m["n_positive"], m["n_negative"]) == (4, 2)
    assert m["missing"] == 1  # e
    assert m["parse_failures"] == 1  # d
    assert m["invalid_intervals"] == 2  # b
    assert m["unknown_qids"] == 1  # zz
    assert m["duplicate_predictions"] == 1  # the second answer for f
    # f's first (empty) answer is the one scored: a rejection; c answered: a false positive.
    assert m["rej_rate"] == 0.5 and m["fpr"] == 0.5
    # Coverage: a and b answered, d unparsed, e missing.
    assert m["pos_cov"] == 0.5


def test_hand_computed_comet_numbers(bench):
    m = evaluate(*bench).metrics
    # Counts (N̂, N): a (1,1) b (2,2) c (1,0) d (0,1) e (0,9) f (0,0).
    assert m["mae"] == pytest.approx((0 + 0 + 1 + 1 + 9 + 0) / 6)
    assert m["obo"] == pytest.approx(5 / 6)
    # mIoU_q: a 0.8, b (1 + 0) / 2, d 0, e 0.
    assert m["miou"] == pytest.approx((0.8 + 0.5) / 4)
    assert m["recall@0.5"] == pytest.approx((1 + 0.5) / 4)
    # F1_q: a P=1 R=1; b P=1/2 R=1/2.
    assert m["f1@0.5"] == pytest.approx((1 + 0.5) / 4)
    assert m["rej_f1"] == pytest.approx(0.5)


def test_rows_keep_per_query_scores_and_matches(bench):
    rows = {row["qid"]: row for row in evaluate(*bench).rows()}
    assert list(rows) == ["a", "b", "c", "d", "e", "f"]
    assert rows["b"]["matches"] == [[0, 0, 1.0]]
    assert rows["b"]["gt_iou"] == [1.0, 0.0]
    assert rows["b"]["invalid_intervals"] == 2
    assert (rows["d"]["status"], rows["e"]["status"]) == ("parse_failure", "missing")
    assert rows["c"]["miou"] is None and rows["c"]["n_pred"] == 1
    assert evaluate(*bench).to_dict(rows=True)["queries"][0]["qid"] == "a"


def test_breakdowns_rerun_the_protocol_on_each_group(bench):
    samples, predictions = bench
    result = evaluate(samples, predictions, by=["attribute", "domain", "duration", "count"])
    by = result.by
    assert list(by["attribute"]) == ["causal", "dynamic", "negative", "static", "(none)"]
    assert by["attribute"]["causal"]["n_queries"] == 2
    assert list(by["domain"]) == ["cooking", "sports", "(none)"]
    assert list(by["duration"]) == ["<10 min", "10-30 min", "30-60 min", "60-90 min", ">=90 min"]
    assert by["duration"]["<10 min"]["n_queries"] == 2
    assert list(by["count"]) == ["0", "1", "2-3", ">=8"]
    sports = [s for s in samples if s.domain == "sports"]
    alone = evaluate(sports, predictions).metrics
    assert {k: by["domain"]["sports"][k] for k in ("miou", "rej_rate", "mae")} == {
        k: alone[k] for k in ("miou", "rej_rate", "mae")
    }


def test_position_breakdowns_are_per_gt_interval(bench):
    by = evaluate(*bench, by=["position", "duration_x_position"]).by
    # Interval centres: a 1.7 %, b 8.8 % and 85 %, d 84 %, e: nine all < 3 %.
    assert {k: v["n_intervals"] for k, v in by["position"].items()} == {
        "0-20%": 11, "80-100%": 2,
    }  # fmt: skip
    assert by["position"]["80-100%"]["recall@0.5"] == 0.0
    grid = by["duration_x_position"]
    assert grid["10-30 min"]["80-100%"]["n_intervals"] == 1
    assert grid[">=90 min"]["80-100%"]["miou"] == 0.0
    assert set(grid["60-90 min"]) == {"0-20%"}


def test_single_position_uses_the_gt_interval_it_scored(bench):
    by = evaluate(*bench, protocol="single", by=["position"]).by["position"]
    assert sum(v["n_intervals"] for v in by.values()) == 4


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    samples, predictions = [], []
    for i in range(200):
        start = float(rng.uniform(0, 500))
        samples.append(sample(f"q{i}", [(start, start + 20)]))
        jitter = float(rng.normal(0, 8))
        predictions.append(answer(f"q{i}", [(start + jitter, start + jitter + 20)]))
    first = evaluate(samples, predictions, bootstrap=300, seed=1)
    again = evaluate(samples, predictions, bootstrap=300, seed=1)
    other = evaluate(samples, predictions, bootstrap=300, seed=2)
    assert first.ci == again.ci and first.ci != other.ci
    low, high = first.ci["miou"]
    assert low < first.metrics["miou"] < high and high - low < 0.2
    assert first.ci["rej_f1"] is None  # no negatives: undefined in every resample
    assert "ci" in first.to_dict() and set(first.ci) >= {"mae", "recall@0.5", "f1@0.5"}


def test_pearson_undefined_is_flagged():
    samples = [sample("a", [(0, 1)]), sample("b", [(0, 1), (2, 3)])]
    result = evaluate(samples, [answer("a", [(0, 1)]), answer("b", [(0, 1)])])
    assert result.metrics["pearson"] == 0.0 and result.metrics["pearson_undefined"] is True
    assert any("Pearson" in w for w in result.warnings)


def test_a_prediction_on_ids_typed_as_numbers_still_matches():
    result = evaluate([sample("7", [(0, 1)])], [Prediction(7, Moments.from_list([(0, 1)]))])
    assert result.metrics["miou"] == 1.0 and result.metrics["unknown_qids"] == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"protocol": "nope"}, "unknown protocol"),
        ({"theta": 1.5}, "theta"),
        ({"by": ["colour"]}, "unknown breakdown"),
        ({"bootstrap": -1}, "bootstrap"),
    ],
)
def test_bad_options_raise_user_errors(bench, kwargs, message):
    with pytest.raises(UserError, match=message):
        evaluate(*bench, **kwargs)


def test_bad_benchmarks_raise_user_errors():
    with pytest.raises(UserError, match="qid a appears twice"):
        evaluate([sample("a", [(0, 1)]), sample("a", [])], [])
    with pytest.raises(UserError, match="no queries"):
        evaluate([], [])


def test_moment_detr_r1_on_qvhighlights_val(shared_data):
    folder = shared_data / "qvhighlights"
    result = evaluate_files(
        folder / "highlight_val_release.jsonl",
        folder / "moment_detr_sample_val_preds.jsonl",
        protocol="single",
    )
    m = result.metrics
    assert m["n_queries"] == 1550 and m["missing"] == 0 and m["unknown_qids"] == 0
    assert round(100 * m["recall@0.5"], 2) == 53.94
    assert round(100 * m["recall@0.7"], 2) == 34.84
