"""Video-LLMs get the transcript: with --subtitles (on by default for monolithic and hybrid,
off under --preset paper) the request holds the time-stamped transcript and on-screen text.
Checked on what the scripted server receives."""

from __future__ import annotations

import numpy as np
import pytest

from longground.cli.main import main
from longground.llm.openai_client import OpenAIChatClient
from longground.methods.base import MethodConfig
from longground.methods.hybrid import HybridMethod
from longground.timecode import format_time
from tests.channels.clips import slide, speech, write_clip
from tests.support.openai_stub import Reply, openai_stub

pytest.importorskip("pocketsphinx")
pytest.importorskip("rapidocr_onnxruntime")

SAID_AT_S = 10.5


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """16 s: a slide "Budget Review" (0-8 s) then "Final Summary"; a sentence at 10.5 s."""
    said = speech("everybody is waiting for the dinosaur")
    track = np.zeros((1, 22050 * 16), np.int16)
    at = int(SAID_AT_S * 22050)
    track[:, at : at + said.shape[1]] = said
    folder = tmp_path_factory.mktemp("subtitles")
    pictures = [slide("Budget Review"), slide("Final Summary")]
    return write_clip(folder / "talk.mp4", pictures, 8.0, audio=track), folder / "cache"


def ask(clip, capsys, *args: str):
    path, cache = clip
    with openai_stub(Reply("[[1, 2]]")) as stub:
        code = main(["find", str(path), "when is the dinosaur mentioned", "--method",
                     "monolithic", "--base-url", stub.url, "--model", "m", "-p", "n_frames=4",
                     "--cache-dir", str(cache), *args])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    (seen,) = stub.requests
    return seen.text


def said_line(text: str) -> str:
    (line,) = [row for row in text.splitlines() if "said:" in row]
    return line


def test_monolithic_prompt_holds_the_transcript_and_screen_text_with_times(clip, capsys):
    text = ask(clip, capsys)
    line = said_line(text)
    assert "dinosaur" in line
    start_s = float(line.split(" s - ")[0].lstrip("["))
    assert abs(start_s - SAID_AT_S) < 0.5  # the speech segment's start, in seconds
    assert format_time(start_s) in line  # and in clock time
    assert "[0.0 s - 8.0 s] (00:00:00.0 - 00:00:08.0) on screen: Budget Review" in text
    assert "on screen: Final Summary" in text


def test_off_and_under_the_paper_preset_no_subtitles(clip, capsys):
    assert "said:" not in ask(clip, capsys, "--subtitles", "off")
    assert "said:" not in ask(clip, capsys, "--preset", "paper", "--parse", "lenient")
    assert "said:" in ask(clip, capsys, "--preset", "paper", "--parse", "lenient",
                          "--subtitles", "on")  # fmt: skip


def test_bad_subtitles_value_is_one_line(clip, capsys):
    code = main(["find", str(clip[0]), "q", "--method", "monolithic", "--subtitles", "maybe"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--subtitles" in err


def test_hybrid_sends_only_the_lines_inside_its_windows(clip):
    path, cache = clip

    def scorer(video, query, config):  # one peak at 12 s: a window of 9-15 s
        times_s = np.arange(16.0)
        return times_s, -np.abs(times_s - 12.0), 16.0

    config = MethodConfig(cache_dir=cache, subtitles=True, params={"k": 1, "half_width_s": 3,
                                                                    "n_frames": 4})  # fmt: skip
    with openai_stub(Reply("[[10, 13]]")) as stub:
        method = HybridMethod(config, client=OpenAIChatClient("m", stub.url), scorer=scorer)
        grounding = method.ground(path, "when is the dinosaur mentioned")
    (seen,) = stub.requests
    assert "dinosaur" in said_line(seen.text)
    assert "Final Summary" in seen.text and "Budget Review" not in seen.text
    assert grounding.trace["subtitles"]["lines"] == 2
