"""`longground build agree`: the pass/adjudicate split on hand-made pairs, and Table 3."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.cli.main import main
from longground.curate.agreement import match_intervals


def brute_force_agrees(a, b, threshold=0.7) -> bool:
    """Agreement by trying every one-to-one matching (the naive reference)."""
    if len(a) != len(b):
        return False

    def iou(x, y):
        inter = max(0.0, min(x[1], y[1]) - max(x[0], y[0]))
        union = (x[1] - x[0]) + (y[1] - y[0]) - inter
        return inter / union if union > 0 else 0.0

    return any(
        all(iou(a[i], b[j]) > threshold for i, j in enumerate(perm))
        for perm in itertools.permutations(range(len(b)))
    )


CASES = {
    # name: (A intervals, B intervals, agrees?)
    "both empty": ([], [], True),
    "identical": ([[0, 10], [20, 30]], [[0, 10], [20, 30]], True),
    "order differs, close": ([[0, 10], [20, 30]], [[20.5, 30], [0, 9.5]], True),
    "iou exactly 0.7": ([[0, 10]], [[0, 7]], False),
    "iou just above 0.7": ([[0, 10]], [[0, 7.01]], True),
    "count mismatch": ([[0, 10], [20, 30]], [[0, 10]], False),
    "one side empty": ([[0, 10]], [], False),
    "one pair weak": ([[0, 10], [20, 30]], [[0, 10], [25, 30]], False),
    # in file order A0-B0 has tIoU 0.5; only the crossed pairing (0.9, 0.8) agrees
    "crossed pairing": ([[0, 10], [0, 4]], [[0, 5], [0, 9]], True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hand_made_pairs(name):
    a, b, expected = CASES[name]
    a, b = np.array(a, float).reshape(-1, 2), np.array(b, float).reshape(-1, 2)
    assert match_intervals(a, b).agrees is expected
    assert brute_force_agrees(a.tolist(), b.tolist()) is expected


spans = st.lists(
    st.tuples(st.integers(0, 60), st.integers(1, 20)).map(lambda t: [t[0], t[0] + t[1]]),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(spans, spans)
def test_matches_brute_force(a, b):
    got = match_intervals(np.array(a, float).reshape(-1, 2), np.array(b, float).reshape(-1, 2))
    assert got.agrees is brute_force_agrees(a, b)
    assert got.agrees is (not got.disputes)


def line(qid, intervals, query=None, video="v.mp4"):
    return {
        "qid": qid,
        "video": video,
        "duration": 120.0,
        "query": query or f"query {qid}",
        "intervals": intervals,
        "attributes": [],
    }


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def files(tmp_path):
    a = write(tmp_path / "a.jsonl", [
        line("q1", [[0, 10], [20, 30]]),
        line("q2", [[0, 10]]),
        line("q3", []),
        line("q4", [[0, 10], [40, 50]]),
        line("q5", [[5, 9]]),
    ])  # fmt: skip
    b = write(tmp_path / "b.jsonl", [
        line("q1", [[20.5, 30], [0, 9.5]]),
        line("q2", [[0, 7]]),
        line("q3", []),
        line("q4", [[0, 10]]),
        line("q6", [[1, 2]]),
    ])  # fmt: skip
    return a, b


def read(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_cli_split_and_table(files, tmp_path, capsys):
    a, b = files
    cands = write(tmp_path / "c.jsonl", [
        line("q1", [[0, 10], [21, 30], [60, 70]]),
        line("q2", [[0, 10]], query="a different wording"),
        line("q3", [[3, 4]]),
        line("q7", [[1, 3]]),
    ])  # fmt: skip
    out = tmp_path / "out"
    assert main(["build", "agree", str(a), str(b), "--out", str(out),
                 "--candidates", str(cands)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    final, disputed = read(out / "final.jsonl"), read(out / "adjudicate.jsonl")
    assert [r["qid"] for r in final] == ["q1", "q3"]
    assert final[0]["intervals"] == [[0.0, 10.0], [20.0, 30.0]]  # the first annotator's
    assert [r["qid"] for r in disputed] == ["q2", "q4", "q5", "q6"]
    by_qid = {r["qid"]: r for r in disputed}
    assert by_qid["q2"]["disputed"] == [{"a": [0.0, 10.0], "b": [0.0, 7.0], "iou": 0.7}]
    assert by_qid["q4"]["reason"].startswith("count differs")
    assert by_qid["q4"]["disputed"] == [{"a": [40.0, 50.0], "b": None, "iou": 0.0}]
    assert "first file" in by_qid["q5"]["reason"] and "second" in by_qid["q6"]["reason"]
    stats = read(out / "stats.jsonl")[0]
    assert stats["adjudicated_queries"] == 4 and stats["queries"] == 6
    assert stats["query_edits"] == {"candidates": 4, "kept": 2, "rewritten": 1, "discarded": 1}
    # q1: [0,10] kept, [21,30]->[20,30] adjusted, [60,70] deleted; q2 kept; q3 [3,4] deleted.
    assert stats["interval_edits"] == {
        "candidates": 5, "kept": 2, "adjusted": 1, "deleted": 2, "added": 0, "final": 3
    }  # fmt: skip
    assert "Queries requiring adjudication (tIoU <= 0.7)" in printed
    assert "Spurious intervals removed" in printed and "Discarded" in printed
    # final.jsonl is a benchmark that eval reads
    from longground.formats.canonical import sample_from_record
    from longground.formats.fields import load_record_samples

    assert len(load_record_samples(out / "final.jsonl", sample_from_record)) == 2


def test_rerun_and_foreign_folder_need_overwrite(files, tmp_path, capsys):
    a, b = files
    out = tmp_path / "out"
    assert main(["build", "agree", str(a), str(b), "--out", str(out)]) == 0
    before = (out / "final.jsonl").read_bytes()
    assert main(["build", "agree", str(a), str(b), "--out", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["build", "agree", str(a), str(b), "--out", str(out), "--overwrite"]) == 0
    assert (out / "final.jsonl").read_bytes() == before
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    assert main(["build", "agree", str(a), str(b), "--out", str(foreign)]) == 2
    assert (foreign / "notes.txt").read_text() == "keep me"
    assert not (foreign / "final.jsonl").exists()


def test_bad_line_names_file_and_line(files, tmp_path, capsys):
    a, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps(line("q1", [[0, 10]])) + "\n" + '{"qid": "q2", "intervals": [[5, 1]]\n'
    )
    assert main(["build", "agree", str(a), str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("longground: error:") and "bad.jsonl:2" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()
