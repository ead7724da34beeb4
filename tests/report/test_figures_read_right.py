"""Figures and tables that cannot mislead (issue 38): a zero is a bar you see, an undefined
value a hatched n/a slot; no title or label is cut at a figure's edge; the legend covers no
bar; the methods tables fit a 1400-pixel window; the subtitle names the units of the table
it stands over; an undefined Pearson's r reads n/a."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from longground.report import build_report
from longground.report.inputs import load_inputs
from longground.report.summary_figures import ZERO_BAR, breakdown_bars, count_scatter
from longground.report.timelines import pick_queries, query_scores, timeline_figure
from tests.support.report_data import write_bench

LONG_NAMES = ["retrieval (label-bridge, always answers)", "monolithic (random answers)",
              "agent with a rather long configuration name"]  # fmt: skip


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """60 queries, three methods: near the GT, random, and one answering every query with
    one interval (Rej.-F1 0, R@0.5 0 in most groups, Pearson undefined)."""
    folder = tmp_path_factory.mktemp("read-right")
    gt, preds = write_bench(folder, 60)
    rows = [json.loads(line) for line in gt.read_text().splitlines()]
    always = folder / "pred_c.jsonl"
    always.write_text("".join(json.dumps({"qid": r["qid"], "intervals": [[10.0, 40.0]]}) + "\n"
                              for r in rows))  # fmt: skip
    return load_inputs(gt, [*preds, always], LONG_NAMES), (gt, [*preds, always])


def _drawn(figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    figure.canvas.draw()
    return figure.canvas.get_renderer()


def test_a_zero_is_a_visible_bar_and_undefined_a_hatched_slot(report):
    inputs, _ = report
    drawn = breakdown_bars(inputs, "attribute")
    ax_recall, ax_rej = drawn.figure.axes[:2]
    table = inputs.methods[2].result.by["attribute"]
    assert table["causal"]["rej_f1"] == 0.0 and table["negative"]["rej_f1"] is None
    groups = list(table)
    heights = {round(p.get_x() + p.get_width() / 2, 3): p for p in ax_rej.patches}
    hatched = [p for p in ax_rej.patches if p.get_hatch() == "///"]
    texts = [t.get_text() for t in ax_rej.texts]
    # every method is undefined in the "negative" group: one hatched slot each, marked n/a
    assert len(hatched) == len(inputs.methods) and texts.count("n/a") == len(inputs.methods)
    # the always-answering method's zeros: a thin bar of its colour with a "0" above
    zero_bars = [p for p in heights.values() if p.get_height() == ZERO_BAR]
    zeros = sum(1 for g in groups if table[g]["rej_f1"] == 0.0)
    assert len(zero_bars) >= zeros > 0 and texts.count("0") >= zeros
    assert ax_recall.get_legend() is None and ax_rej.get_legend() is None  # above the panels
    assert "hatched" in drawn.caption and "labelled 0" in drawn.caption


def _all_inside(figure) -> bool:
    """Whether everything drawn (titles, tick labels, texts) lies inside the figure."""
    drawn = figure.get_tightbbox(_drawn(figure))
    box = figure.bbox_inches
    return drawn.x0 >= box.x0 - 0.01 and drawn.x1 <= box.x1 + 0.01 and drawn.y1 <= box.y1 + 0.01


@pytest.mark.parametrize("which", ["worst", "best"])
def test_timeline_titles_and_lane_labels_are_never_cut(report, which):
    inputs, _ = report
    worst, best = pick_queries(query_scores(inputs))
    drawn = timeline_figure(inputs, worst if which == "worst" else best, which)
    assert _all_inside(drawn.figure)
    for ax in drawn.figure.axes:
        title = ax.get_title(loc="left")
        assert "\n" in title and title.endswith("%]")  # wrapped, scores whole
        assert all(name in title.replace("\n", " ") for name in LONG_NAMES)


def test_count_titles_are_never_cut_and_an_undefined_pearson_reads_n_a(report):
    inputs, _ = report
    drawn = count_scatter(inputs)
    assert _all_inside(drawn.figure)
    assert drawn.figure.axes[2].get_title().endswith("Pearson n/a")
    assert "r = n/a" in drawn.alt


CHROMIUM = Path("/usr/bin/chromium")


def _page_facts(page_path: Path) -> dict:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            facts = {
                "scroll_width": page.evaluate("document.documentElement.scrollWidth"),
                "tables_right": page.eval_on_selector_all(
                    "table", "ts => ts.map(t => t.getBoundingClientRect().right)"
                ),
                "subtitle": page.inner_text("p.small"),
                "pearson": page.eval_on_selector_all(
                    "td[data-key=pearson]", "cs => cs.map(c => c.innerText)"
                ),
            }
        finally:
            browser.close()
    return facts


def test_the_comet_page_fits_and_says_its_units(report, tmp_path):
    _, (gt, preds) = report
    page = build_report(gt, preds, tmp_path / "out", names=LONG_NAMES)
    facts = _page_facts(page)
    assert facts["scroll_width"] <= 1400 and max(facts["tables_right"]) <= 1400
    assert "in percent, except MAE (intervals) and Pear. r (correlation, -1 to 1)" in (
        facts["subtitle"]
    )
    assert facts["pearson"][2] == "n/a"


def test_the_single_page_has_no_mae_in_its_subtitle(report, tmp_path):
    _, (gt, preds) = report
    page = build_report(gt, preds, tmp_path / "out", names=LONG_NAMES, protocol="single")
    facts = _page_facts(page)
    assert "MAE" not in facts["subtitle"] and "Metrics in percent." in facts["subtitle"]


def test_the_qvhighlights_page_fits_a_1400_pixel_window(shared_data, tmp_path):
    folder = shared_data / "qvhighlights"
    gt = tmp_path / "gt.jsonl"
    lines = (folder / "highlight_val_release.jsonl").read_text().splitlines()[:100]
    gt.write_text("\n".join(lines) + "\n")
    qids = {json.loads(line)["qid"] for line in lines}
    pred = tmp_path / "Moment-DETR sample predictions.jsonl"
    pred.write_text("".join(
        line + "\n" for line in (folder / "moment_detr_sample_val_preds.jsonl").read_text()
        .splitlines() if json.loads(line)["qid"] in qids
    ))  # fmt: skip
    page = build_report(gt, [pred, pred], tmp_path / "out", protocol="qvhighlights",
                        names=["Moment-DETR (sample predictions)", "the same, again"])
    facts = _page_facts(page)
    assert facts["scroll_width"] <= 1400 and max(facts["tables_right"]) <= 1400
    assert "MAE" not in facts["subtitle"] and "Metrics in percent." in facts["subtitle"]
    assert np.isfinite(max(facts["tables_right"]))
