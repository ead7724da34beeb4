"""`longground build comet` end to end on generated videos against a scripted server."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.curate.comet import CometSettings, combinations_for
from longground.curate.comet_run import run_comet
from longground.formats.canonical import sample_from_record
from longground.formats.fields import load_record_samples
from longground.llm import LLMConfig
from longground.llm.factory import make_chat_client
from tests.support.chat import CrashAfter
from tests.support.curate_videos import attribute_list, is_bright, json_reply, make_videos
from tests.support.openai_stub import OpenAIStub, Reply, closed_port_url

SETTINGS = CometSettings(combinations=2, seed=3, n_frames=4, short_side=48)


def first_combo(video_id: str) -> str:
    return ", ".join(combinations_for(video_id, SETTINGS)[0])


def responder(seen):
    """Dark video: two good queries; the first gets intervals, the second a malformed answer.
    Bright video: one malformed query reply and one spatial-counting query."""
    text = seen.text
    if "Write ONE search query" in text:
        attrs = attribute_list(text)
        if is_bright(seen):
            if attrs == first_combo("bright"):
                return Reply("A nice query would be about the square.")
            return Reply(
                json_reply(
                    {
                        "query": "How many squares are in the picture?",
                        "attributes": attrs.split(", "),
                        "single_frame": False,
                    }
                )
            )
        return Reply(
            json_reply(
                {
                    "query": f"Each time the square moves right ({attrs})",
                    "attributes": attrs.split(", "),
                    "single_frame": False,
                    "why_temporal": "motion",
                }
            ),
            prompt_tokens=400,
        )
    if "List EVERY stretch" in text:
        if f"({first_combo('dark')})" in text:
            return Reply(json.dumps([
                {"start": "00:00:01", "end": "00:00:03", "evidence": "square slides"},
                {"start": "00:00:06", "end": "00:00:08", "evidence": "square again"},
            ]), completion_tokens=60)  # fmt: skip
        return Reply("It is hard to say, maybe at some point.")
    return Reply.error(400, "unexpected request")


@pytest.fixture
def stub():
    with OpenAIStub(responder=responder) as server:
        yield server


@pytest.fixture
def videos(tmp_path):
    return make_videos(tmp_path / "videos")


def cli(videos, out, url, *extra):
    return ["build", "comet", *map(str, videos), "--out", str(out), "--combinations", "2",
            "--seed", "3", "--frames", "4", "--short-side", "48", "--base-url", url,
            "--model", "m", "--concurrency", "1", *extra]  # fmt: skip


def records(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_end_to_end(videos, stub, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LONGGROUND_LLM_PRICE_PROMPT_PER_1K", "0.01")
    out = tmp_path / "out"
    assert main(cli(videos, out, stub.url)) == 0
    printed = capsys.readouterr().out
    queries = records(out / "queries.jsonl")
    assert [q["qid"] for q in queries] == ["dark-c0", "dark-c1", "bright-c0", "bright-c1",
                                           "broken-c0", "broken-c1"]  # fmt: skip
    by = {q["qid"]: q for q in queries}
    assert by["bright-c0"]["parse_error"] == "no JSON object in the reply"
    assert by["bright-c1"]["rejected"] == "a count or co-occurrence with no temporal condition"
    assert by["broken-c0"]["error"].startswith(str(videos[2]))
    assert "\n" not in by["broken-c0"]["error"]
    assert by["dark-c0"]["rejected"] is None and by["dark-c0"]["duration_s"] == pytest.approx(10)
    annotations = records(out / "annotations.jsonl")
    assert [a["qid"] for a in annotations] == ["dark-c0", "dark-c1"]
    assert annotations[0]["intervals"] == [[1.0, 3.0], [6.0, 8.0]]
    assert annotations[0]["evidence"] == ["square slides", "square again"]
    assert annotations[0]["strict_format"] is True
    assert "parse_error" in annotations[1] and annotations[1]["raw"].startswith("It is hard")
    bench = load_record_samples(out / "benchmark.jsonl", sample_from_record)
    assert [s.qid for s in bench] == ["dark-c0"] and bench[0].gt.count == 2
    assert bench[0].video == str(videos[0].absolute())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stages"]["queries"]["parse_failed"] == 1
    assert summary["stages"]["queries"]["input_failed"] == 2
    assert summary["stages"]["annotations"]["parse_failed"] == 1
    assert summary["rejected_spatial"] == 1 and summary["benchmark"]["intervals"] == 2
    assert summary["cost_usd"] == pytest.approx((2 * 400 + 2 * 100 + 2 * 100) * 0.01 / 1000)
    manifest = json.loads((out / "queries.manifest.json").read_text())
    assert manifest["settings"]["combinations"] == 2 and "build_comet_query" in manifest["prompts"]
    assert "malformed replies" in printed and "rejected as spatial counting: 1" in printed
    # the query prompt carried the definitions and timestamped frames
    first = stub.requests[0]
    assert "What the attributes mean:" in first.text and len(first.images) == 4
    assert first.labels[0].startswith("Frame at")
    assert stub.request_count == 6
    # a second run asks nothing and changes nothing
    before = (out / "benchmark.jsonl").read_bytes()
    assert main(cli(videos, out, stub.url)) == 0
    assert stub.request_count == 6 and (out / "benchmark.jsonl").read_bytes() == before


@pytest.mark.parametrize("crash_after", [1, 4])  # in the query stage, in the annotation stage
def test_crash_then_resume(videos, stub, tmp_path, crash_after):
    clean = tmp_path / "clean"
    assert main(cli(videos, clean, stub.url)) == 0
    n_clean = stub.request_count
    out = tmp_path / "out"
    out.mkdir()
    (out / "build.json").write_text('{"pipeline": "comet"}')
    cfg = LLMConfig(model="m", base_url=stub.url, max_retries=0)
    client = CrashAfter(make_chat_client(cfg, out / "llm_cache.sqlite"), crash_after)
    with pytest.raises(KeyboardInterrupt):
        run_comet(videos, out, client, SETTINGS)
    assert not (out / "benchmark.jsonl").exists()
    assert main(cli(videos, out, stub.url)) == 0
    for name in ("queries.jsonl", "annotations.jsonl", "benchmark.jsonl"):
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    asked = [r.text for r in stub.requests[n_clean:]]
    assert len(asked) == n_clean and len(set(asked)) == len(asked)


def test_unreachable_server_and_wrong_model(videos, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(cli(videos, out, closed_port_url())) == 2
    err = capsys.readouterr().err
    assert err.startswith("longground: error:") and err.count("\n") == 1 and "model 'm'" in err
    assert (out / "queries.jsonl").read_text() == "" and not (out / "benchmark.jsonl").exists()
    with OpenAIStub(default=Reply.error(404, "The model `m` does not exist.")) as server:
        assert main(cli(videos, tmp_path / "o2", server.url)) == 2
    err = capsys.readouterr().err
    assert "HTTP 404" in err and err.count("\n") == 1


def test_no_model_given_writes_nothing(videos, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    args = [
        a for a in cli(videos, tmp_path / "o", "http://127.0.0.1:9/v1") if a not in ("--model", "m")
    ]
    assert main(args) == 2
    assert "no Video-LLM model" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_other_pipelines_folder_is_refused(videos, stub, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "build.json").write_text('{"pipeline": "ewb"}')
    (out / "benchmark.jsonl").write_text("precious\n")
    assert main(cli(videos, out, stub.url)) == 2
    assert "longground build ewb" in capsys.readouterr().err
    assert (out / "benchmark.jsonl").read_text() == "precious\n" and stub.request_count == 0
    assert main(cli(videos, out, stub.url, "--overwrite")) == 0
    assert (out / "benchmark.jsonl").read_text() != "precious\n"


def test_dry_run_sends_nothing(videos, stub, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(cli(videos, out, stub.url, "--dry-run")) == 0
    printed = capsys.readouterr().out
    assert stub.request_count == 0 and not out.exists()
    assert "--- queries dark-c0 ---" in printed and "What the attributes mean" in printed
    assert "stage queries: 4 calls, 16 images" in printed
    assert "input error: broken-c0" in printed
    assert "stage annotations: at most 4 calls" in printed


def test_each_video_is_decoded_once(videos, monkeypatch):
    from longground.curate import frames as frames_mod

    loads = []
    real = frames_mod.UniformFrames._load
    monkeypatch.setattr(frames_mod.UniformFrames, "_load",
                        lambda self, p: loads.append(p) or real(self, p))  # fmt: skip
    cache = frames_mod.UniformFrames(4, 48)
    for _ in range(3):
        cache.get(videos[0])
        assert cache.duration_s(videos[0].absolute()) == pytest.approx(10.0)
    assert len(loads) == 1


@pytest.mark.parametrize(
    ("reply", "intervals", "strict", "evidence"),
    [
        ('[{"start": "00:00:01", "end": "00:00:04", "evidence": "a"}]', [[1, 4]], True, ["a"]),
        ('[{"start": 1, "end": 4, "evidence": "a"}]', [[1, 4]], False, ["a"]),
        ('[{"start": "0:01", "end": "0:04"}]', [[1, 4]], False, [""]),
        ("[]", [], True, []),
        ("The event does not occur.", [], False, []),
    ],
)
def test_annotation_reader_flags_non_clock_times(reply, intervals, strict, evidence):
    from longground.curate.comet import AnnotateStage
    from longground.curate.frames import UniformFrames
    from longground.curate.stage import Call

    stage = AnnotateStage([], SETTINGS, UniformFrames(4, 48))
    got = stage.read(Call("q", list, {"duration_s": 60.0}), reply)
    assert got["intervals"] == intervals and got["strict_format"] is strict
    assert got["evidence"] == evidence


def test_annotation_reader_refuses_what_it_cannot_read():
    from longground.curate.comet import AnnotateStage
    from longground.curate.frames import UniformFrames
    from longground.curate.stage import Call, ReplyError

    stage = AnnotateStage([], SETTINGS, UniformFrames(4, 48))
    with pytest.raises(ReplyError, match="no time interval"):
        stage.read(Call("q", list, {"duration_s": 60.0}), "A man in a red shirt.")


def test_a_build_where_no_reply_could_be_read_exits_2_and_retry_asks_only_those(
    videos, tmp_path, capsys
):
    """Every reply unreadable: exit 2 with the counts (like `run`), records kept; then
    --retry-malformed re-asks exactly the unreadable replies, past the response cache."""
    fixed = {"now": False}

    def replies(seen):
        if "Write ONE search query" in seen.text and not fixed["now"]:
            return Reply("I would rather not answer in JSON.")
        return responder(seen)

    with OpenAIStub(responder=replies) as server:
        out = tmp_path / "out"
        assert main(cli(videos[:2], out, server.url)) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and "no reply of stage queries could be read" in lines[0]
        assert "(4 items: 4 malformed replies, 0 input errors)" in lines[0]
        assert "--retry-malformed" in lines[0] and "4 malformed replies" in captured.out
        assert len(records(out / "queries.jsonl")) == 4 and server.request_count == 4
        assert main(cli(videos[:2], out, server.url)) == 2  # a plain resume asks nothing
        assert server.request_count == 4
        capsys.readouterr()
        fixed["now"] = True
        assert main(cli(videos[:2], out, server.url, "--retry-malformed")) == 0
        asked = [r.text for r in server.requests[4:]]
        assert sum("Write ONE search query" in t for t in asked) == 4  # only those, again
        queries = records(out / "queries.jsonl")
        assert [q["qid"] for q in queries] == ["dark-c0", "dark-c1", "bright-c0", "bright-c1"]
        assert sum("parse_error" in q for q in queries) == 1  # bright-c0's reply is still bad
        manifest = json.loads((out / "queries.manifest.json").read_text())
        assert manifest["session"]["retried"] == 4
        before = server.request_count
        assert main(cli(videos[:2], out, server.url, "--retry-malformed")) == 0
        assert server.request_count == before + 1 + 1  # bright-c0's query, dark-c1's intervals
