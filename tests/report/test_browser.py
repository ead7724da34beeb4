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


def strip_labels(gt: Path) -> Path:
    """The benchmark with no attributes and no domains (nothing to break down by)."""
    import json

    rows = [json.loads(line) for line in gt.read_text().splitlines()]
    for row in rows:
        row.pop("domain")
        row["attributes"] = []
    gt.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return gt


def test_the_fixed_figures_in_chromium(tmp_path):
    """Best and worst lists never overlap; the single protocol's timelines say that only the
    first window is scored; no figure of a "(none)" group, but a line saying why."""
    sync_api = pytest.importorskip("playwright.sync_api")
    gt, preds = write_bench(tmp_path, 12)
    page_path = build_report(strip_labels(gt), preds, tmp_path / "out", protocol="single")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            page = browser.new_page()
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            ids = page.eval_on_selector_all("figure", "fs => fs.map(f => f.id)")
            alt = {i: page.get_attribute(f"#{i} img", "alt") for i in ids}
            left_out = page.inner_text("#left-out")
            how = page.inner_text("#how-methods")
        finally:
            browser.close()
    assert "fig-by_attribute" not in ids and "fig-by_domain" not in ids
    assert "(none)" not in " ".join(alt.values())
    assert "Metrics per attribute: left out, no query of the benchmark has an attribute" in left_out
    worst, best = (_qids(alt[f"fig-timelines_{w}"]) for w in ("worst", "best"))
    assert worst and best and not worst & best
    assert "first interval is scored" in alt["fig-timelines_worst"]
    assert "first interval is scored" in how


def _qids(alt: str) -> set[str]:
    return set(alt.split("(", 1)[1].split(")", 1)[0].split(", "))
