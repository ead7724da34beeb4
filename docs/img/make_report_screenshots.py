"""Screenshots of the report's fixed figures for docs/analysis.md, in Debian's chromium.

    PYTHONPATH=src:. python docs/img/make_report_screenshots.py
"""

import json
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from longground.report import build_report
from tests.support.report_data import write_bench

HERE = Path(__file__).parent
folder = Path(tempfile.mkdtemp())
gt, preds = write_bench(folder, 12)
rows = [json.loads(line) for line in gt.read_text().splitlines()]
for row in rows:  # no attributes and no domains: those figures are left out
    row.pop("domain")
    row["attributes"] = []
gt.write_text("".join(json.dumps(r) + "\n" for r in rows))
page_path = build_report(gt, preds, folder / "out", names=["near GT", "random"], protocol="single")
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1150, "height": 900})
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    box = page.locator("#methods").bounding_box()
    end = page.locator("#left-out").bounding_box()
    height = end["y"] + end["height"] - box["y"] + 20
    clip = {"x": 0, "y": box["y"] - 10, "width": 1150, "height": height}
    page.screenshot(path=str(HERE / "report-how-to-read.png"), clip=clip, full_page=True)
    page.locator("#fig-timelines_worst").screenshot(path=str(HERE / "report-timelines-single.png"))
    browser.close()
