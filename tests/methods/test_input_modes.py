"""The Video-LLM methods in each input mode and parse mode, end to end through `find` against
the scripted server: what reaches the server, and how the answer is read."""

from __future__ import annotations

import json

import numpy as np
import pytest

from longground.cli.main import main
from tests.methods.test_monolithic_hybrid import shown_index, write_video
from tests.support.openai_stub import Reply, openai_stub

SECONDS = 300


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> str:
    """Five minutes at 1 fps, each frame showing its own second."""
    return write_video(tmp_path_factory.mktemp("video") / "five_min.mp4", SECONDS)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    monkeypatch.delenv("LONGGROUND_LLM_BASE_URL", raising=False)


def find(video: str, stub, *args: str) -> int:
    """Subtitles off: they are tested in tests/methods/test_subtitles.py."""
    return main(["find", video, "a red car", "--method", "monolithic", "--base-url", stub.url,
                 "--json", "--subtitles", "off", *args])  # fmt: skip


def test_video_mode_sends_the_uniform_frames_as_one_video(video, capsys):
    with openai_stub(Reply("[[100, 120]]")) as stub:
        code = find(video, stub, "--model", "m", "--video-input", "video", "-p", "n_frames=8")
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["moments"][0]["start_s"] == 100.0
    (seen,) = stub.requests
    (clip,) = seen.messages[0].videos
    pts_s = np.floor((np.arange(8) + 0.5) * SECONDS / 8)  # the 1 fps frames shown then
    assert [shown_index(frame) for frame in clip] == pts_s.astype(int).tolist()
    fps = 7 / (pts_s[-1] - pts_s[0])
    assert seen.body["mm_processor_kwargs"] == {"do_sample_frames": False,
                                                "fps": pytest.approx(fps)}  # fmt: skip
    assert ", ".join(f"{t:.1f} s" for t in pts_s) in seen.text
    assert seen.images == []


def test_paper_preset_for_gpt_sends_one_8x8_grid_and_reads_strictly(video, capsys):
    with openai_stub(Reply("The car passes from 100 to 120 seconds.")) as stub:
        code = find(video, stub, "--model", "gpt-5.4", "--preset", "paper", "--single")
    assert code == 2  # prose is a parse failure under the JSON-only rule
    assert "parse failure" in capsys.readouterr().err
    (seen,) = stub.requests
    assert len(seen.images) == 1 and seen.labels[0].startswith("Grid 1 of 1: frames 1-64,")


def test_paper_preset_for_qwen_on_comet_is_128_frames_as_video(video, capsys):
    with openai_stub(Reply("[[100, 120]]")) as stub:
        code = find(video, stub, "--model", "Qwen/Qwen3-VL-8B-Instruct", "--preset", "paper")
    assert code == 0
    (seen,) = stub.requests
    assert seen.messages[0].videos[0].shape[0] == 128


def test_an_option_wins_over_the_paper_preset(video, capsys):
    with openai_stub(Reply("From 100 to 120 s.")) as stub:
        overrides = ["--video-input", "frames", "--parse", "lenient", "-p", "n_frames=4"]
        code = find(video, stub, "--model", "gpt-5.4", "--preset", "paper", "--single", *overrides)
    assert code == 0
    assert len(stub.requests[0].images) == 4


def test_bad_modes_stop_before_any_request(video, capsys):
    with openai_stub() as stub:
        assert find(video, stub, "--model", "m", "--video-input", "movie") == 2
        assert "unknown video input 'movie'" in capsys.readouterr().err
        assert find(video, stub, "--model", "m", "--parse", "loose") == 2
        assert "unknown parse mode 'loose'" in capsys.readouterr().err
        assert stub.request_count == 0


def test_default_modes_leave_old_fingerprints_alone():
    from longground.methods import LLMConfig, MethodConfig

    plain = MethodConfig(llm=LLMConfig(model="m")).fingerprint("monolithic")
    assert "parse" not in plain and "video_input" not in plain["llm"]
    strict = MethodConfig(llm=LLMConfig(model="m", video_input="grid"), parse="strict")
    changed = strict.fingerprint("monolithic")
    assert changed["parse"] == "strict" and changed["llm"]["video_input"] == "grid"
    assert changed["llm"]["grid_side"] == 8
