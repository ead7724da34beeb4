"""Screenshots of `longground report` and `longground reproduce` for docs/analysis.md and
docs/reproduce.md, in Debian's chromium at 1400 pixels wide.

    PYTHONPATH=src:. python docs/img/make_report_screenshots.py
"""

import contextlib
import io
import json
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright

from longground.cli.main import main
from longground.llm.stub_server import Reply, openai_stub
from longground.report import build_report
from tests.reproduce.test_reproduce import make_tiny_bench
from tests.support.curate_videos import register_colour_encoder
from tests.support.report_data import write_bench

HERE = Path(__file__).parent
WIDTH = 1400
DATA = HERE.parents[1] / "data" / "qvhighlights"
NAMES = ["agent (near the GT)", "monolithic (random answers)", "retrieval (always one interval)"]


def single_report(folder: Path) -> Path:
    """12 queries without attributes or domains, two methods, single protocol."""
    gt, preds = write_bench(folder, 12)
    rows = [json.loads(line) for line in gt.read_text().splitlines()]
    for row in rows:  # no attributes and no domains: those figures are left out
        row.pop("domain")
        row["attributes"] = []
    gt.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return build_report(gt, preds, folder / "out", names=["near GT", "random"], protocol="single")


def comet_report(folder: Path) -> Path:
    """60 queries, three methods; the third answers every query with one interval: its
    Rej.-F1 is 0, its Pearson's r undefined."""
    gt, preds = write_bench(folder, 60)
    always = folder / "pred_c.jsonl"
    always.write_text("".join(json.dumps({"qid": json.loads(line)["qid"],
                                          "intervals": [[10.0, 40.0]]}) + "\n"
                              for line in gt.read_text().splitlines()))  # fmt: skip
    return build_report(gt, [*preds, always], folder / "out", names=NAMES)


def qvhighlights_report(folder: Path) -> Path:
    """Moment-DETR's sample predictions on the first 200 val queries, twice."""
    lines = (DATA / "highlight_val_release.jsonl").read_text().splitlines()[:200]
    gt = folder / "qv_val_200.jsonl"
    gt.write_text("\n".join(lines) + "\n")
    qids = {json.loads(line)["qid"] for line in lines}
    pred = folder / "moment_detr.jsonl"
    pred.write_text("".join(line + "\n" for line in
                            (DATA / "moment_detr_sample_val_preds.jsonl").read_text().splitlines()
                            if json.loads(line)["qid"] in qids))  # fmt: skip
    return build_report(gt, [pred, pred], folder / "out", protocol="qvhighlights",
                        names=["Moment-DETR (sample predictions)", "Moment-DETR, again"])


def reproduce_page(folder: Path) -> Path:
    """`reproduce comet-table2` on the tests' three-query benchmark against the scripted
    server, its Markdown rendered as a page."""
    bench = make_tiny_bench(folder)
    with openai_stub(default=Reply("[[4, 10]]")) as stub, \
            contextlib.redirect_stdout(io.StringIO()) as printed:  # fmt: skip
        argv = ["reproduce", "comet-table2", str(bench), "--out", str(folder / "repro"),
                "--base-url", stub.url, "--model", "stub-vlm", "--encoder",
                register_colour_encoder(), "--cache-dir", str(folder / "cache")]  # fmt: skip
        assert main(argv) == 0
    text = printed.getvalue().replace(str(folder) + "/", "")
    body = MarkdownIt("commonmark").enable("table").render(text)
    page = folder / "reproduce.html"
    page.write_text(
        "<!DOCTYPE html><meta charset='utf-8'><style>body{font-family:system-ui,sans-serif;"
        "max-width:1100px;margin:1em auto;color:#222}table{border-collapse:collapse;"
        "font-size:.9em}th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:right}"
        "th:first-child,td:first-child{text-align:left}li{margin:.3em 0}</style>" + body
    )
    return page


def shoot(browser, page_path: Path, shots: dict[str, str]) -> None:
    """`{file name: CSS selector}`: one screenshot of each element of the page."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, page_path
    for name, selector in shots.items():
        if selector == "#methods-to-how":  # the tables and the notes under them
            top = page.locator("#methods").bounding_box()
            end = page.locator("#how-methods").bounding_box()
            clip = {"x": 0, "y": top["y"] - 40, "width": WIDTH,
                    "height": end["y"] + end["height"] - top["y"] + 50}  # fmt: skip
            page.screenshot(path=str(HERE / name), clip=clip, full_page=True)
        elif selector == "#methods-to-left-out":
            top = page.locator("#methods").bounding_box()
            end = page.locator("#left-out").bounding_box()
            clip = {"x": 0, "y": top["y"] - 10, "width": WIDTH,
                    "height": end["y"] + end["height"] - top["y"] + 20}  # fmt: skip
            page.screenshot(path=str(HERE / name), clip=clip, full_page=True)
        else:
            page.locator(selector).screenshot(path=str(HERE / name))
    page.close()


def main_() -> None:
    folder = Path(tempfile.mkdtemp())
    pages = {}
    for name, make in (("single", single_report), ("comet", comet_report),
                       ("qv", qvhighlights_report), ("repro", reproduce_page)):  # fmt: skip
        (folder / name).mkdir()
        pages[name] = make(folder / name)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        shoot(browser, pages["single"], {"report-how-to-read.png": "#methods-to-left-out",
                                         "report-timelines-single.png": "#fig-timelines_worst"})
        shoot(browser, pages["comet"], {"report-comet-methods.png": "#methods-to-how",
                                        "report-by-attribute.png": "#fig-by_attribute",
                                        "report-count-calibration.png": "#fig-count_calibration",
                                        "report-timelines-best.png": "#fig-timelines_best"})
        shoot(browser, pages["qv"], {"report-qvhighlights-methods.png": "#methods-to-how"})
        shoot(browser, pages["repro"], {"reproduce-comet-table2.png": "body"})
        browser.close()


if __name__ == "__main__":
    main_()
