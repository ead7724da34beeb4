"""`longground reproduce TABLE` end to end on a tiny benchmark against the scripted server:
every table runs offline, resumes without asking the model again, and is laid out under the
paper's own column headers."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

import pytest

from longground.cli.main import main
from longground.reproduce import TABLES
from tests.support.curate_videos import make_colour_video, register_colour_encoder
from tests.support.openai_stub import OpenAIStub, Reply, openai_stub

# The column headers as the papers print them (ExtremeWhenBench App. C and §3; CoMET §5, E.2-E.4).
PAPER_HEADERS = {
    "ewb-table1": [["Model", "Charades", "Ours", "Ratio"]],
    "ewb-table5": [["N", "128", "256", "512", "1024", "2048", "best"]],
    "ewb-table6": [["Hybrid setting", "VLM ctx", "Recall", "mIoU"]],
    "ewb-table7": [["Window", "Clip", "MODEL", "ENCODER"], ["Window", "Clip", "Qwen",
                                                           "Gemini-3.5", "CLIP"]],
    "comet-table2": [["Method", "#Size", "MAE↓", "OBO↑", "Pear.↑", "mIoU↑", "R@0.5↑",
                      "F1@0.5↑", "Rej.-F1↑", "FPR↓"]],
    "comet-table5": [["Method", "Sup", "Charades-STA R@0.5↑", "Charades-STA mIoU↑",
                      "ActivityNet-Captions R@0.5↑", "ActivityNet-Captions mIoU↑"]],
    "comet-table6": [["Variant", "Pearson↑", "F1@0.5↑", "Rej.-F1↑"]],
    "comet-table7": [["Method", "Time (s)↓"], ["Stage", "Time (s)"]],
}  # fmt: skip
EXTRA: dict = {}
ROWS = {"ewb-table1": 2, "ewb-table5": 1, "ewb-table6": 3, "ewb-table7": 7, "comet-table2": 2,
        "comet-table5": 1, "comet-table6": 6, "comet-table7": 6}  # fmt: skip


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """Two 16-s colour clips; two positive queries and a negative one."""
    return make_tiny_bench(tmp_path_factory.mktemp("tiny"))


def make_tiny_bench(folder):
    """`folder/tiny.jsonl` over two 16-s colour clips: two positive queries, one negative."""
    folder.mkdir(parents=True, exist_ok=True)
    make_colour_video(folder / "a.mp4", [("red", 4), ("blue", 6), ("red", 6)])
    make_colour_video(folder / "b.mp4", [("green", 8), ("blue", 8)])
    rows = [
        {"qid": "q1", "video": "a.mp4", "duration": 16, "query": "every blue screen",
         "intervals": [[4, 10]], "attributes": ["sequential"]},
        {"qid": "q2", "video": "b.mp4", "duration": 16, "query": "the green screen",
         "intervals": [[0, 8]], "attributes": ["static"]},
        {"qid": "q3", "video": "b.mp4", "duration": 16, "query": "a red screen",
         "intervals": [], "attributes": ["negative"]},
    ]  # fmt: skip
    path = folder / "tiny.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def args(table, bench, out, url, *extra):
    return ["reproduce", table, str(bench), "--out", str(out), "--llm", "openai", "--base-url",
            url, "--model", "stub-vlm", "--encoder", register_colour_encoder(), "--published",
            "always", *extra]  # fmt: skip


@pytest.fixture(scope="module")
def reproduced(bench, tmp_path_factory):
    """Every table into one folder (runs shared between tables), each run twice; returns the
    folder, what each first run printed, and the requests the second runs sent."""
    out = tmp_path_factory.mktemp("reproduced")
    printed, again = {}, 0
    with pytest.MonkeyPatch.context() as mp, openai_stub(default=Reply("[[4, 10]]")) as stub:
        mp.setenv("LONGGROUND_CACHE", str(out / "cache"))
        for table in ("comet-table2", "ewb-table1"):
            argv = args(table, bench, out / "tables", stub.url)
            argv[argv.index("always")] = "auto"
            with contextlib.redirect_stdout(io.StringIO()) as text:
                assert main(argv) == 0, table
            printed[f"{table}/auto"] = text.getvalue()
        for table in sorted(TABLES):
            with contextlib.redirect_stdout(io.StringIO()) as text:
                assert main(args(table, bench, out / "tables", stub.url)) == 0, table
            printed[table] = text.getvalue()
            before = stub.request_count
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(args(table, bench, out / "tables", stub.url)) == 0
            again += stub.request_count - before
    return out / "tables", printed, again


def test_a_second_run_asks_the_model_nothing(reproduced):
    assert reproduced[2] == 0  # resumed: every answer is on disk already


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_table_runs_offline_in_the_paper_layout(table, reproduced):
    out, printed, _ = reproduced
    record = json.loads((out / f"{table}.json").read_text())
    headers = [p["header"] for p in record["parts"]]
    expected = [[{"MODEL": "stub-vlm", "ENCODER": "test-colour"}.get(c, c) for c in h]
                for h in PAPER_HEADERS[table]]  # fmt: skip
    assert headers == expected
    ours = [row for p in record["parts"] for row in p["rows"]]
    assert len(ours) == ROWS[table] and all(any(c not in ("–", "") for c in r[1:]) for r in ours)
    assert any(p["published"] for p in record["parts"])  # --published always
    markdown = (out / f"{table}.md").read_text()
    assert markdown == printed[table] and "| " + " | ".join(headers[0]) + " |" in markdown
    assert "Published:" in markdown


def test_published_numbers_only_for_the_papers_benchmark(reproduced):
    printed = reproduced[1]
    # three queries with CoMET attributes are not CoMET-Bench: no paper rows, a note says why
    assert "Published:" not in printed["comet-table2/auto"]
    assert ("- the paper's rows are left out: " in printed["comet-table2/auto"]
            and "is not CoMET-Bench (2,789 queries over 600 videos), so this run's numbers are "
            "not comparable" in printed["comet-table2/auto"])  # fmt: skip
    assert "Published:" not in printed["ewb-table1/auto"]  # not an ExtremeWhenBench file
    assert "fills the Ours column" in printed["ewb-table1/auto"]
    # --published always shows them, saying they do not compare
    assert "Published:" in printed["comet-table2"]
    assert "is not, so this run's numbers are not comparable" in printed["comet-table2"]


def test_the_papers_benchmark_is_recognised_by_checksum_or_size(bench, tmp_path, shared_data):
    from longground.formats import load_samples
    from longground.reproduce import benchmarks

    charades = shared_data / "charades_sta" / "charades_sta_test.txt"
    samples = load_samples(charades)
    assert benchmarks.identify(charades, samples) is benchmarks.CHARADES_TEST
    edited = tmp_path / "charades_sta_test.txt"
    edited.write_text("".join(charades.read_text().splitlines(keepends=True)[:-1]))
    assert benchmarks.identify(edited, samples[:-1]) is None  # neither the file nor its size
    activitynet = shared_data / "activitynet_captions" / "val.json"
    assert benchmarks.identify(activitynet, []) is benchmarks.ACTIVITYNET_VAL1
    tiny = load_samples(bench)
    assert benchmarks.identify(bench, tiny) is None
    sized = [replace(tiny[0], qid=f"q{i}", video=f"v{i % 600}.mp4") for i in range(2789)]
    assert benchmarks.identify(bench, sized) is benchmarks.COMET_BENCH


def test_a_recognised_benchmark_gets_the_papers_rows(bench, tmp_path, monkeypatch):
    from longground.reproduce import benchmarks

    home = benchmarks.PaperBenchmark("Tiny-Bench", 3, 2, (benchmarks.file_sha256(bench),))
    monkeypatch.setattr(benchmarks, "KNOWN", (*benchmarks.KNOWN, home))
    monkeypatch.setitem(TABLES, "comet-table7", replace(TABLES["comet-table7"], home=(home,)))
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    argv = ["reproduce", "comet-table7", str(bench), "--out", str(tmp_path / "o"), "--encoder",
            register_colour_encoder()]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()) as text:
        assert main(argv) == 0
    assert "Published:" in text.getvalue()
    assert f"the paper's rows are on Tiny-Bench, which {bench} is" in text.getvalue()


@pytest.mark.parametrize("table", ["comet-table5", "comet-table7"])
def test_agent_tables_run_offline_without_a_model(bench, tmp_path, monkeypatch, table):
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    argv = ["reproduce", table, str(bench), "--out", str(tmp_path / "o"), "--encoder",
            register_colour_encoder(), "--preset", "longground"]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()) as text:
        assert main(argv) == 0
    assert "model: offline" in text.getvalue() and "CoMET-Agent (offline)" in text.getvalue()


def test_an_agent_table_told_of_a_server_still_needs_a_model(bench, tmp_path, capsys,
                                                             monkeypatch):  # fmt: skip
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    argv = ["reproduce", "comet-table7", str(bench), "--out", str(tmp_path / "o"),
            "--base-url", "http://127.0.0.1:9/v1"]  # fmt: skip
    assert main(argv) == 2 and "no Video-LLM model" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_an_undefined_pearson_is_na_with_its_reason(reproduced):
    printed = reproduced[1]["comet-table2"]
    rows = json.loads((reproduced[0] / "comet-table2.json").read_text())["parts"][0]["rows"]
    assert [row[4] for row in rows] == ["n/a", "n/a"]  # Pear., not 0.0
    assert ("- stub-vlm: Pearson's r is n/a, undefined because every query was answered "
            "with 1 interval") in printed  # fmt: skip
    record = json.loads((reproduced[0] / "comet-table6.json").read_text())
    assert all(row[1] == "n/a" for row in record["parts"][0]["rows"])


def test_scores_match_eval_on_the_same_answers(bench, reproduced, capsys):
    out = reproduced[0]
    record = json.loads((out / "comet-table2.json").read_text())
    metas = {r: json.loads(r.with_suffix(".meta.json").read_text())
             for r in (out / "runs").glob("monolithic-*.jsonl")}  # fmt: skip
    (run,) = [r for r, meta in metas.items() if not meta["single"]]
    assert metas[run]["params"]["n_frames"] == "128"  # CoMET's 128 uniform frames
    assert main(["eval", str(bench), str(run), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    flat = metrics.get("metrics", metrics)
    assert record["values"]["monolithic"]["f1@0.5"] == pytest.approx(flat["f1@0.5"])
    assert record["values"]["monolithic"]["fpr"] == 1.0  # q3 is negative and got an answer


@pytest.mark.parametrize(
    "extra, message",
    [(["-p", "n_frames=4"], "METHOD:KEY=VALUE"), (["--published", "maybe"], "--published")],
)
def test_bad_options(bench, tmp_path, capsys, extra, message):
    argv = ["reproduce", "ewb-table1", str(bench), "--out", str(tmp_path / "o"), *extra]
    assert main(argv) == 2 and message in capsys.readouterr().err


def test_unknown_table_and_foreign_folder(bench, tmp_path, capsys):
    assert main(["reproduce", "ewb-table9", str(bench), "--out", str(tmp_path / "o")]) == 2
    assert "choose from" in capsys.readouterr().err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text("keep me")
    argv = ["reproduce", "ewb-table1", str(bench), "--out", str(tmp_path / "mine"), "--model", "m"]
    assert main(argv) == 2 and "not a reproduce run" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.md").read_text() == "keep me"


def test_a_model_must_be_named_before_any_work(bench, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    argv = ["reproduce", "ewb-table1", str(bench), "--out", str(tmp_path / "o")]
    assert main(argv) == 2 and "no Video-LLM model" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_queries_that_failed_are_tried_again(bench, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "o"
    refused = [Reply.error(401)] * 3  # the server refuses the three monolithic requests
    with OpenAIStub(refused, default=Reply("[[4, 10]]")) as stub:
        assert main(args("ewb-table1", bench, out, stub.url)) == 0
        (run,) = (out / "runs").glob("monolithic-*.jsonl")
        assert all("error" in json.loads(x) for x in run.read_text().splitlines())
        assert main(args("ewb-table1", bench, out, stub.url)) == 0
        assert stub.request_count == 6  # the failed queries asked again, once each
    assert not any("error" in json.loads(x) for x in run.read_text().splitlines())
    record = json.loads((out / "ewb-table1.json").read_text())
    # q1: [4, 10] is its GT; q2: [4, 10] against [0, 8] is 4 / 10
    assert record["values"]["ours"]["monolithic"] == pytest.approx((1.0 + 4 / 10) / 2)


def test_table1_with_a_charades_reference_fills_both_columns_and_the_ratio(bench, tmp_path,
                                                                          monkeypatch):  # fmt: skip
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    charades = bench.parent / "charades.txt"
    charades.write_text("a 4 10##every blue screen\nb 0 8##the green screen\n")
    with openai_stub(default=Reply("[[4, 10]]")) as stub:
        argv = args("ewb-table1", bench, tmp_path / "o", stub.url, "--reference", str(charades))
        assert main(argv) == 0
    record = json.loads((tmp_path / "o" / "ewb-table1.json").read_text())
    # the same two answers on both: Charades-STA [1.0, 0.4] -> 0.7; ours also 0.7 over positives
    assert record["values"]["charades"]["monolithic"] == pytest.approx(0.7)
    model_row = record["parts"][0]["rows"][0]
    assert model_row == ["stub-vlm", "0.700", "0.700", "1.0×"]
    assert not any("fills" in note for note in record["notes"])  # both columns are filled
