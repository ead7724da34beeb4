"""Failure taxonomy and top-K window recall: hand-worked cases, naive references, `eval`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground import Moments, Prediction, Sample
from longground.cli.main import main
from longground.eval import evaluate
from longground.eval import reference_analysis as ref
from longground.eval.analysis import taxonomy_of, window_recall_of
from longground.eval.taxonomy import CLASSES, sample_failures
from longground.eval.window_recall import window_recall

M = Moments.from_list


def sample(qid, gt, duration_s=3600.0):
    return Sample(qid, "v.mp4", duration_s, "q", M(gt))


# (GT spans, prediction (None: parse failure; "missing": no line), class at ±5 min)
CASES = [
    ([[100, 110]], None, "parse_fail"),
    ([[100, 110]], "missing", "no_answer"),
    ([[100, 110]], [], "no_answer"),
    ([[100, 110]], [[500, 520]], "search_fail"),  # midpoints 105 vs 510: 405 s > 300 s
    ([[100, 110]], [[300, 310]], "localization_fail"),  # 200 s <= 300 s
    ([[100, 110], [1000, 1010]], [[1200, 1220]], "localization_fail"),  # nearest GT is 2nd
    ([[100, 110]], [[405, 405.5], [100, 110]], "search_fail"),  # first span only: 300.25 s
    ([[100, 110]], [[100, 110]], None),  # IoU 1: not a failure
    ([[100, 110]], [[109.6, 130]], "localization_fail"),  # IoU 0.4 / 30 < 0.05
    ([], [[0, 1]], None),  # negative: skipped
]


def hand_inputs():
    samples, preds = [], []
    for i, (gt, pred, _) in enumerate(CASES):
        samples.append(sample(f"q{i}", gt))
        if pred == "missing":
            continue
        preds.append(Prediction(f"q{i}", None if pred is None else M(pred)))
    return samples, preds


def test_hand_worked_classes():
    samples, preds = hand_inputs()
    result = evaluate(samples, preds, protocol="single")
    t = taxonomy_of(samples, preds, result, fail_iou=0.05, offset_min=5.0)
    # case 8: IoU = 0.4 / 30 = 0.013 < 0.05, midpoints 105 vs 119.8 -> localisation
    assert t["counts"] == {"parse_fail": 1, "no_answer": 2, "search_fail": 2,
                           "localization_fail": 3}  # fmt: skip
    assert t["counts"] == {name: sum(c[2] == name for c in CASES) for name in CLASSES}
    assert t["n_failures"] == 8 and t["n_scored"] == 9
    assert t["fractions"]["no_answer"] == pytest.approx(2 / 8)
    assert sum(t["fractions"].values()) == pytest.approx(1.0)
    at = {row["offset_min"]: row["counts"] for row in t["sensitivity"]}
    # ±2 min = 120 s: cases 4 (200 s) and 5 (|1210 - 1005| = 205 s) become search failures;
    # case 8 (14.8 s) stays localisation
    assert at[2.0] == {"parse_fail": 1, "no_answer": 2, "search_fail": 4, "localization_fail": 1}
    assert at[5.0] == t["counts"]
    # ±10 min = 600 s: everything answered is localisation
    assert at[10.0] == {"parse_fail": 1, "no_answer": 2, "search_fail": 0, "localization_fail": 5}


def test_taxonomy_needs_the_single_protocol():
    from longground.errors import UserError

    samples, preds = hand_inputs()
    with pytest.raises(UserError, match="--protocol single"):
        taxonomy_of(samples, preds, evaluate(samples, preds), fail_iou=0.05)


def test_sample_is_deterministic_and_a_subset_of_failures():
    labels = np.array([-1, 0, 1, 2, 3] * 40)
    a, b = sample_failures(labels, 100, seed=42), sample_failures(labels, 100, seed=42)
    assert a.tolist() == b.tolist() and len(a) == 100
    assert (labels[a] != -1).all() and len(set(a.tolist())) == 100
    assert sample_failures(labels, 100, seed=7).tolist() != a.tolist()


SPAN = st.tuples(st.floats(0, 3000), st.floats(0, 600)).map(lambda p: [p[0], p[0] + p[1]])
QUERY = st.tuples(
    st.lists(SPAN, max_size=3),
    st.one_of(st.none(), st.just("missing"), st.lists(SPAN, max_size=3)),
)


@settings(max_examples=120, deadline=None)
@given(st.lists(QUERY, min_size=1, max_size=12), st.floats(0, 1), st.floats(0, 20))
def test_taxonomy_matches_the_naive_loop(queries, fail_iou, offset_min):
    samples = [sample(f"q{i}", gt) for i, (gt, _) in enumerate(queries)]
    preds = [Prediction(f"q{i}", None if p is None else M(p))
             for i, (_, p) in enumerate(queries) if p != "missing"]  # fmt: skip
    result = evaluate(samples, preds, protocol="single")
    t = taxonomy_of(samples, preds, result, fail_iou=fail_iou, offset_min=offset_min)
    expected = dict.fromkeys(CLASSES, 0)
    for i, (gt, p) in enumerate(queries):
        if not gt:
            continue
        status = "missing" if p == "missing" else "parse_failure" if p is None else "answered"
        first = tuple(p[0]) if isinstance(p, list) and p else None
        iou = float(result.queries["iou"][i])
        name = ref.taxonomy_class([tuple(g) for g in gt], first, iou, status, fail_iou,
                                  60 * offset_min)  # fmt: skip
        if name:
            expected[name] += 1
    assert t["counts"] == expected


def test_window_recall_hand_worked():
    gts = [np.array([[100.0, 110.0]]), np.array([[500.0, 520.0]]), np.array([[0.0, 5.0]]),
           np.zeros((0, 2))]  # fmt: skip
    wins = [
        np.array([[0, 60], [90, 105], [95, 160]] + [[1000 + 60 * i, 1010 + 60 * i]
                                                     for i in range(8)]),
        np.array([[0, 60]] * 9 + [[490, 530]]),  # found only at rank 10
        np.zeros((0, 2)),  # no windows: a miss
        np.array([[0, 9]]),  # negative: skipped
    ]  # fmt: skip
    out = window_recall(gts, wins)
    assert out["n_queries"] == 3
    assert out["inside@1"] == 0 and out["inside@3"] == pytest.approx(1 / 3)
    assert out["inside@10"] == pytest.approx(2 / 3)
    assert out["overlap@1"] == 0 and out["overlap@3"] == pytest.approx(1 / 3)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(SPAN, max_size=3), st.lists(SPAN, max_size=12)), max_size=10))
def test_window_recall_matches_the_naive_loop(queries):
    gts = [np.array(g, float).reshape(-1, 2) for g, _ in queries]
    wins = [np.array(w, float).reshape(-1, 2) for _, w in queries]
    fast = window_recall(gts, wins)
    slow = ref.window_recall([[tuple(s) for s in g] for g, _ in queries],
                             [[tuple(s) for s in w] for _, w in queries])  # fmt: skip
    assert fast == pytest.approx(slow)
    for k in (1, 3, 10):
        if fast[f"inside@{k}"] is not None:
            assert fast[f"inside@{k}"] <= fast[f"overlap@{k}"]


def test_window_recall_of_a_prediction_list():
    samples = [sample("a", [[10, 20]]), sample("b", [[100, 200]])]
    windows = [Prediction("a", M([[0, 30]])), Prediction("b", None)]
    assert window_recall_of(samples, windows)["inside@1"] == 0.5


@pytest.fixture
def files(tmp_path):
    samples, preds = hand_inputs()
    gt, pred, win = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl", tmp_path / "win.jsonl"
    from longground.formats import write_predictions, write_samples

    write_samples(gt, samples)
    write_predictions(pred, [{"qid": p.qid, "moments": None, "raw": "no idea, sorry"}
                             if p.moments is None else p for p in preds])  # fmt: skip
    write_predictions(win, [Prediction(s.qid, M([[0, 200], [900, 1100]])) for s in samples])
    return str(gt), str(pred), str(win)


def test_eval_cli_json_sections(files, capsys):
    gt, pred, win = files
    args = ["eval", gt, pred, "--protocol", "single", "--json", "--taxonomy", "--sample", "3",
            "--seed", "42", "--windows", win]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["taxonomy"]["counts"]["parse_fail"] == 1
    assert out["taxonomy"]["sample"]["n"] == 3 and len(out["taxonomy"]["sample"]["qids"]) == 3
    # every positive has a GT span inside [0, 200], the first window
    assert out["window_recall"]["inside@1"] == pytest.approx(9 / 9)
    assert main(args) == 0 and json.loads(capsys.readouterr().out) == out  # deterministic
    assert main(args[:-2] + ["--offset-min", "2"]) == 0
    assert "localization_fail" in capsys.readouterr().out


def test_eval_cli_table_sections(files, capsys):
    gt, pred, win = files
    assert main(["eval", gt, pred, "--protocol", "single", "--taxonomy", "--windows", win]) == 0
    text = capsys.readouterr().out
    assert "Failures (IoU < 0.05): 8 of 9 queries" in text and "±10 min" in text
    assert "inside@10=" in text


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--taxonomy"], "--protocol single"),
        (["--protocol", "single", "--taxonomy", "--fail-iou", "2"], "--fail-iou"),
        (["--protocol", "single", "--taxonomy", "--offset-min", "-1"], "--offset-min"),
        (["--protocol", "single", "--taxonomy", "--sample", "-3"], "--sample"),
        (["--windows", "/nonexistent/win.jsonl"], "no such file"),
    ],
)
def test_eval_cli_bad_options(files, capsys, extra, message):
    gt, pred, _ = files
    assert main(["eval", gt, pred, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("longground: error:") and err.count("\n") == 1 and message in err


def test_run_topk_windows_asks_retrieval_for_ewb_windows(tmp_path, monkeypatch, capsys):
    import longground.cli.run_cmd as run_cmd
    from longground.formats import write_samples

    seen = {}

    def fake_run(samples, spec, out, **kwargs):
        seen["spec"] = spec
        raise run_cmd.UserError("stop here")

    monkeypatch.setattr(run_cmd, "run_benchmark", fake_run)
    bench = tmp_path / "b.jsonl"
    write_samples(bench, [sample("a", [[1, 2]])])
    out = str(tmp_path / "w.jsonl")
    assert main(["run", str(bench), "--out", out, "--topk-windows", "-p", "k=5"]) == 2
    spec = seen["spec"]
    assert spec.name == "retrieval"
    assert spec.config.params == {"mode": "topk", "k": "5", "half_width_s": 60.0, "nms_s": 60.0}
    capsys.readouterr()
    assert main(["run", str(bench), "--out", out, "--topk-windows", "-m", "hybrid"]) == 2
    assert "drop --method" in capsys.readouterr().err
