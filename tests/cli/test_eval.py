"""`longground eval`: table-driven runs of the command, good inputs and bad ones."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main

GOOD = [
    {"qid": "q1", "video": "a.mp4", "duration": 600, "query": "a dog jumps",
     "intervals": [[10, 20], [300, 320]], "attributes": ["causal"], "domain": "pets"},
    {"qid": "q2", "video": "a.mp4", "duration": 600, "query": "a cat sings", "intervals": [],
     "attributes": ["negative"], "domain": "pets"},
    {"qid": "q3", "video": "b.mp4", "duration": 4000, "query": "a goal",
     "intervals": [[3000, 3010]], "attributes": ["dynamic"], "domain": "sports"},
]  # fmt: skip
PREDICTIONS = [
    '{"qid": "q1", "intervals": [[10, 20], [25, 20], [300, 330]]}',  # one reversed interval
    '{"qid": "q2", "response": "There is no such event in the video."}',
    '{"qid": "q3", "response": "The video is 4000 seconds long; I cannot tell."}',
    '{"qid": "q9", "intervals": [[1, 2]]}',  # not in the benchmark
    "not json at all",
]


def lines(records) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


@pytest.fixture
def files(tmp_path):
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text(lines(GOOD))
    pred.write_text(lines(PREDICTIONS))
    return tmp_path, str(gt), str(pred)


def run(capsys, args) -> tuple[int, str, str]:
    code = main(["eval", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# (extra args, what the JSON output must hold)
JSON_CASES = [
    ([], {"n_queries": 3, "n_positive": 2, "n_negative": 1, "missing": 0, "parse_failures": 1,
          "invalid_intervals": 1, "unknown_qids": 1, "rej_rate": 1.0, "pos_cov": 0.5}),
    (["--protocol", "single"], {"n_queries": 2, "recall@0.7": 0.5, "skipped_negatives": 1}),
    (["--theta", "0.3"], {"recall@0.3": 0.5, "f1@0.3": 0.5}),
    (["--gt-format", "canonical", "--pred-format", "canonical"], {"miou": 5 / 12}),
]  # fmt: skip


@pytest.mark.parametrize("args, expected", JSON_CASES)
def test_json_output(files, capsys, args, expected):
    _, gt, pred = files
    code, out, err = run(capsys, [gt, pred, "--json", *args])
    assert code == 0, err
    data = json.loads(out)
    for key, value in expected.items():
        assert data[key] == pytest.approx(value), key


def test_breakdowns_and_bootstrap_in_json(files, capsys):
    _, gt, pred = files
    args = [gt, pred, "--json", "--by", "attribute,domain", "--by", "count,position",
            "--bootstrap", "30", "--seed", "4"]  # fmt: skip
    code, out, _ = run(capsys, args)
    data = json.loads(out)
    assert code == 0
    assert list(data["by"]) == ["attribute", "domain", "count", "position"]
    assert list(data["by"]["domain"]) == ["pets", "sports"]
    assert set(data["ci"]) >= {"mae", "miou", "rej_f1"}
    assert run(capsys, args)[1] == out  # same seed, same intervals


@pytest.mark.parametrize(
    "args, expected",
    [
        ([], ["MAE", "OBO", "Pear.", "mIoU", "R@0.5", "F1@0.5", "Rej.-F1", "FPR", "50.00",
              "missing 0", "parse-failed 1", "invalid intervals 1", "unknown qids 1",
              "skipped records 1"]),
        (["--protocol", "single"], ["R1@0.3", "R1@0.5", "R1@0.7", "parse-failed 1"]),
        (["--by", "duration_x_position"], ["by duration x GT position", "60-90 min", "10-30 min"]),
        (["--bootstrap", "10"], ["CI low", "CI high"]),
    ],
)  # fmt: skip
def test_table_output(files, capsys, args, expected):
    _, gt, pred = files
    code, out, _ = run(capsys, [gt, pred, *args])
    assert code == 0
    for text in expected:
        assert text in out, text


def test_per_query_rows_are_written(files, capsys):
    folder, gt, pred = files
    rows_path = folder / "rows.jsonl"
    code, _, _ = run(capsys, [gt, pred, "--per-query", str(rows_path)])
    rows = [json.loads(line) for line in rows_path.read_text().splitlines()]
    assert code == 0 and [r["qid"] for r in rows] == ["q1", "q2", "q3"]
    assert rows[2]["status"] == "parse_failure" and rows[0]["invalid_intervals"] == 1


def bad_line(**changes) -> dict:
    record = dict(GOOD[0], qid="q4")
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}


# (benchmark lines, text the one-line error must contain)
BAD_BENCHMARKS = [
    ([GOOD[0], '{"qid": "q4", "video": '], ["gt.jsonl:2", "malformed JSON"]),
    ([GOOD[0], bad_line(intervals=None)], ["gt.jsonl:2", "q4", "intervals"]),
    ([GOOD[0], bad_line(duration=None)], ["gt.jsonl:2", "q4", "duration"]),
    ([GOOD[0], '{"qid": "q4", "video": "a", "duration": 60, "query": "x", '
               '"intervals": [[NaN, 5]]}'], ["gt.jsonl:2", "q4", "non-finite"]),
    ([GOOD[0], bad_line(intervals=[[30, 10]])], ["gt.jsonl:2", "q4", "end < start"]),
    ([GOOD[0], GOOD[1], dict(GOOD[2], qid="q1")], ["gt.jsonl:3", "q1", "duplicated"]),
]  # fmt: skip


@pytest.mark.parametrize("records, expected", BAD_BENCHMARKS)
def test_bad_benchmark_exits_2_with_one_line(files, capsys, records, expected):
    folder, gt, pred = files
    (folder / "gt.jsonl").write_text(lines(records))
    code, out, err = run(capsys, [gt, pred])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    for text in expected:
        assert text in err, text


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--protocol", "nope"], "unknown protocol"),
        (["--by", "colour"], "unknown breakdown"),
        (["--theta", "1.5"], "theta"),
        (["--bootstrap", "-3"], "bootstrap"),
        (["--gt-format", "nonsense"], "nonsense"),
    ],
)
def test_bad_options_exit_2(files, capsys, args, expected):
    _, gt, pred = files
    code, _, err = run(capsys, [gt, pred, *args])
    assert code == 2 and expected in err and err.count("\n") == 1


def test_missing_file_exits_2(files, capsys):
    folder, _, pred = files
    code, _, err = run(capsys, [str(folder / "absent.jsonl"), pred])
    assert code == 2 and "absent.jsonl" in err


def test_garbage_prediction_file_never_crashes(files, capsys):
    folder, gt, _ = files
    junk = folder / "junk.jsonl"
    junk.write_text('{"qid": "q1", "intervals": "soon"}\n[1, 2]\n{"qid": "q3", "intervals":\n')
    code, out, _ = run(capsys, [gt, str(junk), "--json", "--pred-format", "canonical"])
    data = json.loads(out)
    assert code == 0 and data["n_queries"] == 3
    assert data["missing"] + data["parse_failures"] == 3


def test_qvhighlights_single_reproduces_moment_detr(shared_data, capsys):
    folder = shared_data / "qvhighlights"
    gt = str(folder / "highlight_val_release.jsonl")
    pred = str(folder / "moment_detr_sample_val_preds.jsonl")
    code, out, _ = run(capsys, [gt, pred, "--protocol", "single", "--json"])
    data = json.loads(out)
    assert code == 0
    assert (round(100 * data["recall@0.5"], 2), round(100 * data["recall@0.7"], 2)) == (
        53.94,
        34.84,
    )
