"""`eval --answered-only`: the metrics of the answered queries printed under the full ones,
labelled with the count of the queries they leave out; the full metrics stay the headline."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground import Moments, Prediction, Sample
from longground.eval import evaluate
from longground.eval.answered import answered_metrics
from tests.support.hostile import call


def _samples(n: int) -> list[Sample]:
    rng = np.random.default_rng(38)
    out = []
    for i in range(n):
        start = float(rng.uniform(0, 50))
        spans = [] if i % 7 == 3 else [[start, start + float(rng.uniform(2, 9))]]
        out.append(Sample(f"q{i}", f"v{i % 4}.mp4", 60.0, "a dog", Moments.from_list(spans)))
    return out


def _predictions(samples: list[Sample], answered: list[int]) -> list[Prediction]:
    rng = np.random.default_rng(7)
    preds = []
    for i in answered:
        spans = samples[i].gt.spans + rng.normal(0, 2, samples[i].gt.spans.shape)
        spans[:, 1] = np.maximum(spans[:, 1], spans[:, 0] + 0.5)
        preds.append(Prediction(samples[i].qid, Moments(np.clip(spans, 0, None))))
    return preds


@pytest.mark.parametrize("protocol", ["comet", "single"])
def test_answered_metrics_equal_scoring_the_answered_queries_alone(protocol):
    samples = _samples(60)
    answered = list(range(0, 60, 3))
    preds = _predictions(samples, answered)
    full = evaluate(samples, preds, protocol=protocol)
    alone = evaluate([samples[i] for i in answered], preds, protocol=protocol).metrics
    got = answered_metrics(full)
    assert (got["answered"], got["unanswered"]) == (20, 40)
    for key, value in alone.items():
        if key in got and isinstance(value, float):
            assert got[key] == pytest.approx(value), key
    assert got["miou"] > full.metrics["miou"]


@pytest.fixture()
def files(tmp_path):
    samples = _samples(30)
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(
        json.dumps({"qid": s.qid, "video": s.video, "duration": 60.0, "query": s.query,
                    "intervals": s.gt.to_list()}) + "\n"
        for s in samples
    ))  # fmt: skip
    pred.write_text("".join(
        json.dumps({"qid": p.qid, "intervals": p.moments.to_list()}) + "\n"
        for p in _predictions(samples, [0, 1, 2, 4])
    ))  # fmt: skip
    return gt, pred


def test_the_table_shows_both_rows_labelled(files):
    gt, pred = files
    code, out, err = call(["eval", str(gt), str(pred), "--protocol", "single", "--answered-only"])
    assert code == 0, err
    lines = out.splitlines()
    full = next(line for line in lines if line.startswith("all "))
    part = next(line for line in lines if line.startswith("answered only "))
    assert part.startswith("answered only (4; 26 unanswered left out)")
    assert float(part.split(")")[1].split()[0]) > float(full.split()[1])  # mIoU
    assert "missing 22" in out  # the headline still counts every unanswered positive


def test_json_holds_the_answered_metrics_beside_the_full_ones(files):
    gt, pred = files
    code, out, _ = call(["eval", str(gt), str(pred), "--answered-only", "--json"])
    record = json.loads(out)
    assert code == 0 and record["answered_only"]["answered"] == 4
    assert record["answered_only"]["unanswered"] == 26
    assert record["miou"] < record["answered_only"]["miou"]


def test_without_the_option_nothing_changes(files):
    code, out, _ = call(["eval", *map(str, files)])
    assert code == 0 and "answered only" not in out
    code, out, _ = call(["eval", *map(str, files), "--json"])
    assert "answered_only" not in json.loads(out)
