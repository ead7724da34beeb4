"""The window-clipping sweep: windows, crops, retrieval on a crop, resuming, scoring, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from longground import Moments, Sample
from longground.cli.main import main
from longground.errors import UserError
from longground.methods import MethodConfig
from longground.methods.base import Grounding
from longground.sweep import (
    CROP_METHODS,
    Window,
    parse_windows,
    prepare_out,
    run_sweep,
    score_sweep,
    write_results,
)
from longground.sweep.crop import CroppedRetrieval
from longground.sweep.run import answered_qids
from tests.methods.test_retrieval import FakeStore, FakeTimeline  # the video's index, built once


@pytest.mark.parametrize(
    "text, message",
    [("15s,abc", "'abc'"), ("0s", "positive"), ("5m,5m", "repeated"), ("", "is not")],
)
def test_bad_windows(text, message):
    with pytest.raises(UserError, match=message):
        parse_windows(text)


def test_crop_is_centred_on_the_first_gt_midpoint_and_clipped():
    gt = np.array([[100.0, 140.0], [900.0, 950.0]])
    assert Window("30s", 30.0).crop(gt, 1000.0) == (90.0, 150.0)
    assert Window("2m", 120.0).crop(gt, 1000.0) == (0.0, 240.0)
    assert Window("20m", 1200.0).crop(gt, 1000.0) == (0.0, 1000.0)
    assert Window("full", None).crop(gt, 1000.0) == (0.0, 1000.0)


class FakeEncoder:
    default_threshold = 0.5

    def __init__(self, curve):
        self.curve = curve

    def score(self, features, text):
        return self.curve


def curve_600() -> np.ndarray:
    """A weak peak at 100-110 s (the GT) and a strong decoy at 400-410 s."""
    curve = np.zeros(600)
    curve[100:110] = 0.6
    curve[400:410] = 1.0
    return curve


def cropped(curve=None, store=None):
    store = store or FakeStore(FakeTimeline(np.arange(600.0), {}, 600.0))
    config = MethodConfig(single=True, params={"smooth_s": "1"})
    return CroppedRetrieval(config, encoder=FakeEncoder(curve_600()), store=store), store


def test_retrieval_sees_only_the_crop_and_answers_in_video_time():
    method, store = cropped()
    full = method.ground(Path("v.mp4"), "q").moments.to_list()
    assert full == [[400.0, 410.0]]  # the decoy wins on the whole video
    crop = method.ground_crop(Path("v.mp4"), "q", 75.0, 135.0)
    assert crop.moments.to_list() == [[100.0, 110.0]]  # inside the crop: the GT peak
    assert crop.trace["crop_s"] == [75.0, 135.0]
    tiny = method.ground_crop(Path("v.mp4"), "q", 102.0, 104.0)  # shorter than 4 s: clipped
    assert tiny.moments.to_list() == [[102.0, 104.0]]
    assert method.ground(Path("v.mp4"), "q").moments.to_list() == full  # crop reset
    assert store.calls == 4  # the same index each time


class CountingMethod:
    """Answers the crop itself; counts calls."""

    def __init__(self):
        self.calls = []

    def ground_crop(self, video, query, start_s, end_s):
        self.calls.append(query)
        if query == "boom":
            raise UserError("model crashed")
        return Grounding(Moments.from_list([[start_s, end_s]]))


def samples_on(folder: Path) -> list[Sample]:
    (folder / "v.mp4").write_bytes(b"")
    return [
        Sample("a", "v.mp4", 600.0, "one", Moments.from_list([[100, 110]])),
        Sample("b", "v.mp4", 600.0, "two", Moments.from_list([[300, 360]])),
        Sample("n", "v.mp4", 600.0, "neg", Moments.empty()),  # negatives are not swept
        Sample("c", "gone.mp4", 600.0, "three", Moments.from_list([[0, 10]])),
        Sample("d", "v.mp4", 600.0, "boom", Moments.from_list([[0, 10]])),
    ]


def test_run_resumes_after_a_torn_line_and_scores(tmp_path):
    samples = samples_on(tmp_path)
    windows = parse_windows("30s,full")
    method = CountingMethod()
    files = run_sweep(samples, {"m": method}, windows, tmp_path / "out", [tmp_path])
    first = files["m"]["30s"].read_text()
    records = [json.loads(line) for line in first.splitlines()]
    assert {r["qid"] for r in records} == {"a", "b", "c", "d"}
    by_qid = {r["qid"]: r for r in records}
    assert by_qid["a"]["intervals"] == [[75.0, 135.0]] and by_qid["a"]["crop_s"] == [75.0, 135.0]
    assert by_qid["c"]["error"] == "video not found: gone.mp4"
    assert by_qid["d"]["error"] == "model crashed"
    # a kill mid-line: the torn line is dropped and only that query runs again
    files["m"]["30s"].write_text(first + '{"qid": "x", "interv')
    files["m"]["full"].write_text("\n".join(first.splitlines()[:2]) + "\n")
    method.calls.clear()
    run_sweep(samples, {"m": method}, windows, tmp_path / "out", [tmp_path])
    assert files["m"]["30s"].read_text() == first
    # answers are written video by video (gone.mp4 first): the full file kept c and a
    assert sorted(method.calls) == ["boom", "two"]
    assert answered_qids(files["m"]["full"]) == {"a", "b", "c", "d"}
    rows = score_sweep(samples, files, windows)
    # crop answers: a = [75,135] vs [100,110]: 10/60; b = [300,360] exact; c, d failed
    assert rows[0]["miou"] == pytest.approx((10 / 60 + 1.0) / 4)
    # crops: a [75, 135], b [300, 360], c and d [0, 35] -> (60 + 60 + 35 + 35) / 4
    assert rows[0]["n_queries"] == 4 and rows[0]["mean_crop_s"] == pytest.approx(47.5)
    assert rows[1]["window"] == "full" and rows[1]["mean_crop_s"] == 600.0
    table = write_results(rows, windows, tmp_path / "out")
    assert "| m | 30s |" in table
    for name in ("results.json", "table.md", "miou_vs_window.png", "miou_vs_window.pdf"):
        assert (tmp_path / "out" / name).stat().st_size > 0


def test_other_settings_are_refused_unless_overwrite(tmp_path):
    first, second = {"methods": ["m"], "windows": ["30s"]}, {"methods": ["m"], "windows": ["5m"]}
    prepare_out(tmp_path / "o", first, overwrite=False)
    prepare_out(tmp_path / "o", first, overwrite=False)  # same: resumes
    with pytest.raises(UserError, match="other settings"):
        prepare_out(tmp_path / "o", second, overwrite=False)
    (tmp_path / "o" / "m").mkdir()
    (tmp_path / "o" / "m" / "30s.jsonl").write_text("{}\n")
    (tmp_path / "o" / "m" / "notes.jsonl").write_text("mine\n")
    prepare_out(tmp_path / "o", second, overwrite=True)
    assert not (tmp_path / "o" / "m" / "30s.jsonl").exists()
    assert (tmp_path / "o" / "m" / "notes.jsonl").read_text() == "mine\n"  # not a sweep's


def test_a_folder_of_other_files_is_refused_unless_overwrite(tmp_path):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "table.md").write_text("mine")
    with pytest.raises(UserError, match="not a sweep"):
        prepare_out(tmp_path / "o", {"methods": ["m"], "windows": ["30s"]}, overwrite=False)
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["table.md"]


def test_cli_end_to_end_with_an_index_reused(tmp_path, monkeypatch, capsys):
    store = FakeStore(FakeTimeline(np.arange(600.0), {}, 600.0))
    monkeypatch.setitem(CROP_METHODS, "retrieval", lambda config: cropped(store=store)[0])
    samples_on(tmp_path)
    bench = tmp_path / "bench.jsonl"
    bench.write_text(
        json.dumps(
            {"qid": "a", "video": "v.mp4", "duration": 600, "query": "q", "intervals": [[100, 110]]}
        )
        + "\n"
    )
    args = ["sweep", str(bench), "--out", str(tmp_path / "s"), "--windows", "30s,5m,full"]
    assert main(args) == 0, capsys.readouterr().err
    table = capsys.readouterr().out
    rows = json.loads((tmp_path / "s" / "results.json").read_text())["rows"]
    assert [r["miou"] for r in rows] == [1.0, 0.0, 0.0]  # the decoy at 400 s enters at 5 m
    assert "| retrieval | 30s |" in table and store.calls == 3
    assert main(args) == 0 and store.calls == 3  # resumed: nothing to redo
    assert main([*args[:-1], "30s"]) == 2
    assert "other settings" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--windows", "1x"], "--windows"),
        (["--method", "find"], "cannot run on crops"),
        (["--frames", "8"], "sends no frames"),
        (["--frames", "8,x"], "--frames"),
    ],
)
def test_cli_bad_options(tmp_path, capsys, extra, message):
    bench = tmp_path / "b.jsonl"
    bench.write_text('{"qid": "a", "video": "v", "duration": 9, "query": "q", "intervals": []}\n')
    assert main(["sweep", str(bench), "--out", str(tmp_path / "s"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("longground: error:") and err.count("\n") == 1 and message in err
