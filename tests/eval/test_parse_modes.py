"""`eval --parse strict|lenient` on a mixed answer file, against hand-worked numbers."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.eval import evaluate_files

GT = [
    {"qid": "a", "video": "v.mp4", "duration": 60, "query": "x", "intervals": [[10, 20]]},
    {"qid": "b", "video": "v.mp4", "duration": 60, "query": "x", "intervals": [[30, 40]]},
    {"qid": "c", "video": "v.mp4", "duration": 60, "query": "x", "intervals": []},
    {"qid": "d", "video": "v.mp4", "duration": 60, "query": "x", "intervals": [[0, 10]]},
    {"qid": "e", "video": "v.mp4", "duration": 60, "query": "x", "intervals": [[50, 60]]},
]
PRED = [
    {"qid": "a", "response": "[[10, 20]]"},  # JSON only: read by both
    {"qid": "b", "response": "The event happens from 30 to 40 seconds."},  # prose
    {"qid": "c", "response": "There is no such event."},  # prose "no event"
    # what `run` writes: intervals recovered leniently, plus the raw answer
    {"qid": "d", "intervals": [[0, 5]], "response": "```json\n[[0, 5]]\n```"},
    {"qid": "e", "intervals": [[50, 60]]},  # no raw answer: taken as given by both
]


@pytest.fixture()
def files(tmp_path):
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred.write_text("".join(json.dumps(r) + "\n" for r in PRED))
    return gt, pred


def test_hand_worked_comet(files):
    lenient = evaluate_files(*files, parse="lenient").metrics
    strict = evaluate_files(*files, parse="strict").metrics
    # lenient: a=1, b=1, d=0.5, e=1 over 4 positives; c rejected correctly
    assert lenient["miou"] == pytest.approx(3.5 / 4)
    assert lenient["rej_rate"] == 1.0
    # strict: b and c fail; b scores IoU 0 and c is not a rejection
    assert strict["miou"] == pytest.approx(2.5 / 4)
    assert strict["rej_rate"] == 0.0
    assert strict["parse_failures"] == 2 and lenient["parse_failures"] == 0
    for metrics in (lenient, strict):
        assert (metrics["parse_failures_lenient"], metrics["parse_failures_strict"]) == (0, 2)
    assert (strict["parse"], lenient["parse"]) == ("strict", "lenient")


def test_hand_worked_single(files):
    strict = evaluate_files(*files, parse="strict", protocol="single").metrics
    # c is negative and skipped; a=1, b=0 (failure), d=0.5, e=1
    assert strict["miou"] == pytest.approx(2.5 / 4)
    assert (strict["parse_failures_lenient"], strict["parse_failures_strict"]) == (0, 1)


def test_without_parse_nothing_changes(files):
    metrics = evaluate_files(*files).metrics
    assert "parse" not in metrics and "parse_failures_strict" not in metrics
    assert metrics["miou"] == pytest.approx(3.5 / 4)


def test_cli_prints_both_counts(files, capsys):
    assert main(["eval", *map(str, files), "--parse", "strict"]) == 0
    assert "parse-failed 2 (strict; lenient 0)" in capsys.readouterr().out
    assert main(["eval", *map(str, files), "--parse", "strict", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parse_failures_lenient"] == 0


def test_cli_unknown_mode_exits_2(files, capsys):
    assert main(["eval", *map(str, files), "--parse", "loose"]) == 2
    assert "unknown parse mode 'loose'" in capsys.readouterr().err
