"""The stage machinery of `longground build`: JSONL + manifest, resume without new requests,
malformed replies and bad inputs recorded, client errors stop the stage cleanly, dry runs."""

from __future__ import annotations

import json
import re

import pytest

from longground.curate.dryrun import format_plan, plan_stage
from longground.curate.stage import Call, ReplyError, Stage, run_stage
from longground.errors import UserError
from longground.llm import LLMConfig
from longground.llm.base import Completion, Message
from longground.llm.factory import make_chat_client
from tests.support.chat import CrashAfter, ScriptedChat
from tests.support.openai_stub import OpenAIStub, Reply, closed_port_url


class Numbers(Stage):
    """Asks for the double of each number; item `bad` cannot be built."""

    name = "numbers"
    prompts = ("monolithic",)

    def __init__(self, n: int = 6, bad: tuple[int, ...] = (), tag: str = "x2"):
        self.n, self.bad, self.settings = n, bad, {"n": n, "tag": tag}

    def calls(self):
        for i in range(self.n):
            yield Call(f"n{i}", lambda i=i: self._messages(i), {"number": i}, max_tokens=16)

    def _messages(self, i):
        if i in self.bad:
            raise UserError(f"item {i}: cannot read\nsecond line")
        return [Message("user", f"double {i}")]

    def read(self, call, text):
        match = re.fullmatch(r"\s*(\d+)\s*", text)
        if match is None:
            raise ReplyError(f"not a number: {text!r:.40}")
        return {"double": int(match.group(1))}


def doubling(seen):
    number = int(seen.text.split()[-1])
    return Reply("oops" if number == 3 else str(2 * number), prompt_tokens=50, completion_tokens=2)


def doubling_chat(messages):
    """`doubling` without a server: the same answers and token counts."""
    number = int(messages[-1].text.split()[-1])
    text = "oops" if number == 3 else str(2 * number)
    return Completion(text, prompt_tokens=50, completion_tokens=2)


@pytest.fixture
def fake():
    return ScriptedChat(responder=doubling_chat, model="m")


@pytest.fixture
def stub():
    with OpenAIStub(responder=doubling) as server:
        yield server


def client_for(url, tmp_path, **kwargs):
    cfg = LLMConfig(model="m", base_url=url, max_retries=0, **kwargs)
    return make_chat_client(cfg, cache_path=tmp_path / "cache.sqlite")


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_writes_records_and_manifest(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_LLM_PRICE_PROMPT_PER_1K", "1.0")
    out = tmp_path / "out"
    result = run_stage(Numbers(bad=(4,)), client_for(stub.url, tmp_path), out)
    records = lines(out / "numbers.jsonl")
    assert [r["qid"] for r in records] == [f"n{i}" for i in range(6)]
    assert [r.get("double") for r in records] == [0, 2, 4, None, None, 10]
    assert records[3]["parse_error"].startswith("not a number") and records[3]["raw"] == "oops"
    assert records[4]["error"] == "item 4: cannot read second line" and "raw" not in records[4]
    manifest = json.loads((out / "numbers.manifest.json").read_text())
    assert manifest == result.manifest
    assert manifest["counts"] == {"items": 6, "ok": 4, "parse_failed": 1, "input_failed": 1}
    assert manifest["usage"]["prompt_tokens"] == 250 and manifest["model"] == "m"
    assert manifest["usage"]["cost_usd"] == pytest.approx(0.25)
    assert manifest["session"] == {"requests": 5, "cache_hits": 0, "resumed": 0, "retried": 0}
    assert manifest["settings"] == {"n": 6, "tag": "x2"} and len(manifest["prompts"]) == 1
    assert stub.request_count == 5


@pytest.mark.parametrize("concurrency", [1, 3])
def test_crash_then_resume_is_identical_and_asks_nothing_twice(fake, tmp_path, concurrency):
    clean = tmp_path / "clean"
    run_stage(Numbers(n=8), fake.cached(tmp_path / "c1.sqlite"), clean)
    expected = (clean / "numbers.jsonl").read_text()
    before = fake.request_count

    out = tmp_path / "out"
    crashing = CrashAfter(fake.cached(tmp_path / "c2.sqlite"), 4, RuntimeError("simulated crash"))
    with pytest.raises(RuntimeError, match="simulated crash"):
        run_stage(Numbers(n=8), crashing, out, concurrency=concurrency)
    assert 1 <= len(lines(out / "numbers.jsonl")) < 8
    assert not (out / "numbers.manifest.json").exists()
    result = run_stage(Numbers(n=8), fake.cached(tmp_path / "c2.sqlite"), out)
    assert (out / "numbers.jsonl").read_text() == expected
    assert result.manifest["session"]["cache_hits"] >= 1
    asked = [m[-1].text for m in fake.calls[before:]]
    assert len(asked) == len(set(asked)) == 8  # the answer cached before the crash is reused


def test_torn_last_line_is_redone(fake, tmp_path):
    out = tmp_path / "out"
    run_stage(Numbers(), fake.cached(tmp_path / "cache.sqlite"), out)
    path = out / "numbers.jsonl"
    whole = path.read_text()
    path.write_text(whole[: whole.rindex('{"qid": "n5"') + 20])
    result = run_stage(Numbers(), fake.cached(tmp_path / "cache.sqlite"), out)
    assert path.read_text() == whole
    session = {"requests": 0, "cache_hits": 1, "resumed": 5, "retried": 0}
    assert result.manifest["session"] == session


def test_other_settings_are_refused_unless_overwrite(fake, tmp_path):
    out = tmp_path / "out"
    run_stage(Numbers(), fake, out)
    with pytest.raises(UserError, match=r"settings\.tag: 'x2' -> 'y'.*--overwrite"):
        run_stage(Numbers(tag="y"), fake, out)
    run_stage(Numbers(tag="y"), fake, out, overwrite=True)
    assert json.loads((out / "numbers.manifest.json").read_text())["settings"]["tag"] == "y"


def test_unreachable_server_stops_cleanly_then_resumes(stub, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(UserError, match=r"model 'm'") as info:
        run_stage(Numbers(), client_for(closed_port_url(), tmp_path, timeout_s=2), out)
    assert "\n" not in str(info.value)
    assert (out / "numbers.jsonl").read_text() == ""
    run_stage(Numbers(), client_for(stub.url, tmp_path), out)
    assert len(lines(out / "numbers.jsonl")) == 6


def test_wrong_model_is_one_line(tmp_path):
    with OpenAIStub(default=Reply.error(404, "The model `m` does not exist.")) as server:
        with pytest.raises(UserError, match="HTTP 404") as info:
            run_stage(Numbers(), client_for(server.url, tmp_path), tmp_path / "out")
    assert "\n" not in str(info.value)
    assert (tmp_path / "out" / "numbers.jsonl").read_text() == ""


def test_dry_run_counts_without_network(stub):
    plan = plan_stage(Numbers(bad=(1,)))
    assert (plan.calls, plan.completion_tokens_max, plan.images) == (5, 80, 0)
    assert plan.prompt_tokens == 5 * 2  # "double i" is 8 characters
    text = format_plan(plan)
    assert "--- numbers n0 ---\ndouble 0" in text and "input error: n1: item 1" in text
    assert text.endswith(
        "stage numbers: 5 calls, 0 images, ~10 prompt tokens, <= 80 completion tokens"
    )
    assert stub.request_count == 0
