"""The annotation page in a real browser: Debian's chromium driven by Playwright against a
real `longground annotate serve` on a free loopback port, with a generated H.264 video.

Skipped only when /usr/bin/chromium is missing (CI installs it). Set
LONGGROUND_UPDATE_SCREENSHOTS=1 to also write docs/img/annotate-*.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from longground.formats import load_samples, write_samples  # noqa: E402
from longground.video.writer import VideoWriter  # noqa: E402
from tests.annotate.test_api import SRC, start_server, stop  # noqa: E402

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip
CLIP_S = 8.0
QUERIES = {
    "kitchen.mp4": [
        ("Every time the yellow box crosses the middle of the frame", [[0.4, 1.2], [4.0, 5.0]]),
        ("The background turns green after a blue scene", [[2.0, 3.0]]),
        ("A person waves at the camera", []),
    ],
    "match.mp4": [
        ("Each time the scene changes colour", [[1.0, 1.5], [3.0, 3.5], [5.0, 5.5]]),
        ("The box moves right while the background is orange", [[1.0, 2.0]]),
    ],
    "lobby.mp4": [("Every moment the yellow box is at the left edge", [[0.0, 0.2]])],
}


def write_scenes(path: Path) -> None:
    """8 s of coloured scenes (one per 2 s) with a yellow box sweeping across each second."""
    colours = [(40, 60, 110), (40, 110, 60), (120, 70, 40), (90, 90, 30)]
    with VideoWriter(path, 320, 180, fps=25) as writer:
        for i in range(round(CLIP_S * 25)):
            image = np.empty((180, 320, 3), np.uint8)
            image[:] = colours[(i // 50) % 4]
            x = int((i % 25) / 25 * 280)
            image[70:110, x : x + 40] = (240, 200, 40)
            writer.write(image)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Videos, a benchmark, predictions and a running server; stopped at the end."""
    root = tmp_path_factory.mktemp("site")
    videos = root / "videos"
    videos.mkdir()
    write_scenes(videos / "kitchen.mp4")
    for name in ("match.mp4", "lobby.mp4"):
        shutil.copy(videos / "kitchen.mp4", videos / name)
    rows, number = [], 0
    for video, queries in QUERIES.items():
        for text, spans in queries:
            number += 1
            attributes = ["dynamic"] if spans else ["negative"]
            rows.append(
                {
                    "qid": f"q{number}",
                    "video": video,
                    "duration": CLIP_S,
                    "query": text,
                    "intervals": spans,
                    "attributes": attributes,
                    "domain": "demo",
                }
            )
    bench = root / "bench.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pred = root / "pred.jsonl"
    pred.write_text(
        "".join(
            json.dumps({"qid": r["qid"], "intervals": [[0.5, 1.4], [6.0, 7.0]]}) + "\n"
            for r in rows
        )
    )
    db = root / "a.db"
    process, url = start_server(bench, videos, db, "--pred", str(pred), "--annotator", "dana",
                                "--cache-dir", str(root / "cache"))  # fmt: skip
    try:
        yield {"root": root, "bench": bench, "db": db, "url": url}
    finally:
        stop(process)


def launch_chromium(*extra_args: str):
    """Debian's chromium under Playwright, closed when the generator is closed."""
    with sync_playwright() as playwright:
        args = [*CHROMIUM_ARGS, *extra_args]
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def browser():
    yield from launch_chromium()


def stored(site, qid: str) -> dict:
    import httpx

    return httpx.get(f"{site['url']}api/queries/{qid}", timeout=5).json()


def wait_saved(page, qid: str, version: int) -> None:
    """Wait until the page shows the server's answer to an edit of `qid`."""
    page.wait_for_function(
        "([qid, v]) => document.querySelector('#message').textContent === "
        "`Saved ${qid} (version ${v})`",
        arg=[qid, version],
    )


def open_page(browser, url: str, problems: list[str]):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.on(
        "console",
        lambda m: (
            problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def keep_screenshot(page, name: str) -> None:
    if os.environ.get("LONGGROUND_UPDATE_SCREENSHOTS"):
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(DOCS_IMG / name))


def provoked(problems: list[str], *codes: int) -> list[str]:
    """The problems left after removing the browser's notes of the error answers a test
    asked for on purpose (chromium logs each non-2xx fetch as a console error)."""
    return [p for p in problems if not any(f"status of {c}" in p for c in codes)]


def test_a_whole_review_in_the_browser(site, browser):
    problems: list[str] = []
    page = open_page(browser, site["url"], problems)
    card = page.locator("article[data-qid=q1]")

    # Query verification: tag, rewrite the text, verify; discard another query.
    card.locator("button[data-attr=causal]").click()
    wait_saved(page, "q1", 2)
    card.locator("textarea").fill("Every time the yellow box crosses the middle")
    # Press Verify and hold it until the text change (sent on leaving the box) is saved: the
    # card must keep its button, or the click is lost (as it was once, on a loaded machine).
    card.locator("button.verify").hover()
    page.mouse.down()
    wait_saved(page, "q1", 3)
    page.mouse.up()
    wait_saved(page, "q1", 4)
    assert card.locator("[data-badge=review]").inner_text() == "Verified"
    assert card.locator("button[data-attr=causal]").get_attribute("aria-pressed") == "true"
    page.locator("article[data-qid=q2] button.discard").click()
    wait_saved(page, "q2", 2)
    keep_screenshot(page, "annotate-verify.png")

    # Interval refinement: the player plays the H.264 clip served from /media.
    card.locator("button.to-refine").click()
    page.wait_for_function("document.querySelector('#player').readyState >= 1")
    assert abs(page.evaluate("document.querySelector('#player').duration") - CLIP_S) < 0.1
    rows = page.locator("#intervals tbody tr")
    assert rows.count() == 2

    # Edit an interval by typing; a bad time is refused with the server's reason.
    rows.nth(0).locator("input.end").fill("00:00:02.5")
    rows.nth(0).locator("input.end").press("Enter")
    wait_saved(page, "q1", 5)
    rows.nth(0).locator("input.start").fill("1.5")
    rows.nth(0).locator("input.start").press("Enter")
    wait_saved(page, "q1", 6)
    assert stored(site, "q1")["intervals"][0] == [1.5, 2.5]
    rows.nth(0).locator("input.end").fill("00:00:01")
    rows.nth(0).locator("input.end").press("Enter")
    page.wait_for_function("document.querySelector('#message').className === 'error'")
    assert "must be after its start" in page.locator("#message").inner_text()
    assert stored(site, "q1")["version"] == 6

    # Seek by clicking the timeline (40% of 8 s), then set the end from the playhead.
    box = page.locator("#timeline").bounding_box()
    page.mouse.click(box["x"] + 0.4 * box["width"], box["y"] + box["height"] - 4)
    page.wait_for_function("Math.abs(document.querySelector('#player').currentTime - 3.2) < 0.05")
    playhead_s = page.evaluate("document.querySelector('#player').currentTime")
    rows.nth(0).locator("button.end-from-playhead").click()
    wait_saved(page, "q1", 7)
    assert stored(site, "q1")["intervals"][0] == [1.5, playhead_s]

    # Add an interval at the playhead, then delete the old second one.
    page.evaluate("document.querySelector('#player').currentTime = 6")
    page.wait_for_function("document.querySelector('#playhead').textContent === '00:00:06.0'")
    page.locator("#add-interval").click()
    wait_saved(page, "q1", 8)
    assert rows.count() == 3
    rows.nth(1).locator("button.delete").click()
    wait_saved(page, "q1", 9)
    assert stored(site, "q1")["intervals"] == [[1.5, playhead_s], [6.0, 7.0]]

    # Mark the query annotated; the timeline draws both intervals and both predictions.
    page.locator("#annotated-flag").check()
    wait_saved(page, "q1", 10)
    assert page.locator("#lane-gt .span").count() == 2
    assert page.locator("#lane-pred .span").count() == 2
    page.locator("#refine-text").click()  # focus off the inputs: keys are shortcuts now
    page.keyboard.press("1")
    assert page.locator("#view-verify").is_visible()
    page.keyboard.press("2")
    assert page.locator("#view-refine").is_visible()

    # Reload: everything is still there, and the page opens where it was.
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#view-refine").is_visible()
    values = [
        [
            rows.nth(i).locator("input.start").input_value(),
            rows.nth(i).locator("input.end").input_value(),
        ]
        for i in range(rows.count())
    ]
    assert values == [
        ["00:00:01.5", stored(site, "q1")["intervals_hms"][0][1]],
        ["00:00:06.0", "00:00:07.0"],
    ]
    assert page.locator("#annotated-flag").is_checked()
    badges = page.locator("#refine-badges [data-badge]").all_inner_texts()
    assert badges == ["Verified", "Annotated"]
    page.wait_for_function("document.querySelector('#player').readyState >= 2")
    page.evaluate("document.querySelector('#player').currentTime = 1.8")
    page.wait_for_function("document.querySelector('#playhead').textContent === '00:00:01.8'")
    # Play a moment and pause, so the player's controls drop their loading spinner.
    page.evaluate("document.querySelector('#player').muted = true")
    page.evaluate("document.querySelector('#player').play()")
    page.wait_for_function("document.querySelector('#player').currentTime > 1.9")
    page.evaluate("document.querySelector('#player').pause()")
    page.wait_for_timeout(500)
    keep_screenshot(page, "annotate-refine.png")
    page.locator("#tab-verify").click()
    assert card.locator("textarea").input_value() == "Every time the yellow box crosses the middle"
    assert card.locator("button[data-attr=causal]").get_attribute("aria-pressed") == "true"
    assert page.locator("article[data-qid=q2] [data-badge=review]").inner_text() == "Discarded"
    progress = page.locator("#videos li[data-video='kitchen.mp4'] .progress").inner_text()
    assert progress == "1 verified / 1 annotated / 3 total"

    # Export: the edited query as edited, the discarded one left out, the rest unchanged.
    out = site["root"] / "export.jsonl"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "longground",
            "annotate",
            "export",
            "--db",
            str(site["db"]),
            "--out",
            str(out),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    canonical = site["root"] / "canonical.jsonl"
    write_samples(canonical, load_samples(site["bench"]))
    expected = [json.loads(line) for line in canonical.read_text().splitlines()]
    expected[0].update(
        query="Every time the yellow box crosses the middle",
        intervals=[[1.5, playhead_s], [6.0, 7.0]],
        attributes=["causal", "dynamic"],
    )
    del expected[1]
    for row in expected:  # written relative to the exported file: it resolves where it lies
        row["video"] = f"videos/{row['video']}"
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert exported == expected
    assert all((out.parent / row["video"]).is_file() for row in exported)
    assert provoked(problems, 422) == []
    page.close()


def test_a_stale_tab_is_told_and_reloaded(site, browser):
    problems: list[str] = []
    first = open_page(browser, site["url"], problems)
    second = open_page(browser, site["url"], problems)
    first.locator("article[data-qid=q3] textarea").fill("Somebody waves")
    first.locator("article[data-qid=q3] button.verify").click()
    version = stored(site, "q3")["version"]
    wait_saved(first, "q3", version)
    second.locator("article[data-qid=q3] button[data-attr=identity]").click()
    second.wait_for_function("document.querySelector('#message').className === 'error'")
    assert "changed meanwhile" in second.locator("#message").inner_text()
    assert second.locator("article[data-qid=q3] textarea").input_value() == "Somebody waves"
    assert stored(site, "q3")["attributes"] == ["negative"]
    assert provoked(problems, 409) == []
    first.close()
    second.close()


def test_the_navigator_filters_and_switches_videos(site, browser):
    import httpx

    problems: list[str] = []
    page = open_page(browser, site["url"], problems)
    page.locator("#video-filter").fill("lob")
    # the list is redrawn after the filter's input event: wait for it, don't read it at once
    expect(page.locator("#videos li")).to_have_count(1)
    expect(page.locator("#videos li").first).to_have_text(re.compile(r"^lobby\.mp4"))
    page.locator("#videos li").first.click()
    page.wait_for_selector("article[data-qid=q6]")
    assert page.locator("#verify-title").inner_text() == "Queries of lobby.mp4"
    page.locator("#video-filter").fill("")
    page.locator("#video-status").select_option("to-verify")
    videos = httpx.get(f"{site['url']}api/videos", timeout=5).json()["videos"]
    to_verify = [v["video"] for v in videos if v["verified"] + v["discarded"] < v["total"]]
    assert "lobby.mp4" in to_verify
    expect(page.locator("#videos li")).to_have_count(len(to_verify))
    shown = page.locator("#videos li").evaluate_all("items => items.map(i => i.dataset.video)")
    assert shown == to_verify
    page.locator("#status-filter").select_option("unverified")
    page.wait_for_function("document.querySelectorAll('#cards article').length === 1")
    assert problems == []
    page.close()


def test_clips_the_first_interval_and_time_marks(site, browser, tmp_path):
    """The verification view plays each query's clip (its first interval), the refinement
    view opens at the first interval, and the timeline is marked in HH:MM:SS."""
    problems: list[str] = []
    page = open_page(browser, site["url"], problems)
    page.locator("#videos li[data-video='match.mp4']").click()
    card = page.locator("article[data-qid=q4]")
    card.wait_for()
    clip = card.locator("video.clip")
    assert clip.get_attribute("src").endswith("/media/match.mp4#t=1.00,1.50")
    clip.evaluate("v => { v.muted = true; return v.play(); }")
    clip.evaluate("v => new Promise(done => v.paused ? done() : v.addEventListener('pause', done))")
    played_to_s = clip.evaluate("v => v.currentTime")
    assert 1.4 <= played_to_s <= 1.6  # it started at 1.0 and stopped at the interval's end
    page.screenshot(path=str(tmp_path / "verify-clips.png"))
    card.locator("button.to-refine").click()
    page.wait_for_function("Math.abs(document.querySelector('#player').currentTime - 1.0) < 0.01")
    assert page.locator("#intervals tbody tr.selected").get_attribute("data-index") == "0"
    marks = page.locator("#ticks .tick").all_inner_texts()
    seconds = [int(m[-2:]) for m in marks]
    assert all(len(m) == 8 and m.startswith("00:00:") for m in marks), marks  # HH:MM:SS
    assert seconds[0] == 0 and len(set(np.diff(seconds))) == 1 and 3 <= len(marks) <= 9
    page.wait_for_function("document.querySelector('#playhead').textContent === '00:00:01.0'")
    page.screenshot(path=str(tmp_path / "refine-ticks.png"))
    if os.environ.get("LONGGROUND_KEEP_SHOTS"):
        for name in ("verify-clips.png", "refine-ticks.png"):
            shutil.copy(tmp_path / name, Path(os.environ["LONGGROUND_KEEP_SHOTS"]) / name)
    page.keyboard.press("n")  # the next query opens at its own first interval
    page.wait_for_function("Math.abs(document.querySelector('#player').currentTime - 1.0) < 0.01")
    assert problems == []
    page.close()


def test_a_press_held_through_a_save_still_lands(site, browser):
    """Typing a time and then pressing a button of the same row saves the time first (on
    leaving the box); the row must survive that save, or the press is lost with it."""
    problems: list[str] = []
    page = open_page(browser, site["url"], problems)
    page.locator("#videos li[data-video='match.mp4']").click()
    page.locator("article[data-qid=q5] button.to-refine").click()
    row = page.locator("#intervals tbody tr").nth(0)
    row.locator("input.end").fill("00:00:02.5")
    row.locator("button.delete").hover()
    page.mouse.down()
    wait_saved(page, "q5", 2)
    assert stored(site, "q5")["intervals"] == [[1.0, 2.5]]
    page.mouse.up()
    wait_saved(page, "q5", 3)
    assert stored(site, "q5")["intervals"] == []
    assert problems == []
    page.close()
