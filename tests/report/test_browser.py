"""The report in a real browser: Debian's chromium, driven by Playwright, from file://.

Skipped only when /usr/bin/chromium is missing (CI installs it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from longground.report import build_report
from tests.support.report_data import write_bench

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")


@pytest.mark.parametrize("protocol", ["comet", "single"])
def test_report_loads_cleanly_in_chromium(tmp_path, protocol):
    sync_api = pytest.importorskip("playwright.sync_api")
    gt, preds = write_bench(tmp_path, 40)
    names = ["Near <GT> & co", "Random baseline"]
    page_path = build_report(
        gt, preds, tmp_path / "out", names=names, protocol=protocol, windows=preds[0]
    )
    problems = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.naturalWidth)")
            alts = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.alt)")
            text = page.inner_text("body")
        finally:
            browser.close()
    assert problems == []
    assert len(widths) >= 7 and all(w > 0 for w in widths), widths
    assert all(alts)
    for name in names:
        assert name in text
