"""`--protocol qvhighlights`: golden numbers on the shipped val split, the vectorised code
against the per-query loop of `eval.reference`, the published layout, and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.cli.main import main
from longground.errors import UserError
from longground.eval import reference
from longground.eval.detection_ap import detection_ap
from longground.eval.qvhighlights import evaluate_qvhighlights, load_and_score, published
from longground.eval.saliency import saliency_ap

# Moment-DETR's sample val predictions, as its published metrics file reports them.
PUBLISHED = {
    "MR-full-mAP": 32.20,
    "MR-full-mAP@0.5": 54.96,
    "MR-full-mAP@0.75": 31.01,
    "MR-full-R1@0.5": 53.94,
    "MR-full-R1@0.7": 34.84,
    "HL-min-VeryGood-mAP": 35.65,
    "HL-min-VeryGood-Hit1": 55.55,
}


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def qvh(shared_data):
    folder = shared_data / "qvhighlights"
    return folder / "highlight_val_release.jsonl", folder / "moment_detr_sample_val_preds.jsonl"


def test_golden_published_figures(qvh):
    out = evaluate_qvhighlights(*qvh)
    for key, value in PUBLISHED.items():
        assert abs(out["brief"][key] - value) <= 0.01 + 1e-9, key
    assert out["full"]["MR-mAP"]["average"] == out["brief"]["MR-full-mAP"]
    assert out["HL-min-VeryGood"]["HL-mAP"] == out["brief"]["HL-min-VeryGood-mAP"]


def test_published_layout(qvh):
    out = evaluate_qvhighlights(*qvh)
    assert list(out) == [
        "brief", "HL-min-Fair", "HL-min-Good", "HL-min-VeryGood", "full", "long", "middle", "short",
    ]  # fmt: skip
    # CG-DETR's layout (a superset of Moment-DETR's): its brief keys, in its order
    assert list(out["brief"])[:10] == [
        "MR-full-R1@0.3", "MR-full-R1@0.5", "MR-full-R1@0.7", "MR-full-mAP", "MR-full-mAP@0.5",
        "MR-full-mAP@0.75", "MR-full-mIoU", "MR-long-mAP", "MR-middle-mAP", "MR-short-mAP",
    ]  # fmt: skip
    assert list(out["brief"])[10:] == [
        f"HL-min-{level}-{key}" for level in ("Fair", "Good", "VeryGood") for key in ("mAP", "Hit1")
    ]
    taus = ["0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95"]
    assert list(out["short"]["MR-mAP"]) == [*taus, "average"]
    r1_taus = ["0.3", "0.35", "0.4", "0.45", *taus]
    for bucket in ("full", "long", "middle", "short"):
        assert list(out[bucket]) == ["MR-mIoU", "MR-mAP", "MR-R1"]
        assert list(out[bucket]["MR-R1"]) == r1_taus
    for value in out["brief"].values():
        assert value == round(value, 2) and 0 <= value <= 100


def _leaves(tree, path=()):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, tree


def _assert_same(fast: dict, slow: dict) -> None:
    fast_leaves, slow_leaves = dict(_leaves(fast)), dict(_leaves(slow))
    assert fast_leaves.keys() == slow_leaves.keys()
    for key, value in fast_leaves.items():
        other = slow_leaves[key]
        if value is None or (isinstance(other, float) and math.isnan(other)):
            assert value is None and math.isnan(other), key
        else:
            assert value == pytest.approx(other, abs=1e-12), key


def test_real_data_matches_reference_loop(qvh):
    gt, pred = (_lines(path)[:250] for path in qvh)  # the loop is slow; 250 queries suffice
    _assert_same(load_and_score(gt, pred).metrics(), reference.qvhighlights(gt, pred))


@st.composite
def qvh_files(draw):
    """GT and predictions with ties everywhere: integer seconds, coarse scores, short or long
    saliency lists, missing queries and empty window lists."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_queries = draw(st.integers(1, 12))
    rng = np.random.default_rng(seed)
    gts, preds = [], []
    for qid in range(n_queries):
        duration = int(rng.integers(3, 40)) * 2
        starts = rng.integers(0, duration - 1, rng.integers(1, 4))
        windows = [[int(s), int(min(duration, s + rng.integers(1, 40)))] for s in starts]
        clips = sorted(rng.choice(duration // 2, rng.integers(1, duration // 2 + 1), False))
        gts.append({
            "qid": qid, "duration": duration, "relevant_windows": windows,
            "relevant_clip_ids": [int(c) for c in clips],
            "saliency_scores": rng.integers(0, 5, (len(clips), 3)).tolist(),
        })  # fmt: skip
        if rng.random() < 0.1:
            continue  # a missing query
        k = int(rng.integers(0, 13))
        s = rng.integers(0, duration, k)
        pred_windows = [
            [int(a), int(a + rng.integers(0, 30)), float(rng.integers(0, 4) / 4)] for a in s
        ]
        n_scores = max(0, duration // 2 + int(rng.integers(-2, 3)))
        preds.append({
            "qid": qid, "pred_relevant_windows": pred_windows,
            "pred_saliency_scores": (rng.integers(0, 5, n_scores) / 4).tolist(),
        })  # fmt: skip
    return gts, preds


@settings(max_examples=60, deadline=None)
@given(qvh_files())
def test_random_files_match_reference_loop(files):
    gts, preds = files
    _assert_same(load_and_score(gts, preds).metrics(), reference.qvhighlights(gts, preds))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 3)), min_size=1, max_size=12),
)
def test_saliency_ap_matches_reference(clips):
    truth = [t for t, _ in clips]
    scores = [float(s) for _, s in clips]
    fast = saliency_ap(
        np.array([scores]), np.ones((1, len(clips)), bool), np.array(truth)[None, :, None]
    )
    assert fast[0, 0] == pytest.approx(reference.saliency_ap(truth, scores), abs=1e-12)


def test_detection_ap_uses_each_gt_window_once():
    iou = np.array([[[0.9], [0.9], [0.0]]])  # two predictions on the one GT window
    ap = detection_ap(iou, np.ones((1, 3), bool), np.ones((1, 1), bool), [0.5])
    assert ap.tolist() == [[1.0]]
    gt = [(0.0, 10.0)]
    assert reference.detection_ap(gt, [(0, 10, 0.9), (0, 10, 0.8)], 0.5) == 1.0


def test_missing_query_scores_zero_and_is_counted():
    gt = [
        {"qid": q, "duration": 20, "relevant_windows": [[0, 4]],
         "relevant_clip_ids": [0, 1], "saliency_scores": [[4, 4, 4], [4, 4, 4]]}
        for q in (1, 2)
    ]  # fmt: skip
    pred = [{"qid": 1, "pred_relevant_windows": [[0, 4, 1.0]],
             "pred_saliency_scores": [1.0] + [0.0] * 9}]  # fmt: skip
    scores = load_and_score(gt, pred)
    assert scores.answered.tolist() == [True, False]
    out = published(scores.metrics())
    assert out["brief"]["MR-full-mAP"] == 50.0 and out["brief"]["HL-min-Good-Hit1"] == 50.0


def test_bucket_keeps_only_its_windows():
    gt = [{"qid": 1, "duration": 60, "relevant_windows": [[0, 4], [20, 60]],
           "relevant_clip_ids": [0], "saliency_scores": [[1, 1, 1]]}]  # fmt: skip
    pred = [{"qid": 1, "pred_relevant_windows": [[20, 60, 0.9], [0, 4, 0.1]],
             "pred_saliency_scores": [0.0] * 30}]  # fmt: skip
    out = evaluate_qvhighlights(gt, pred)
    assert out["long"]["MR-mAP"]["average"] == 100.0  # its one window, found at rank 1
    assert out["short"]["MR-mAP"]["average"] == 50.0  # found at rank 2: precision 1/2
    assert out["short"]["MR-R1"]["0.5"] == 0.0  # the first window is not short
    assert out["middle"]["MR-mAP"]["average"] is None  # no query has a middle window


GOOD_GT = {"qid": 1, "duration": 8, "relevant_windows": [[0, 4]],
           "relevant_clip_ids": [0], "saliency_scores": [[4, 4, 4]]}  # fmt: skip
GOOD_PRED = {"qid": 1, "pred_relevant_windows": [[0, 4, 0.9]],
             "pred_saliency_scores": [1.0, 0.0, 0.0, 0.0]}  # fmt: skip


@pytest.mark.parametrize(
    ("which", "change", "message"),
    [
        ("pred", {"pred_saliency_scores": None}, "missing field 'pred_saliency_scores'"),
        ("pred", {"pred_relevant_windows": [[0, 4]]}, "pred_relevant_windows[0] has no score"),
        ("pred", {"pred_relevant_windows": None}, "missing field 'pred_relevant_windows'"),
        ("pred", {"pred_saliency_scores": [1.0, "x"]}, "pred_saliency_scores[1] must be a finite"),
        ("pred", {"qid": None}, "missing or unusable field 'qid'"),
        ("gt", {"saliency_scores": None}, "missing field 'saliency_scores'"),
        ("gt", {"saliency_scores": [[4, 4]]}, "saliency_scores[0] must list 3"),
        ("gt", {"relevant_clip_ids": [-1]}, "relevant_clip_ids must be integers >= 0"),
        ("gt", {"relevant_windows": [[4, 0]]}, "end < start"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line(tmp_path, capsys, which, change, message):
    records = {"gt": dict(GOOD_GT), "pred": dict(GOOD_PRED)}
    records[which].update(change)
    records[which] = {k: v for k, v in records[which].items() if v is not None}
    paths = {}
    for name, record in records.items():
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text("\n" + json.dumps(record) + "\n")  # the record is on line 2
    code = main(["eval", str(paths["gt"]), str(paths["pred"]), "--protocol", "qvhighlights"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"longground: error: {paths[which]}:2:") and message in err


def test_malformed_json_line_names_its_line(tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps(GOOD_PRED) + '\n{"qid": 2, "pred_relevant_windows": [\n')
    with pytest.raises(UserError, match=r"p.jsonl:2: qid 2: malformed JSON"):
        evaluate_qvhighlights([GOOD_GT], str(pred))


def test_cli_json_table_and_per_query(qvh, tmp_path, capsys):
    gt, pred = (str(p) for p in qvh)
    rows = tmp_path / "rows.jsonl"
    assert main(["eval", gt, pred, "--protocol", "qvhighlights", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["brief"]["MR-full-R1@0.7"] == PUBLISHED["MR-full-R1@0.7"]
    assert main(["eval", gt, pred, "--protocol", "qvhighlights", "--per-query", str(rows)]) == 0
    text = capsys.readouterr().out
    assert "32.20" in text and "55.55" in text
    first = json.loads(rows.read_text().splitlines()[0])
    assert first["qid"] == "2579" and set(first["hl_hit1"]) == {"Fair", "Good", "VeryGood"}


def test_cli_rejects_options_it_cannot_use(qvh, capsys):
    gt, pred = (str(p) for p in qvh)
    assert main(["eval", gt, pred, "--protocol", "qvhighlights", "--by", "domain"]) == 2
    assert "does not take --by" in capsys.readouterr().err


def test_cg_detr_bucket_keys_hand_worked():
    gt = [
        {"qid": 1, "duration": 30, "relevant_windows": [[0, 4]], "relevant_clip_ids": [0],
         "saliency_scores": [[4, 4, 4]]},
        {"qid": 2, "duration": 30, "relevant_windows": [[0, 20]], "relevant_clip_ids": [0],
         "saliency_scores": [[4, 4, 4]]},
    ]  # fmt: skip
    pred = [
        {"qid": 1, "pred_relevant_windows": [[0, 2, 0.9]], "pred_saliency_scores": [1.0]},
        {"qid": 2, "pred_relevant_windows": [[0, 7, 0.9]], "pred_saliency_scores": [1.0]},
    ]
    out = evaluate_qvhighlights(gt, pred)
    # tIoU: 0.5 (a short window) and 0.35 (a middle one)
    assert out["short"]["MR-mIoU"] == 50.0 and out["middle"]["MR-mIoU"] == 35.0
    assert out["full"]["MR-mIoU"] == out["brief"]["MR-full-mIoU"] == 42.5
    assert out["short"]["MR-R1"]["0.45"] == 100.0 and out["middle"]["MR-R1"]["0.35"] == 100.0
    assert out["middle"]["MR-R1"]["0.4"] == 0.0 and out["full"]["MR-R1"]["0.4"] == 50.0
    assert out["brief"]["MR-full-R1@0.3"] == 100.0 and out["long"]["MR-mIoU"] is None
