"""Benchmark and prediction formats: real files, round trips, detection, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.errors import BadInputFile, UserError
from longground.formats import (
    FORMATS,
    PREDICTION_FORMATS,
    SAMPLE_FORMATS,
    load_predictions,
    load_samples,
    prediction_record,
    read_durations,
    write_predictions,
    write_samples,
)
from longground.moments import Moments, tiou_matrix
from longground.samples import Prediction, Sample

QV = "qvhighlights/highlight_val_release.jsonl"
QV_PRED = "qvhighlights/moment_detr_sample_val_preds.jsonl"
CHARADES = "charades_sta/charades_sta_test.txt"
ANET = "activitynet_captions/val.json"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _jsonl(*rows: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


# --- real files ---------------------------------------------------------------------------


def test_names_of_formats():
    assert set(SAMPLE_FORMATS) == {
        "canonical", "qvhighlights", "ewb", "charades", "activitynet", "queries"
    }
    assert set(PREDICTION_FORMATS) == {"canonical", "lmms-eval", "qvhighlights"}
    assert FORMATS == {"samples": SAMPLE_FORMATS, "predictions": PREDICTION_FORMATS}


def test_qvhighlights_ground_truth(shared_data):
    raw = [json.loads(line) for line in (shared_data / QV).read_text().splitlines()]
    samples = load_samples(shared_data / QV)
    assert len(samples) == 1550 == len({s.qid for s in samples})
    assert samples == load_samples(shared_data / QV, fmt="qvhighlights")
    first = samples[0]
    assert (first.qid, first.video, first.duration_s) == ("2579", "NUsG9BgSes0_210.0_360.0", 150)
    assert first.query.startswith("A girl and her mother cooked")
    assert first.gt.to_list() == [[82.0, 150.0]]
    assert sum(len(s.gt) for s in samples) == sum(len(r["relevant_windows"]) for r in raw)
    assert max(len(s.gt) for s in samples) > 1


def test_moment_detr_predictions_keep_order_and_scores(shared_data):
    samples = {s.qid: s for s in load_samples(shared_data / QV)}
    preds = load_predictions(shared_data / QV_PRED, samples=samples)
    assert len(preds) == 1550 and not preds.skipped and not preds.duplicates
    assert {p.qid for p in preds} == set(samples)
    first = preds[0]
    assert first.qid == "2579" and first.parse_error is None and first.invalid_intervals == 0
    assert first.moments.spans[:2].tolist() == [[0.0, 70.0], [78.0, 146.0]]
    assert first.moments.scores[:2].tolist() == [0.9986, 0.4138]
    assert all(np.all(np.diff(p.moments.scores) <= 0) for p in preds)


def test_moment_detr_published_r1(shared_data):
    """Moment-DETR's own evaluator: R1@0.5 = 53.94, R1@0.7 = 34.84 on these predictions."""
    samples = {s.qid: s for s in load_samples(shared_data / QV)}
    preds = load_predictions(shared_data / QV_PRED, samples=samples)
    best = np.array(
        [tiou_matrix(p.moments.spans[:1], samples[p.qid].gt.spans).max() for p in preds]
    )
    assert round(100 * np.mean(best >= 0.5), 2) == 53.94
    assert round(100 * np.mean(best >= 0.7), 2) == 34.84


def test_charades_sta(shared_data):
    samples = load_samples(shared_data / CHARADES)
    assert len(samples) == 3720 == len({s.qid for s in samples})
    assert [s.qid for s in samples[:5]] == ["3MSZA#0", "3MSZA#1", "3MSZA#2", "3MSZA#3", "AMT7R#0"]
    first = samples[0]
    assert (first.video, first.query, first.gt.to_list()) == (
        "3MSZA",
        "person turn a light on.",
        [[24.3, 30.4]],
    )
    by_video: dict[str, float] = {}
    for s in samples:
        by_video[s.video] = max(by_video.get(s.video, 0.0), s.gt.ends_s.max())
    assert all(s.duration_s == by_video[s.video] for s in samples)


def test_charades_with_a_durations_table(shared_data, tmp_path):
    videos = {line.split()[0] for line in (shared_data / CHARADES).read_text().splitlines() if line}
    table = _write(tmp_path, "d.csv", "id,length\n" + "".join(f"{v},99.5\n" for v in videos))
    samples = load_samples(shared_data / CHARADES, durations=table)
    assert {s.duration_s for s in samples} == {99.5}
    assert read_durations(table)["3MSZA"] == 99.5
    with pytest.raises(BadInputFile) as err:
        load_samples(shared_data / CHARADES, durations={"3MSZA": 31.0})
    assert str(err.value).endswith("qid AMT7R#0: video AMT7R is missing from the durations table")


def test_activitynet_captions(shared_data):
    raw = json.loads((shared_data / ANET).read_text())
    samples = load_samples(shared_data / ANET)
    assert len(raw) == 4917
    assert len(samples) == 17505 == sum(len(v["sentences"]) for v in raw.values())
    assert len({s.qid for s in samples}) == 17505
    second = samples[1]
    assert second.qid == "v_uqiMw7tQ1Cc#1" and second.video == "v_uqiMw7tQ1Cc"
    assert second.query.startswith("The coach helps the guy in red")
    assert second.duration_s == 55.15 and second.gt.to_list() == [[13.79, 54.32]]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [(QV, "qvhighlights"), (CHARADES, "charades"), (ANET, "activitynet")],
)
def test_detection_picks_the_right_format(shared_data, name, fmt):
    from longground.formats.registry import resolve

    assert resolve(SAMPLE_FORMATS, "benchmark", shared_data / name, None).name == fmt


# --- canonical round trips ----------------------------------------------------------------


def _sample(qid="q1", spans=((10, 20),), **kw) -> Sample:
    base = dict(video="v.mp4", duration_s=600.0, query="a dog jumps", gt=Moments.from_list(spans))
    return Sample(qid, **{**base, **kw})


def test_canonical_samples_round_trip(tmp_path):
    samples = [
        _sample("q1", [[10, 20.25], [30, 31]], attributes=frozenset({"causal"}), domain="sports"),
        _sample("q2", [], attributes=frozenset({"negative"})),
        _sample("q3", [[0, 600]], video="b.mp4", duration_s=3600.5),
    ]
    write_samples(tmp_path / "gt.jsonl", samples)
    assert load_samples(tmp_path / "gt.jsonl") == samples
    assert not (tmp_path / "gt.jsonl.tmp").exists()


def test_canonical_predictions_round_trip(tmp_path):
    preds = [
        Prediction("q1", Moments.from_list([[1, 2], [3, 4]], scores=[0.9, 0.1]), extra={"t": 1}),
        Prediction("q2", Moments.empty(), raw="There is no such event."),
        Prediction("q3", None, raw="banana", parse_error=parse_error_of("banana")),
        Prediction("q4", Moments.from_list([[5, 6]]), invalid_intervals=2),
    ]
    write_predictions(tmp_path / "p.jsonl", preds)
    assert list(load_predictions(tmp_path / "p.jsonl")) == preds


def parse_error_of(text: str) -> str:
    from longground.answers import parse_answer

    return parse_answer(text).error


def test_prediction_record_fields():
    pred = Prediction("q1", None, raw="?", parse_error="no interval", extra={"qid": "x", "ms": 5})
    assert prediction_record(pred) == {
        "qid": "q1",
        "intervals": None,
        "response": "?",
        "parse_error": "no interval",
        "ms": 5,
    }
    as_map = prediction_record({"qid": "q2", "moments": [[1, 2]], "invalid_intervals": 1})
    assert as_map == {"qid": "q2", "intervals": [[1.0, 2.0]], "invalid_intervals": 1}
    line_names = {"qid": "q3", "intervals": [[1, 2]], "scores": [0.5], "response": "1-2 s"}
    assert prediction_record({**line_names, "timings": {"llm_s": 2.5}}) == {
        "qid": "q3",
        "intervals": [[1.0, 2.0]],
        "scores": [0.5],
        "response": "1-2 s",
        "timings": {"llm_s": 2.5},
    }


def test_empty_files(tmp_path):
    path = _write(tmp_path, "empty.jsonl", "\n")
    preds = load_predictions(path)
    assert preds == [] and preds.skipped == []
    with pytest.raises(UserError, match="the file is empty"):
        load_samples(path)


def test_responses_are_parsed_with_the_video_duration(tmp_path):
    path = _write(tmp_path, "p.jsonl", _jsonl({"qid": "q1", "response": "from 10% to 20%"}))
    with_gt = load_predictions(path, samples=[_sample("q1", duration_s=600.0)])
    assert with_gt[0].moments.to_list() == [[60.0, 120.0]]
    assert with_gt[0].raw == "from 10% to 20%"
    without = load_predictions(path)
    assert without[0].moments is None and "duration" in without[0].parse_error


def test_intervals_win_over_response(tmp_path):
    row = {"qid": "q1", "intervals": [[1, 2]], "response": "5-6 s", "method": "m"}
    pred = load_predictions(_write(tmp_path, "p.jsonl", _jsonl(row)))[0]
    assert pred.moments.to_list() == [[1.0, 2.0]] and pred.raw == "5-6 s"
    assert pred.extra == {"method": "m"}


# --- ExtremeWhenBench ---------------------------------------------------------------------

EWB_ROW = {
    "qid": "ewb_0001",
    "video_id": "lvbench_abc",
    "question": "When does the chef first flip the pancake?",
    "correct_interval": [1234.5, 1241.0],
    "video_duration_s": 4521.3,
    "category": "cooking",
    "source_corpus": "LVBench",
}


@pytest.mark.parametrize(
    ("interval", "expected"),
    [
        ([1234.5, 1241.0], [[1234.5, 1241.0]]),
        ("[1234.5, 1241.0]", [[1234.5, 1241.0]]),
        ("1234.5-1241", [[1234.5, 1241.0]]),
        ("00:20:34.5 - 00:20:41", [[1234.5, 1241.0]]),
        (["00:20:34.5", "00:20:41"], [[1234.5, 1241.0]]),
        ("(1234.5s, 1241s)", [[1234.5, 1241.0]]),
        ([[1, 2], [5, 6]], [[1.0, 2.0], [5.0, 6.0]]),
    ],
)
def test_ewb_correct_interval_forms(tmp_path, interval, expected):
    path = _write(tmp_path, "ewb.jsonl", _jsonl({**EWB_ROW, "correct_interval": interval}))
    sample = load_samples(path)[0]
    assert sample.gt.to_list() == expected
    assert (sample.qid, sample.video, sample.domain) == ("ewb_0001", "lvbench_abc", "cooking")
    assert sample.duration_s == 4521.3 and sample.query.startswith("When does the chef")


def test_ewb_json_array_and_csv(tmp_path):
    second = {**EWB_ROW, "qid": "ewb_0002", "category": "", "correct_interval": [5, 9]}
    array = _write(tmp_path, "ewb.json", json.dumps([EWB_ROW, second], indent=2))
    from_json = load_samples(array)
    assert [s.domain for s in from_json] == ["cooking", "LVBench"]
    header = ",".join(EWB_ROW)
    rows = [
        ",".join(f'"{v}"' if isinstance(v, list | str) else str(v) for v in r.values())
        for r in (EWB_ROW, second)
    ]
    csv_path = _write(tmp_path, "ewb.csv", "\n".join([header, *rows]) + "\n")
    assert load_samples(csv_path) == from_json
    wrapped = _write(tmp_path, "wrapped.json", json.dumps({"rows": [EWB_ROW, second]}))
    assert load_samples(wrapped) == from_json


# --- bad benchmark input: one line naming file, line and qid ------------------------------

GOOD = {"qid": "q1", "video": "v", "duration": 60, "query": "a dog", "intervals": [[1, 2]]}
BAD_BENCHMARKS = [
    ("gt.jsonl", _jsonl(GOOD) + '{"qid": "q2", "video": \n', None,
     "gt.jsonl:2: qid q2: malformed JSON (Expecting value)"),
    ("gt.jsonl", _jsonl(GOOD) + "[1, 2]\n", None, "gt.jsonl:2: expected a JSON object"),
    ("gt.jsonl", _jsonl({k: v for k, v in GOOD.items() if k != "duration"}), "canonical",
     "gt.jsonl:1: qid q1: missing field 'duration'"),
    ("gt.jsonl", _jsonl({k: v for k, v in GOOD.items() if k != "qid"}), "canonical",
     "gt.jsonl:1: missing field 'qid'"),
    ("gt.jsonl", _jsonl({**GOOD, "duration": float("nan")}), None,
     "gt.jsonl:1: qid q1: non-finite duration: nan"),
    ("gt.jsonl", _jsonl({**GOOD, "intervals": [[float("inf"), 2]]}), None,
     "gt.jsonl:1: qid q1: non-finite start: inf"),
    ("gt.jsonl", _jsonl(GOOD).replace("60", "9" * 400), None,
     "gt.jsonl:1: qid q1: non-finite duration: 99999999999999999999"),
    ("gt.jsonl", _jsonl({**GOOD, "intervals": [[30, 10]]}), None,
     "gt.jsonl:1: qid q1: end < start in interval [30, 10]"),
    ("gt.jsonl", _jsonl(GOOD, {**GOOD, "qid": "q2"}, GOOD), None,
     "gt.jsonl:3: qid q1: duplicated qid (first on line 1)"),
    ("gt.jsonl", _jsonl({**GOOD, "attributes": ["causal", "funny"]}), None,
     "gt.jsonl:1: qid q1: unknown attribute 'funny' (known: action, bounded, causal, dynamic, "
     "identity, near-miss, negative, object, person, scene, sequential, speech, static, "
     "synchronous, text)"),
    ("gt.jsonl", _jsonl({**GOOD, "attributes": ["negative"]}), None,
     "gt.jsonl:1: qid q1: attribute 'negative' given to a query with intervals"),
    ("gt.jsonl", _jsonl({**GOOD, "intervals": [[1, 2, 3]]}), None,
     "gt.jsonl:1: qid q1: an interval must be [start, end], got [1, 2, 3]"),
    ("gt.jsonl", _jsonl({**GOOD, "duration": 0}), None,
     "gt.jsonl:1: qid q1: duration must be positive, got 0"),
    ("gt.jsonl", _jsonl({**GOOD, "intervals": [[-1, 2]]}), None,
     "gt.jsonl:1: qid q1: negative start: -1"),
    ("qv.jsonl", _jsonl({"qid": 7, "vid": "v", "duration": 150, "query": "q",
                         "relevant_windows": [[4, 2]]}), None,
     "qv.jsonl:1: qid 7: end < start in interval [4, 2]"),
    ("ewb.csv", "qid,video_id,question,correct_interval,video_duration_s\n"
     "e1,v,q,[1; 2],100\n", None,
     "ewb.csv:2: qid e1: cannot read correct_interval '[1; 2]' (expected [start, end])"),
    ("ewb.csv", "qid,video_id,question,correct_interval,video_duration_s\n"
     'e1,v,q,"[1, 2]",100\ne2,v,q,"[2, 3]",inf\n', None,
     "ewb.csv:3: qid e2: non-finite duration: 'inf'"),
    ("ewb.json", json.dumps([EWB_ROW, EWB_ROW], indent=1), None,
     "ewb.json:14: qid ewb_0001: duplicated qid (first on line 2)"),
    ("ewb.json", json.dumps({"rows": [{**EWB_ROW, "correct_interval": [9, 1]}]}), None,
     "ewb.json: qid ewb_0001: end < start in interval [9, 1]"),
    ("ewb.csv", "qid,video_id,question,correct_interval,video_duration_s\ne1,v,,[1],100\n",
     None, "ewb.csv:2: qid e1: missing field 'question'"),
    ("c.txt", "AB 1.0 2.0##a person sits.\nAB 5.0 4.0##a person stands.\n", None,
     "c.txt:2: qid AB: end < start in interval [5.0, 4.0]"),
    ("c.txt", "AB 1.0 2.0##a person sits.\nAB 5.0##a person stands.\n", "charades",
     "c.txt:2: expected 'VIDEOID start end##sentence'"),
    ("a.json", json.dumps({"v1": {"duration": 9, "timestamps": [[1, 2]], "sentences": []}}),
     None, "a.json: video v1: 1 timestamps for 0 sentences"),
    ("a.json", json.dumps({"v1": {"duration": 9, "timestamps": [[3, 2]], "sentences": ["x"]}}),
     None, "a.json: qid v1#0: end < start in interval [3, 2]"),
    ("a.json", '{"v1": {"duration": 9, "timestamps": [], "sentences": []}, '
     '"v1": {"duration": 5, "timestamps": [], "sentences": []}}', None,
     "a.json: video v1 is listed twice"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "fmt", "message"), BAD_BENCHMARKS)
def test_bad_benchmark_input(tmp_path, monkeypatch, name, text, fmt, message):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, name, text)
    with pytest.raises(BadInputFile) as err:
        load_samples(name, fmt=fmt)
    assert str(err.value) == message
    assert "\n" not in str(err.value)


def test_unknown_or_undetectable_format(tmp_path):
    path = _write(tmp_path, "x.jsonl", _jsonl({"foo": 1}))
    with pytest.raises(UserError, match="cannot tell which benchmark format"):
        load_samples(path)
    with pytest.raises(UserError, match=r"unknown benchmark format 'bogus' \(choose from: "):
        load_samples(path, fmt="bogus")
    with pytest.raises(UserError, match="no such file"):
        load_samples(tmp_path / "missing.jsonl")


# --- predictions never crash --------------------------------------------------------------


def test_malformed_prediction_lines_are_recorded(tmp_path):
    text = (
        '{"qid": "a", "intervals": [[1, 2], [5, 3], [1, "x"], [NaN, 4]]}\n'
        '{"qid": "b", "intervals": \n'
        '{"intervals": [[1, 2]] \n'
        "[1, 2]\n"
        '{"qid": "a", "intervals": []}\n'
        '{"qid": null}\n'
        '{"qid": "c", "intervals": null, "error": "HTTP 500"}\n'
        '{"qid": "d", "intervals": [[9, 1]]}\n'
        '{"qid": "e", "intervals": "10-20"}\n'
        '{"qid": 5, "intervals": [[0, 1]], "scores": [0.5]}\n'
    )
    preds = load_predictions(_write(tmp_path, "p.jsonl", text))
    by_qid = {p.qid: p for p in preds}
    assert list(by_qid) == ["a", "b", "c", "d", "e", "5"]
    assert by_qid["a"].moments.to_list() == [[1.0, 2.0]] and by_qid["a"].invalid_intervals == 3
    assert by_qid["b"].moments is None
    assert by_qid["b"].parse_error == "line 2: malformed JSON (Expecting value)"
    assert by_qid["c"].moments is None and by_qid["c"].parse_error == "HTTP 500"
    assert by_qid["d"].moments is None and by_qid["d"].invalid_intervals == 1
    assert by_qid["e"].moments is None and "not a list" in by_qid["e"].parse_error
    assert by_qid["5"].moments.scores.tolist() == [0.5]
    assert preds.duplicates == ["a"]
    assert preds.skipped == [
        f"{tmp_path / 'p.jsonl'}:3: malformed JSON (Expecting ',' delimiter); no readable qid, "
        "skipped",
        f"{tmp_path / 'p.jsonl'}:4: not a JSON object, skipped",
        f"{tmp_path / 'p.jsonl'}:6: no usable 'qid', skipped",
    ]


def test_bad_moment_detr_windows(tmp_path):
    rows = [
        {"qid": 1, "pred_relevant_windows": [[0, 10, 0.9], [8, 2, 0.5], [1, 2]]},
        {"qid": 2, "pred_relevant_windows": "oops"},
    ]
    preds = load_predictions(_write(tmp_path, "p.jsonl", _jsonl(*rows)))
    assert preds[0].moments.to_list() == [[0.0, 10.0], [1.0, 2.0]]
    assert preds[0].moments.scores is None and preds[0].invalid_intervals == 1
    assert preds[1].moments is None and preds[1].parse_error


json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(["qid", "intervals", "response", "scores", "pred_relevant_windows", "x"])


@settings(
    max_examples=60,
    deadline=None,  # a property, not a timing: a loaded machine must not fail it
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.lists(st.dictionaries(keys, json_values, max_size=5), max_size=6),
    fmt=st.sampled_from(["canonical", "qvhighlights"]),
)
def test_prediction_content_never_crashes(tmp_path, rows, fmt):
    lines = [json.dumps({"qid": "q0", "intervals": []})] + [json.dumps(r) for r in rows]
    preds = load_predictions(_write(tmp_path, "p.jsonl", "\n".join(lines) + "\n"), fmt=fmt)
    for pred in preds:
        assert (pred.moments is None) == (pred.parse_error is not None)
        assert pred.invalid_intervals >= 0
