"""Peer tools' prediction files: lmms-eval `--log_samples` lines and lighthouse predictions,
which name their query instead of a benchmark qid."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.eval import evaluate_files
from longground.formats import load_predictions, load_samples

CHARADES = (
    "3MSZA 24.3 30.4##person turn a light on.\n"
    "3MSZA 10.0 20.0##person sits down.\n"
    "3MSZA 40.0 50.0##person sits down.\n"  # the same question twice on one video
    "AMT7R 0.0 6.9##a person is putting a book on a shelf.\n"
)


def log_line(doc_id: int, video: str, caption: str, answer: str, **doc) -> dict:
    """One line as lmms-eval's --log_samples writes it for Charades-STA."""
    return {
        "doc_id": doc_id,
        "doc": {"video": video, "caption": caption, "timestamp": [0, 1], **doc},
        "target": "[0, 1]",
        "arguments": ["<video>", {"max_new_tokens": 128}],
        "resps": [[answer]],
        "filtered_resps": [answer],
        "doc_hash": "x",
    }


LOG = [
    log_line(0, "3MSZA.mp4", "person turn a light on", "The event happens in 24.3 - 30.4 seconds."),
    log_line(1, "3MSZA.mp4", "person sits down.", "[[10, 20]]"),
    log_line(2, "3MSZA.mp4", "person sits down.", "Starting time: 40\nEnding time: 45"),
    log_line(3, "AMT7R.mp4", "A person is putting a book on a shelf.", "I cannot tell."),
    log_line(4, "ZZZZZ.mp4", "not in the benchmark", "[[1, 2]]"),
]


@pytest.fixture()
def charades(tmp_path):
    gt, log = tmp_path / "charades_test.txt", tmp_path / "samples_charades.jsonl"
    gt.write_text(CHARADES)
    log.write_text("".join(json.dumps(line) + "\n" for line in LOG))
    return gt, log


def test_lmms_eval_lines_find_their_qids_by_video_and_caption(charades):
    gt, log = charades
    samples = load_samples(gt)
    preds = load_predictions(log, samples=samples)
    by_qid = {p.qid: p for p in preds}
    assert sorted(by_qid) == ["3MSZA#0", "3MSZA#1", "3MSZA#2", "AMT7R#0"]
    assert by_qid["3MSZA#0"].moments.to_list() == [[24.3, 30.4]]
    assert by_qid["3MSZA#2"].moments.to_list() == [[40.0, 45.0]]  # the repeat takes the next
    assert by_qid["AMT7R#0"].moments is None and by_qid["3MSZA#1"].extra == {"doc_id": 1}
    assert len(preds.skipped) == 1 and "no benchmark query" in preds.skipped[0]


def test_lmms_eval_log_scored_both_ways(charades):
    gt, log = charades
    lenient = evaluate_files(gt, log, protocol="single", parse="lenient").metrics
    strict = evaluate_files(gt, log, protocol="single", parse="strict").metrics
    # lenient: 1, 1, 0.5 (40-45 against 40-50), failure -> 0
    assert lenient["miou"] == pytest.approx(2.5 / 4)
    # strict: only the JSON answer is read
    assert strict["miou"] == pytest.approx(1 / 4)
    assert (strict["parse_failures_lenient"], strict["parse_failures_strict"]) == (1, 3)


def test_lmms_eval_doc_with_the_benchmark_qid(tmp_path):
    gt = tmp_path / "gt.jsonl"
    gt.write_text(json.dumps({"qid": "q7", "video": "v.mp4", "duration": 60, "query": "x",
                              "intervals": [[1, 2]]}) + "\n")  # fmt: skip
    log = tmp_path / "samples.jsonl"
    log.write_text(json.dumps(log_line(0, "other.mp4", "y", "[[1, 2]]", question_id="q7")))
    (pred,) = load_predictions(log, samples=load_samples(gt))
    assert pred.qid == "q7" and pred.moments.to_list() == [[1.0, 2.0]]


QV_GT = [
    {"qid": 11, "vid": "RoripwjYFp8_60.0_210.0", "query": "A man is speaking.", "duration": 150,
     "relevant_windows": [[100, 130]], "relevant_clip_ids": [50, 51],
     "saliency_scores": [[4, 4, 4], [2, 2, 2]]},
    {"qid": 12, "vid": "other_0.0_150.0", "query": "A dog runs.", "duration": 150,
     "relevant_windows": [[0, 10]], "relevant_clip_ids": [0], "saliency_scores": [[3, 3, 3]]},
]  # fmt: skip
LIGHTHOUSE = [  # lighthouse's predict(): no qid
    {"query": "A man is speaking", "vid": "RoripwjYFp8_60.0_210.0",
     "pred_relevant_windows": [[100, 130, 0.99], [0, 5, 0.5]],
     "pred_saliency_scores": [0.0] * 50 + [0.9, 0.8]},
    {"query": "A dog runs.", "pred_relevant_windows": [[0, 5, 0.8]], "pred_saliency_scores": [0.9]},
]  # fmt: skip


@pytest.fixture()
def qvhighlights(tmp_path):
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "lighthouse.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in QV_GT))
    pred.write_text("".join(json.dumps(r) + "\n" for r in LIGHTHOUSE))
    return gt, pred


def test_lighthouse_lines_are_scored_not_zeroed(qvhighlights):
    metrics = evaluate_files(*qvhighlights, protocol="single").metrics
    assert metrics["missing"] == 0 and metrics["skipped_records"] == 0
    assert metrics["miou"] == pytest.approx((1.0 + 0.5) / 2)


def test_lighthouse_lines_under_the_qvhighlights_protocol(qvhighlights, capsys):
    gt, pred = qvhighlights
    assert main(["eval", str(gt), str(pred), "--protocol", "qvhighlights", "--json"]) == 0
    brief = json.loads(capsys.readouterr().out)["brief"]
    assert brief["MR-full-R1@0.5"] == 100.0 and brief["MR-full-R1@0.7"] == 50.0


def test_unmatched_lighthouse_line_is_an_error_naming_it(qvhighlights, capsys):
    gt, pred = qvhighlights
    pred.write_text(json.dumps({**LIGHTHOUSE[1], "query": "A cat."}) + "\n")
    assert main(["eval", str(gt), str(pred), "--protocol", "qvhighlights"]) == 2
    assert "no GT query has its vid and query" in capsys.readouterr().err
