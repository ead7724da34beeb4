"""`longground report`: the files it writes, its numbers against `eval --json`, bad input."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser

import pytest

from longground.cli.main import main
from tests.support.report_data import write_bench


class Cells(HTMLParser):
    """Every `data-value` cell of the page, as {(table id, method): {key: value}}, plus the
    `img` tags."""

    def __init__(self):
        super().__init__()
        self.table, self.method, self.cells, self.images = None, None, {}, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.table = attrs.get("id")
        elif tag == "tr":
            self.method = attrs.get("data-method")
        elif tag == "td" and "data-value" in attrs:
            key = (self.table, self.method)
            self.cells.setdefault(key, {})[attrs["data-key"]] = json.loads(attrs["data-value"])
        elif tag == "img":
            self.images.append(attrs)


def parse(page) -> Cells:
    cells = Cells()
    cells.feed(page.read_text())
    return cells


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return write_bench(tmp_path_factory.mktemp("bench"))


def eval_json(capsys, gt, pred, *extra) -> dict:
    capsys.readouterr()
    assert main(["eval", str(gt), str(pred), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("protocol", ["comet", "single"])
def test_report_numbers_equal_eval_json(bench, tmp_path, capsys, protocol):
    gt, preds = bench
    out = tmp_path / "rep"
    args = [
        "report",
        str(gt),
        *map(str, preds),
        "--out",
        str(out),
        "--protocol",
        protocol,
        "--name",
        "near",
        "--name",
        "random",
        "--windows",
        str(preds[0]),
    ]
    assert main(args) == 0, capsys.readouterr().err
    cells = parse(out / "index.html")
    stored = json.loads((out / "report.json").read_text())
    for name, pred in zip(["near", "random"], preds, strict=True):
        expected = eval_json(
            capsys, gt, pred, "--protocol", protocol, "--by", "attribute,domain,duration_x_position"
        )
        row = cells.cells[("methods", name)]
        assert len(row) >= 4
        for key, value in row.items():
            assert value == expected[key], key
        stored_method = dict(stored["methods"][name])
        assert stored_method.pop("file") == str(pred)
        taxonomy = stored_method.pop("taxonomy")
        assert stored_method == expected
        single = eval_json(
            capsys, gt, pred, "--protocol", "single", "--taxonomy", "--windows", str(preds[0])
        )
        assert taxonomy == single["taxonomy"]
        tax = cells.cells[("taxonomy", name)]
        assert {k: v for k, v in tax.items() if k != "n_failures"} == taxonomy["counts"]
        assert tax["n_failures"] == taxonomy["n_failures"]
    recall = cells.cells[("window-recall", None)]
    assert recall == {k: v for k, v in single["window_recall"].items() if "@" in k}


def test_every_figure_has_png_pdf_alt_and_caption(bench, tmp_path, capsys):
    gt, preds = bench
    out = tmp_path / "rep"
    assert main(["report", str(gt), *map(str, preds), "--out", str(out)]) == 0
    page = (out / "index.html").read_text()
    images = parse(out / "index.html").images
    names = {os.path.basename(img["src"])[:-4] for img in images}
    assert names == {
        "by_attribute",
        "by_domain",
        "duration_x_position",
        "count_calibration",
        "negative_plane",
        "timelines_worst",
        "timelines_best",
        "taxonomy",
    }
    for img in images:
        assert len(img["alt"]) > 40
        assert (out / img["src"]).read_bytes()[:4] == b"\x89PNG"
        assert (out / img["src"].replace(".png", ".pdf")).read_bytes()[:4] == b"%PDF"
    assert page.count("<figcaption>") == len(images)
    assert "http://" not in page and "https://" not in page  # opens offline
    assert "pred_a" in page and "pred_b" in page  # default names: the file stems


def test_worst_and_best_queries():
    import numpy as np

    from longground.report.timelines import pick_queries

    scores = np.array([[0.1, np.nan, 0.8, 0.5, 0.0], [0.3, 0.2, 0.6, 0.5, 0.0]])
    worst, best = pick_queries(scores, n=2)
    assert worst.tolist() == [4, 0] and best.tolist() == [2, 3]


def bad_cases(gt, preds, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text('{"qid": "zz1", "intervals": [[1, 2]]}\n')
    folder_file = tmp_path / "afile"
    folder_file.write_text("x")
    inside = tmp_path / "rep2"
    (inside / "figures").mkdir(parents=True)
    moved = inside / "figures" / "p.jsonl"
    moved.write_text(preds[0].read_text())
    return [
        ([str(tmp_path / "missing.jsonl"), str(preds[0])], tmp_path / "r", "no such file"),
        ([str(gt), str(other)], tmp_path / "r", "no prediction names a query"),
        ([str(gt), str(preds[0])], folder_file, "not a folder"),
        ([str(gt), str(preds[0])], folder_file / "sub", "is not a folder"),
        ([str(gt), str(moved), "--overwrite"], inside, "would overwrite the input"),
        ([str(gt), str(preds[0])], inside, "not a longground report"),  # its index.html is mine
        ([str(gt), str(gt)], inside / "index.html", "not a folder"),
        ([str(gt), str(preds[0]), "--name", "x", "--name", "y"], tmp_path / "r", "--name"),
        ([str(gt), str(preds[0]), str(preds[0])], tmp_path / "r", "must differ"),
        ([str(gt), str(preds[0]), "--protocol", "nope"], tmp_path / "r", "nope"),
        ([str(gt), str(preds[0]), "--theta", "2"], tmp_path / "r", "theta"),
    ]


def test_bad_input_is_one_line_and_inputs_survive(bench, tmp_path, capsys):
    gt, preds = bench
    (tmp_path / "rep2").mkdir()
    (tmp_path / "rep2" / "index.html").write_text("mine")
    for args, out, message in bad_cases(gt, preds, tmp_path):
        before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        capsys.readouterr()
        assert main(["report", *args, "--out", str(out)]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("longground: error:") and err.count("\n") == 1, err
        assert message in err, err
        for path, content in before.items():
            assert path.read_bytes() == content
    assert not (tmp_path / "r").exists()  # nothing made for a bad input or option


def test_a_report_replaces_an_earlier_report_only(bench, tmp_path, capsys):
    gt, preds = bench
    out = tmp_path / "r"
    assert main(["report", str(gt), str(preds[0]), "--out", str(out)]) == 0
    assert main(["report", str(gt), *map(str, preds), "--out", str(out)]) == 0  # ours: replaced
    assert len(json.loads((out / "report.json").read_text())["methods"]) == len(preds)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    assert main(["report", str(gt), str(preds[0]), "--out", str(tmp_path / "notes")]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert not (tmp_path / "notes" / "index.html").exists()
    args = ["report", str(gt), str(preds[0]), "--out", str(tmp_path / "notes"), "--overwrite"]
    assert main(args) == 0 and (tmp_path / "notes" / "todo.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_out_folder(bench, tmp_path, capsys):
    gt, preds = bench
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(["report", str(gt), str(preds[0]), "--out", str(locked / "r")]) == 2
        assert "cannot write" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_qvhighlights_report_charts_map_by_length_and_highlights(shared_data, tmp_path, capsys):
    from longground.eval.qvhighlights import evaluate_qvhighlights

    folder = shared_data / "qvhighlights"
    gt, pred = folder / "highlight_val_release.jsonl", folder / "moment_detr_sample_val_preds.jsonl"
    out = tmp_path / "rep"
    argv = ["report", str(gt), str(pred), "--protocol", "qvhighlights", "--out", str(out)]
    assert main(argv) == 0
    names = {os.path.basename(img["src"])[:-4] for img in parse(out / "index.html").images}
    assert names == {"mr_by_length", "mr_by_threshold", "highlights"}
    report = json.loads((out / "report.json").read_text())
    brief = report["methods"][pred.stem]["brief"]
    assert brief == evaluate_qvhighlights(gt, pred)["brief"]
    assert brief["MR-full-mAP"] == 32.2  # Moment-DETR's published figure
    cells = parse(out / "index.html").cells
    assert {**cells[("methods", pred.stem)], **cells[("methods-highlights", pred.stem)]} == brief
