"""The footage search page in a real browser: Debian's chromium driven by Playwright against
a real `longground serve` (the retrieval method, offline encoder) on a free loopback port,
over 3 videos (two copies of bikes.mp4 and a cat clip) and a 0-byte file.

A user's path: wait for indexing, search, open a hit (the player at the hit's start within
one frame), step to the next hit by keyboard, select two hits and export FCPXML markers.
Skipped only when /usr/bin/chromium is missing (CI installs it). Set
LONGGROUND_UPDATE_SCREENSHOTS=1 to also write docs/img/serve-*.png.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from xml.etree import ElementTree

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.support.media import bikes_path, cat_video  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
FRAME_S = 1 / 25  # bikes.mp4 runs at 25 fps


def start_server(folder: Path, cache: Path) -> tuple[subprocess.Popen, str]:
    """`longground serve FOLDER` on a free loopback port; the process and its URL."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "longground", "serve", str(folder), "--method", "retrieval",
         "--port", "0", "--rescan", "0.5", "--cache-dir", str(cache)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"no URL: {line!r} {process.stderr.read()}")
    return process, line.split("open ", 1)[1].split()[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    footage = root / "footage"
    (footage / "day 2").mkdir(parents=True)
    shutil.copy(bikes_path(), footage / "street.mp4")
    shutil.copy(bikes_path(), footage / "day 2" / "corner.mp4")
    cat_video(footage / "cat.mp4")
    (footage / "broken.mp4").touch()
    process, url = start_server(footage, root / "cache")
    try:
        yield url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()


@pytest.fixture(scope="module")
def page(site):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        context = browser.new_context(viewport={"width": 1400, "height": 820},
                                      accept_downloads=True)  # fmt: skip
        try:
            yield context.new_page()
        finally:
            browser.close()


def player_time(page) -> float:
    return page.evaluate("document.getElementById('player').currentTime")


def test_a_users_path_from_search_to_fcpxml_markers(page, site, tmp_path):
    page.goto(site)
    expect(page.locator('#videos li[data-state="ready"]')).to_have_count(3, timeout=120_000)
    expect(page.locator('#videos li[data-state="error"] .error-line')).to_have_text(
        "the file is empty (0 bytes)")  # fmt: skip
    page.fill("#query", "a car")
    page.press("#query", "Enter")
    cards = page.locator(".hit")
    expect(cards).to_have_count(2, timeout=60_000)
    expect(page.locator('#videos li:has-text("cat.mp4") .count')).to_have_text("0")
    hits = page.evaluate("state.result.hits")
    assert [h["name"] for h in hits] == ["day 2/corner.mp4", "street.mp4"]

    cards.nth(0).click()
    page.wait_for_function("document.getElementById('player').readyState >= 2")
    assert abs(player_time(page) - hits[0]["start_s"]) <= FRAME_S
    expect(page.locator("#inout-text")).to_contain_text(f"In {hits[0]['start']}")
    _screenshot(page, "serve-search.png")

    page.locator("body").press("n")  # the next hit, by keyboard
    expect(cards.nth(1)).to_have_class("hit current")
    page.wait_for_function("document.getElementById('player').src.endsWith('street.mp4')")
    page.wait_for_function("document.getElementById('player').readyState >= 2")
    assert abs(player_time(page) - hits[1]["start_s"]) <= FRAME_S
    page.locator("body").press("x")  # select it
    cards.nth(0).locator("input").check()
    expect(page.locator("#selected-count")).to_have_text("2 selected")

    page.select_option("#export-format", "fcpxml")
    with page.expect_download() as download:
        page.click("#export")
    saved = tmp_path / "markers.fcpxml"
    download.value.save_as(saved)
    root = ElementTree.parse(saved).getroot()
    clips = {c.get("name"): c.findall("marker") for c in root.findall("asset-clip")}
    assert sorted(clips) == ["corner.mp4", "street.mp4"]
    for hit in hits:
        (marker,) = clips[Path(hit["name"]).name]
        assert marker.get("value") == "a car"
        start_s = Fraction(marker.get("start").removesuffix("s"))
        assert abs(float(start_s) - hit["start_s"]) <= FRAME_S
    expect(page.locator("#export-status")).to_contain_text("exported 2 hits")
    page.click("#explain")
    expect(page.locator("#why")).to_contain_text("retrieval: why: frame scores of 'a car' peak")
    _screenshot(page, "serve-player.png")


def _screenshot(page, name: str) -> None:
    if os.environ.get("LONGGROUND_UPDATE_SCREENSHOTS"):
        page.screenshot(path=str(DOCS_IMG / name))
