"""`eval --taxonomy --classifier llm`: every failure goes to the classifier once (then the
cache), its categories are counted beside the rules' classes, and the two are compared."""

from __future__ import annotations

import json
import re

import pytest

from longground.cli.main import main
from tests.support.openai_stub import OpenAIStub, Reply

# qid: (GT, prediction line fields, what the scripted classifier says)
CASES = {
    "parse": ([[100, 110]], {"intervals": None, "response": "I cannot tell",
                             "parse_error": "no times"}, "parsing_fail"),
    "empty": ([[100, 110]], {"intervals": []}, "not json at all"),
    "far": ([[100, 110]], {"intervals": [[2000, 2010]]}, "search_fail"),
    "near": ([[100, 110]], {"intervals": [[150, 160]]}, "other"),
    "hit": ([[100, 110]], {"intervals": [[100, 110]]}, "search_fail"),
}  # fmt: skip


def reply_for(seen) -> Reply:
    qid = re.search(r'Query: "find (\w+)"', seen.text).group(1)
    said = CASES[qid][2]
    if " " in said:
        return Reply(said)
    return Reply(json.dumps({"category": said, "reason": f"because {qid}"}))


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    bench, pred = tmp_path / "bench.jsonl", tmp_path / "pred.jsonl"
    bench.write_text("".join(json.dumps({"qid": q, "video": "v.mp4", "duration": 3600,
                                         "query": f"find {q}", "intervals": gt}) + "\n"
                             for q, (gt, _, _) in CASES.items()))  # fmt: skip
    pred.write_text("".join(json.dumps({"qid": q, **p}) + "\n" for q, (_, p, _) in CASES.items()))
    return bench, pred


def command(files, url, *extra):
    return ["eval", str(files[0]), str(files[1]), "--protocol", "single", "--taxonomy",
            "--classifier", "llm", "--llm", "openai", "--base-url", url, "--model", "judge",
            *extra]  # fmt: skip


def test_llm_taxonomy_beside_the_rules(files, capsys):
    with OpenAIStub(responder=reply_for) as stub:
        assert main(command(files, stub.url, "--json")) == 0, capsys.readouterr().err
        assert stub.request_count == 4  # the four failures; the hit is not asked about
        first = json.loads(capsys.readouterr().out)
        assert main(command(files, stub.url, "--json")) == 0
        assert stub.request_count == 4  # answers come from the cache
        assert json.loads(capsys.readouterr().out) == first
    texts = " ".join(r.text for r in stub.requests)
    assert '"I cannot tell"' in texts and "[2000.0, 2010.0]" in texts and "5 minutes" in texts
    rules, llm = first["taxonomy"]["counts"], first["taxonomy"]["llm"]
    assert rules == {"parse_fail": 1, "no_answer": 1, "search_fail": 1, "localization_fail": 1}
    assert llm["counts"] == {"search_fail": 1, "localization_fail": 0, "parsing_fail": 1,
                             "refusal": 0, "other": 1, "unreadable": 1}  # fmt: skip
    assert llm["agreement"] == pytest.approx(2 / 3)  # parse and far agree; near does not
    assert llm["confusion"]["localization_fail"]["other"] == 1
    assert llm["confusion"]["no_answer"]["unreadable"] == 1
    assert {r["qid"]: r["llm"] for r in llm["queries"]}["far"] == "search_fail"


def test_text_output_and_sample(files, capsys):
    with OpenAIStub(responder=reply_for) as stub:
        assert main(command(files, stub.url, "--sample", "2", "--seed", "42")) == 0
        assert stub.request_count == 2
    out = capsys.readouterr().out
    assert "LLM taxonomy (judge): 2 failures" in out and "rules / llm" in out


@pytest.mark.parametrize(
    "drop, extra, message",
    [("--taxonomy", [], "needs --taxonomy"), (None, ["--classifier", "gpt"], "choose rules")],
)
def test_bad_classifier_options(files, capsys, drop, extra, message):
    argv = [a for a in command(files, "http://127.0.0.1:9/v1") if a != drop] + extra
    assert main(argv) == 2 and message in capsys.readouterr().err
