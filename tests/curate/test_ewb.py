"""`longground build ewb` end to end: generated colour videos, a tiny colour encoder as the
P0 captioner and P6 retriever, and the scripted chat model of tests/ewb_script.py."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.curate.ewb_captions import EncoderCaptioner, imagenet_vocabulary
from longground.curate.ewb_run import EwbSettings, run_ewb
from longground.encoders import load_encoder
from longground.formats.canonical import sample_from_record
from longground.formats.fields import load_record_samples
from longground.llm import LLMConfig
from longground.llm.factory import make_chat_client
from tests.support.chat import CrashAfter
from tests.support.curate_videos import make_colour_video, register_colour_encoder
from tests.support.ewb_script import ewb_reply
from tests.support.openai_stub import OpenAIStub, Reply

STAGES = ("captions", "p1_events", "p2_verify", "p3_dedup", "p4_questions", "p5_prefilter",
          "p5_score")  # fmt: skip


def responder(seen):
    """The ewb script, except that P2 answers the blue event with nonsense."""
    if "Proposed event:" in seen.text and "shows green" in seen.text:
        return Reply("maybe, hard to tell")
    return ewb_reply(seen)


@pytest.fixture
def stub():
    with OpenAIStub(responder=responder) as server:
        yield server


@pytest.fixture
def videos(tmp_path):
    register_colour_encoder()
    folder = tmp_path / "videos"
    folder.mkdir()
    plan = [("red", 12), ("blue", 12), ("green", 6), ("red", 12)]
    broken = folder / "broken.mp4"
    broken.write_bytes(b"not a video at all")
    return [make_colour_video(folder / "colours.mp4", plan), broken]


def cli(videos, out, url, tmp_path, *extra):
    return ["build", "ewb", *map(str, videos), "--out", str(out), "--captioner", "test-colour",
            "--encoder", "test-colour", "--base-url", url, "--model", "m", "--concurrency", "1",
            "--cache-dir", str(tmp_path / "cache"), *extra]  # fmt: skip


def rows(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_end_to_end(videos, stub, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(cli(videos, out, stub.url, tmp_path)) == 0
    printed = capsys.readouterr().out
    captions = rows(out / "captions.jsonl")
    assert captions[0]["captions"][0] == [0.0, "top classes: red wolf, red fox, red wine"]
    assert len(captions[0]["captions"]) == 42 and "error" in captions[1]
    events = rows(out / "p1_events.jsonl")[0]["events"]
    assert [(e["start_s"], e["end_s"]) for e in events] == [(0, 11), (12, 23), (24, 29), (30, 41)]
    verdicts = rows(out / "p2_verify.jsonl")
    assert [v.get("verdict") for v in verdicts] == ["verified", "verified", None, "verified"]
    assert verdicts[2]["parse_error"].startswith("no JSON object")
    # P2 mosaics: one 8x8 image per event, tiles of 96 px on the short side
    p2_requests = [r for r in stub.requests if "Proposed event:" in r.text]
    assert len(p2_requests) == 4 and all(len(r.images) == 1 for r in p2_requests)
    assert p2_requests[0].images[0].shape[0] == 8 * 96
    questions = rows(out / "p4_questions.jsonl")
    assert questions[0]["question"] == "When does the view first show red wolf in this recording?"
    assert all(q["rejected"] is None for q in questions)
    summary = json.loads((out / "summary.json").read_text())
    s = summary["stages"]
    assert s["p0_captions"] == {"videos": 2, "failed": 1}
    assert (
        s["p2_verify"]["verdicts"] == {"verified": 3} and s["p2_verify"]["calls_parse_failed"] == 1
    )
    assert s["p5_score"]["kept"] == 1 and s["p5_score"]["score_histogram"] == {"9": 1}
    # top 30% of 3 is one question (score 9); the default +-60 s windows cover a 42 s video
    bench = load_record_samples(out / "benchmark.jsonl", sample_from_record)
    assert [b.gt.to_list() for b in bench] == [[[0.0, 11.0]]] and rows(out / "review.jsonl") == []
    assert "p2_verify:" in printed and "total cost" in printed
    n = stub.request_count
    # narrower P6 windows: earlier stages resume without a request, the item goes to review
    assert main(cli(videos, out, stub.url, tmp_path, "--top-k", "1", "--half-width-s", "2")) == 0
    assert stub.request_count == n
    review = rows(out / "review.jsonl")
    assert len(review) == 1 and rows(out / "benchmark.jsonl") == []
    assert review[0]["reason"] == "GT not inside any top-1 retrieval window"


@pytest.mark.parametrize("crash_after", [2, 7])  # inside P2, inside P4
def test_crash_then_resume(videos, stub, tmp_path, crash_after):
    clean = tmp_path / "clean"
    assert main(cli(videos, clean, stub.url, tmp_path / "c1")) == 0
    n_clean = stub.request_count
    out = tmp_path / "out"
    out.mkdir()
    (out / "build.json").write_text('{"pipeline": "ewb"}')
    cfg = LLMConfig(model="m", base_url=stub.url, max_retries=0)
    client = CrashAfter(make_chat_client(cfg, out / "llm_cache.sqlite"), crash_after)
    captioner = EncoderCaptioner(load_encoder("test-colour"), imagenet_vocabulary(), top=3)
    settings = EwbSettings(encoder="test-colour", cache_dir=str(tmp_path / "c2"))
    with pytest.raises(KeyboardInterrupt):
        run_ewb(videos, out, client, captioner, settings)
    assert not (out / "benchmark.jsonl").exists()
    args = cli(videos, out, stub.url, tmp_path / "c2")
    args[args.index("--cache-dir") + 1] = str(out)  # the crashed run cached its answers there
    assert main(args) == 0
    for name in [f"{s}.jsonl" for s in STAGES] + ["benchmark.jsonl", "review.jsonl"]:
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    asked = [r.text for r in stub.requests[n_clean:]]
    assert len(asked) == n_clean and len(set(asked)) == len(asked)


def test_p4_rules_are_enforced_in_code(videos, tmp_path):
    def wordy(seen):
        if "Write one question a viewer" in seen.text:
            return Reply(json.dumps({"question": "When does the camera first show the red "
                                                 "thing in this recording?"}))  # fmt: skip
        return ewb_reply(seen)

    with OpenAIStub(responder=wordy) as server:
        assert main(cli(videos, tmp_path / "o", server.url, tmp_path)) == 0
    questions = rows(tmp_path / "o" / "p4_questions.jsonl")
    assert {q["rejected"] for q in questions} == {"cinematic word 'camera'"}
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["stages"]["p4_questions"]["rejected_by_rule"] == 4
    assert rows(tmp_path / "o" / "benchmark.jsonl") == []


def test_dry_run_and_refusals(videos, stub, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(cli(videos, out, stub.url, tmp_path, "--dry-run")) == 0
    printed = capsys.readouterr().out
    assert stub.request_count == 0 and not out.exists()
    assert "stage p1_events: 1 calls" in printed and "input error: broken" in printed
    assert "--- build_ewb_verify" in printed and "<event>" in printed
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "build.json").write_text('{"pipeline": "comet"}')
    assert main(cli(videos, tmp_path / "c", stub.url, tmp_path)) == 2
    assert "longground build comet" in capsys.readouterr().err


def test_unreachable_server_is_one_line_and_keeps_the_captions(videos, tmp_path, capsys):
    from tests.support.openai_stub import closed_port_url

    out = tmp_path / "out"
    assert main(cli(videos, out, closed_port_url(), tmp_path)) == 2
    err = capsys.readouterr().err
    assert err.startswith("longground: error:") and err.count("\n") == 1
    assert len(rows(out / "captions.jsonl")) == 2  # P0 is kept for the rerun
    assert (out / "p1_events.jsonl").read_text() == "" and not (out / "benchmark.jsonl").exists()


def test_chat_model_captioner(videos, stub, tmp_path, capsys):
    out = tmp_path / "out"
    args = cli(videos, out, stub.url, tmp_path, "--caption-batch", "4")
    args[args.index("--captioner") + 1] = "llm"
    assert main(args) == 0
    records = rows(out / "p0_captions.jsonl")
    assert len(records) == 11 + 1  # 42 frames in calls of 4, plus the unreadable video
    assert records[0]["captions"][0] == [0.0, "mostly red"] and "error" in records[-1]
    p0 = [r for r in stub.requests if "For each frame" in r.text]
    assert len(p0) == 11 and len(p0[0].images) == 4 and p0[0].labels[1].startswith("Frame at 1.0")
    events = rows(out / "p1_events.jsonl")[0]["events"]
    assert [(e["start_s"], e["end_s"]) for e in events] == [(0, 11), (12, 23), (24, 29), (30, 41)]
    summary = json.loads((out / "summary.json").read_text())["stages"]
    assert summary["p0_captions"]["calls_items"] == 12 and summary["p0_captions"]["requests"] == 11
    assert "p0_captions:" in capsys.readouterr().out
