"""The transcript under the annotation player, in Debian's chromium: the server transcribes
a generated clip with speech on first request (then reads the channels cache), the page
lists the segments under the video, plays the sound and highlights the segment being said.

Set LONGGROUND_UPDATE_SCREENSHOTS=1 to also write docs/img/annotate-transcript.png.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from tests.annotate.test_api import start_server, stop
from tests.annotate.test_browser import DOCS_IMG, launch_chromium, open_page
from tests.channels.clips import slide, speech, write_clip

pytest.importorskip("pocketsphinx")

from longground.annotate.transcript import Transcripts  # noqa: E402

SENTENCES = ((1.0, "everybody is waiting for the dinosaur"), (6.0, "please remember the umbrella"))
CLIP_S = 10.0


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("transcript")
    (root / "videos").mkdir()
    track = np.zeros((1, int(22050 * CLIP_S)), np.int16)
    for at_s, text in SENTENCES:
        said = speech(text)
        start = int(at_s * 22050)
        track[:, start : start + said.shape[1]] = said
    write_clip(root / "videos" / "talk.mp4", [slide("Budget Review")], CLIP_S, audio=track)
    row = {"qid": "q1", "video": "talk.mp4", "duration": CLIP_S, "query": "someone says dinosaur",
           "intervals": [[1.0, 3.0]], "attributes": ["speech"], "domain": "demo"}  # fmt: skip
    bench = root / "bench.jsonl"
    bench.write_text(json.dumps(row) + "\n")
    process, url = start_server(bench, root / "videos", root / "a.db", "--cache-dir",
                                str(root / "cache"))  # fmt: skip
    try:
        yield {"root": root, "url": url}
    finally:
        stop(process)


@pytest.fixture(scope="module")
def browser():
    yield from launch_chromium("--autoplay-policy=no-user-gesture-required")


def test_the_transcript_plays_along_under_the_video(site, browser, tmp_path):
    problems: list[str] = []
    page = open_page(browser, site["url"] + "#view=refine", problems)
    lines = page.locator("#transcript-lines li")
    page.wait_for_function("document.querySelectorAll('#transcript-lines li').length >= 2",
                           timeout=120_000)  # fmt: skip
    texts = lines.all_inner_texts()
    assert "dinosaur" in texts[0] and "umbrella" in texts[-1], texts
    assert "transcribed now" in page.locator("#transcript-note").inner_text()
    starts = [float(x) for x in page.locator("#transcript-lines li").evaluate_all(
        "items => items.map(i => i.dataset.start)")]  # fmt: skip
    assert [abs(s - at) < 0.6 for s, (at, _) in zip(starts, SENTENCES)] == [True, True], starts

    player = page.locator("#player")
    player.evaluate("v => v.play()")  # with sound: the refinement player is not muted
    page.wait_for_function("document.querySelector('#player').currentTime > 2.0")
    current = page.locator("#transcript-lines li.current")
    assert current.get_attribute("data-index") == "0"
    assert player.evaluate("v => v.muted") is False
    assert player.evaluate("v => v.webkitAudioDecodedByteCount") > 0  # the sound is decoded
    player.evaluate("v => v.pause()")

    lines.nth(1).locator("button.seek").click()  # a time in the list seeks the player there
    page.wait_for_function("document.querySelector('#transcript-lines li.current')?.dataset"
                           ".index === '1'")  # fmt: skip
    assert abs(player.evaluate("v => v.currentTime") - starts[1]) < 0.3
    page.screenshot(path=str(tmp_path / "transcript.png"))
    if os.environ.get("LONGGROUND_UPDATE_SCREENSHOTS"):
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS_IMG / "annotate-transcript.png"))
    if os.environ.get("LONGGROUND_KEEP_SHOTS"):
        page.screenshot(path=str(Path(os.environ["LONGGROUND_KEEP_SHOTS"]) / "transcript.png"))
    assert problems == []
    page.close()


def test_then_read_from_the_cache_and_cache_only_mode(site, tmp_path):
    video = site["root"] / "videos" / "talk.mp4"
    cached = Transcripts(site["root"] / "cache", extract=False).of(video)
    assert cached["from"] == "cache" and "dinosaur" in cached["segments"][0]["text"]
    nothing = Transcripts(tmp_path / "empty", extract=False).of(video)
    assert nothing["from"] == "none" and "longground index" in nothing["note"]
    assert not (tmp_path / "empty").exists()  # cache-only mode writes nothing
