"""Per-stage models and reasoning effort in `build ewb` / `build comet`, and the resumable
batch submission path (files + batches API) against a fake server."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.curate.stage_models import EWB_STAGES, StageClients, parse_assignments
from longground.errors import UserError
from longground.llm.config import LLMConfig
from tests.curate.test_ewb import cli, rows
from tests.support.batch_stub import BatchStub
from tests.support.curate_videos import make_colour_video, register_colour_encoder
from tests.support.ewb_script import ewb_reply
from tests.support.openai_stub import OpenAIStub


@pytest.fixture
def videos(tmp_path):
    register_colour_encoder()
    folder = tmp_path / "videos"
    folder.mkdir()
    return [make_colour_video(folder / "c.mp4", [("red", 12), ("blue", 12), ("red", 12)])]


def test_each_stage_gets_its_own_model_and_effort(videos, tmp_path):
    with OpenAIStub(responder=ewb_reply) as stub:
        extra = ("--stage-model", "p2=verifier", "--stage-model", "p5_score=scorer",
                 "--reasoning-effort", "medium", "--stage-effort", "p2=high")  # fmt: skip
        assert main(cli(videos, tmp_path / "out", stub.url, tmp_path, *extra)) == 0
    models = {}
    for request in stub.requests:
        body = request.body
        models.setdefault(body["model"], set()).add(body["reasoning_effort"])
    assert models == {"m": {"medium"}, "verifier": {"high"}, "scorer": {"medium"}}
    p2 = [r.body["model"] for r in stub.requests if "Proposed event:" in r.text]
    assert p2 and set(p2) == {"verifier"}
    manifest = json.loads((tmp_path / "out" / "p2_verify.manifest.json").read_text())
    assert manifest["model"] == "verifier"


def test_answers_at_another_effort_are_not_taken_from_the_cache(videos, tmp_path):
    with OpenAIStub(responder=ewb_reply) as stub:
        assert main(cli(videos, tmp_path / "a", stub.url, tmp_path)) == 0
        n = stub.request_count
        assert main(cli(videos, tmp_path / "b", stub.url, tmp_path)) == 0
        assert stub.request_count == n  # same settings, other folder: all cached
        argv = cli(videos, tmp_path / "c", stub.url, tmp_path, "--reasoning-effort", "low")
        assert main(argv) == 0 and stub.request_count == 2 * n
    assert "reasoning_effort" not in stub.requests[0].body


@pytest.mark.parametrize(
    "extra, message",
    [(["--stage-model", "p9=x"], "no stage 'p9'"), (["--stage-model", "p1"], "STAGE=VALUE"),
     (["--reasoning-effort", "max"], "reasoning effort 'max'")],
)  # fmt: skip
def test_bad_stage_options(videos, tmp_path, capsys, extra, message):
    argv = cli(videos, tmp_path / "out", "http://127.0.0.1:9/v1", tmp_path, *extra)
    assert main(argv) == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_stage_lookup_by_number_or_name():
    base = LLMConfig(model="m", reasoning_effort="medium")
    clients = StageClients(base, lambda c: c, parse_assignments(["p5=a", "p5_score=b"],
                           "--stage-model", EWB_STAGES))  # fmt: skip
    assert clients.config("p5_prefilter").model == "a" and clients.config("p5_score").model == "b"
    assert clients.config("p1_events").model == "m"
    with pytest.raises(UserError, match="reasoning effort"):
        StageClients(LLMConfig(model="m", reasoning_effort="huge"), lambda c: c)


def test_batch_submission_answers_every_stage_and_resumes(videos, tmp_path):
    with BatchStub(ewb_reply, polls_to_finish=2) as server:
        argv = cli(videos, tmp_path / "out", server.url, tmp_path, "--batch", "--batch-poll-s",
                   "0")  # fmt: skip
        assert main(argv) == 0
        assert server.chat_requests == 0 and server.batch_lines > 0  # all through batches
        assert server.uploads == len(server.batches)
        for batch in server.batches.values():
            lines = server.files[batch["input_file_id"]].decode().splitlines()
            first = json.loads(lines[0])
            assert first["url"] == "/v1/chat/completions" and first["method"] == "POST"
            assert first["body"]["model"] == "m" and len(first["custom_id"]) >= 16
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        bench = rows(tmp_path / "out" / "benchmark.jsonl") + rows(tmp_path / "out" /
                                                                  "review.jsonl")  # fmt: skip
        assert bench and summary["stages"]["p5_score"]["kept"] >= 1
        uploads = server.uploads
        assert main(argv) == 0 and server.uploads == uploads  # a rerun submits nothing


def test_an_interrupted_wait_resumes_the_same_batch(tmp_path):
    from longground.curate.batch import answer_by_batch
    from longground.curate.stage import Call
    from longground.curate.stage_models import BatchSettings
    from longground.llm.base import Message
    from longground.llm.factory import make_chat_client

    def reply(seen):
        from tests.support.openai_stub import Reply

        return Reply(seen.text.upper())

    calls = [Call(key=f"k{i}", build=lambda i=i: [Message("user", f"item {i}")]) for i in range(3)]
    with BatchStub(reply, polls_to_finish=3) as server:
        client = make_chat_client(LLMConfig(model="m", base_url=server.url),
                                  tmp_path / "cache.sqlite")  # fmt: skip
        impatient = BatchSettings(poll_s=0.0, timeout_s=0.0)
        with pytest.raises(UserError, match="still in_progress"):
            answer_by_batch("s", calls, client, tmp_path, impatient)
        state = json.loads((tmp_path / "s.batch.json").read_text())
        assert answer_by_batch("s", calls, client, tmp_path, BatchSettings(poll_s=0.0)) == 3
        assert server.uploads == 1 and list(server.batches) == [state["batch_id"]]
        answers = [client.complete(c.build(), max_tokens=c.max_tokens).text for c in calls]
        assert answers == ["ITEM 0", "ITEM 1", "ITEM 2"] and server.chat_requests == 0
        assert answer_by_batch("s", calls, client, tmp_path, BatchSettings(poll_s=0.0)) == 0
