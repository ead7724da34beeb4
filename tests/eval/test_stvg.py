"""`--protocol stvg`: the vectorised scores against the frame-by-frame reference on generated
hostile files, hand-worked examples, the HC-STVG and VidSTG layouts, and bad files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.cli.main import main
from longground.eval import reference
from longground.eval.registry import get_protocol
from longground.eval.stvg import load_and_score, score_stvg
from longground.formats.stvg import Tube, read_tubes
from longground.track import Track

BOX = [0.0, 0.0, 0.5, 0.5]


def tube(qid, span, boxes, times, fps=None) -> Tube:
    return Tube(qid, span, Track(np.array(boxes, float).reshape(-1, 4), times), fps)


def line(t: Tube, truth: bool) -> str:
    record = {"qid": t.qid, "span": list(t.span), "track": t.track.to_dict()}
    if truth:
        record.update(fps=t.fps, video="v.mp4", query="the dog")
    return json.dumps(record)


# Hand-worked: GT [0, 1) s at 5 fps = frames 0-4, a 0.5 x 0.5 box in each.
GT = tube("q", (0.0, 1.0), [BOX] * 5, np.arange(5) / 5, fps=5.0)
HAND = [
    # the same tube: 1 and 1
    (tube("q", (0.0, 1.0), [BOX] * 5, np.arange(5) / 5), 1.0, 1.0),
    # [0.4, 1.4): union frames 0-6 (7), intersection 2-4 (3) boxes equal: 3/7; tIoU 0.6/1.4
    (tube("q", (0.4, 1.4), [BOX] * 5, np.arange(2, 7) / 5), 3 / 7, 3 / 7),
    # the box's lower half in every frame: IoU 0.5
    (tube("q", (0.0, 1.0), [[0.0, 0.25, 0.5, 0.5]] * 5, np.arange(5) / 5), 1.0, 0.5),
    # disjoint in time: 0 and 0
    (tube("q", (2.0, 3.0), [BOX] * 5, 2 + np.arange(5) / 5), 0.0, 0.0),
    # right span, boxes only in two frames: 2/5
    (tube("q", (0.0, 1.0), [BOX] * 2, [0.0, 0.8]), 1.0, 0.4),
    # boxes outside the predicted span do not count: span [0, 0.4) = frames 0, 1 of 5
    (tube("q", (0.0, 0.4), [BOX] * 5, np.arange(5) / 5), 0.4, 0.4),
    # off-grid times go to the nearest frame (0.61 s -> frame 3)
    (tube("q", (0.0, 1.0), [BOX], [0.61]), 1.0, 0.2),
]


@pytest.mark.parametrize(("pred", "tiou", "viou"), HAND)
def test_hand_worked_examples(pred, tiou, viou):
    scores = score_stvg([GT], [pred])
    assert scores.tiou[0] == pytest.approx(tiou) and scores.viou[0] == pytest.approx(viou)
    ref = reference.stvg([GT], [pred])
    assert ref["tiou"][0] == pytest.approx(tiou) and ref["viou"][0] == pytest.approx(viou)


def test_summary_by_hand_and_strict_thresholds():
    """vIoU 0.5 (half boxes) is not above 0.5; a missing query scores 0 and is counted."""
    other = tube("r", (0.0, 1.0), [BOX] * 5, np.arange(5) / 5, fps=5.0)
    scores = score_stvg([GT, other], [HAND[2][0], tube("x", (0.0, 1.0), [BOX], [0.0])])
    metrics = scores.metrics()
    assert metrics["m_tIoU"] == 0.5 and metrics["m_vIoU"] == 0.25
    assert metrics["vIoU@0.3"] == 0.5 and metrics["vIoU@0.5"] == 0.0
    assert metrics["missing"] == 1 and metrics["unknown_qids"] == 1


@st.composite
def hostile_tube(draw, qid: str, fps: float, truth: bool, near: int = 0) -> Tube:
    """A tube on a grid at `fps` whose span starts a few frames from frame `near`: empty
    spans and spans off the grid, zero-size boxes, boxes outside the span, gaps, off-grid
    times (predictions), negative times."""
    span_first = max(near + draw(st.integers(-4, 4)), 0)
    first = span_first + draw(st.integers(-3, 3))
    n = draw(st.integers(0, 12))
    gaps = draw(st.lists(st.integers(1, 2), min_size=n, max_size=n))
    frames = first + np.cumsum(gaps) - (gaps[0] if gaps else 0)
    jitter = draw(st.lists(st.floats(-0.45, 0.45), min_size=n, max_size=n))
    times = (frames + (0 if truth else np.array(jitter, float))) / fps
    coords = draw(st.lists(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), min_size=4,
                                    max_size=4), min_size=n, max_size=n))  # fmt: skip
    c = np.array(coords, float).reshape(-1, 4)
    boxes = np.c_[np.minimum(c[:, :2], c[:, 2:]), np.maximum(c[:, :2], c[:, 2:])]
    start = span_first / fps + draw(st.sampled_from([0.0, 0.3 / fps, 1e-9]))
    length = draw(st.sampled_from([0.0, 1 / fps, 0.5 / fps])) + draw(st.integers(0, 12)) / fps
    return tube(qid, (start, start + length), boxes, times, fps if truth else None)


@st.composite
def benchmarks(draw):
    fps = draw(st.sampled_from([1.0, 5.0, 25.0, 30000 / 1001]))
    qids = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    starts = {q: draw(st.integers(0, 40)) for q in qids}
    truth = [draw(hostile_tube(q, fps, True, starts[q])) for q in qids]
    asked = draw(st.lists(st.sampled_from([*qids, "unknown"]), max_size=8))
    preds = [draw(hostile_tube(q, fps, False, starts.get(q, 0))) for q in asked]
    return truth, preds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(benchmarks())
def test_vectorised_equals_reference_on_hostile_files(tmp_path_factory, case):
    truth, preds = case
    folder = tmp_path_factory.mktemp("stvg")
    gt_path, pred_path = folder / "gt.jsonl", folder / "pred.jsonl"
    gt_path.write_text("\n".join(line(t, True) for t in truth) + "\n")
    pred_path.write_text("\n".join(line(p, False) for p in preds) + "\n")
    scores = load_and_score(gt_path, pred_path)
    ref = reference.stvg(read_tubes(gt_path, True), read_tubes(pred_path, False))
    assert np.allclose(scores.tiou, ref["tiou"], atol=1e-12)
    assert np.allclose(scores.viou, ref["viou"], atol=1e-12)
    for key, value in ref["summary"].items():
        assert scores.metrics()[key] == pytest.approx(value, abs=1e-12)
    assert ((scores.viou >= 0) & (scores.viou <= 1) & (scores.tiou >= 0) & (scores.tiou <= 1)).all()


def test_hcstvg_layouts_read_alike(tmp_path):
    """The released layout (1 box a frame from st_frame) and TubeDETR's give one tube."""
    released = {"clip_7.mp4": {"img_num": 500, "width": 200, "height": 100, "st_frame": 50,
                               "bbox": [[20, 10, 100, 50], [22, 10, 100, 50]],
                               "caption": "the man sits"}}  # fmt: skip
    tubedetr = [{"video_id": "clip_7", "frame_count": 500, "width": 200, "height": 100,
                 "tube_start_frame": 50, "tube_end_frame": 52,
                 "trajectory": [[20, 10, 100, 50], [22, 10, 100, 50]], "caption": "x"}]  # fmt: skip
    tubes = []
    for name, data in (("a.json", released), ("b.json", tubedetr)):
        (tmp_path / name).write_text(json.dumps(data))
        tubes += read_tubes(tmp_path / name, truth=True)
    for t in tubes:  # 500 frames in 20 s: 25 fps
        assert t.qid == "clip_7" and t.fps == 25.0 and t.span == (2.0, 52 / 25)
        assert t.track.boxes[0].tolist() == [0.1, 0.1, 0.6, 0.6]
        assert t.track.times_s.tolist() == [2.0, 51 / 25]


def test_vidstg_layout(tmp_path):
    data = {
        "videos": [{"video_id": 3, "original_video_id": "v1", "fps": 10, "width": 100,
                    "height": 100, "tube_start_frame": 4, "tube_end_frame": 6, "target_id": 2,
                    "caption": "a dog"}],
        "trajectories": {"v1": {"2": {"3": {"bbox": [0, 0, 9, 9]}, "4": {"bbox": [0, 0, 50, 50]},
                                      "5": {"bbox": [50, 50, 60, 60]}}}},
    }  # fmt: skip
    (tmp_path / "vidstg.json").write_text(json.dumps(data))
    (t,) = read_tubes(tmp_path / "vidstg.json", truth=True)
    assert t.qid == "3" and t.span == (0.4, 0.6) and t.track.times_s.tolist() == [0.4, 0.5]
    assert t.track.boxes.tolist() == [[0, 0, 0.5, 0.5], [0.5, 0.5, 1.0, 1.0]]  # cut to the frame


def write_pair(tmp_path, pred_line: str) -> tuple[str, str]:
    gt = tmp_path / "gt.jsonl"
    gt.write_text(line(GT, True) + "\n" + line(Tube("r", (0, 1), GT.track, 5.0), True) + "\n")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(line(HAND[1][0], False) + "\n" + pred_line + "\n")
    return str(gt), str(pred)


def test_cli_table_json_and_per_query(tmp_path, capsys):
    gt, pred = write_pair(tmp_path, line(Tube("r", (0.0, 1.0), GT.track), False))
    assert main(["eval", gt, pred, "--protocol", "stvg"]) == 0
    out = capsys.readouterr().out
    assert "m_vIoU" in out and "71.43" in out  # (3/7 + 1) / 2
    rows = tmp_path / "rows.jsonl"
    assert main(["eval", gt, pred, "--protocol", "stvg", "--json", "--per-query", str(rows)]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["m_vIoU"] == pytest.approx((3 / 7 + 1) / 2) and metrics["vIoU@0.5"] == 0.5
    assert [json.loads(r)["qid"] for r in rows.read_text().splitlines()] == ["q", "r"]


TRACK = '"track": {"times_s": [0.0], "boxes": [BOXES]}'


@pytest.mark.parametrize(
    ("pred_line", "message"),
    [
        ('{"qid": "r", "span": [0, 1], ' + TRACK.replace("BOXES", "[0.1, 0.1, 1.4, 0.5]") + "}",
         "pred.jsonl:2: qid r: box 0 [0.1, 0.1, 1.4, 0.5] lies outside the frame"),
        ('{"qid": "r", "span": [0, 1], ' + TRACK.replace("BOXES", "[0.5, 0.1, 0.4, 0.5]") + "}",
         "pred.jsonl:2: qid r: box 0 [0.5, 0.1, 0.4, 0.5] has a negative size"),
        ('{"qid": "r", "span": [0, 1], ' + TRACK.replace("BOXES", "[0.1, NaN, 0.4, 0.5]") + "}",
         "pred.jsonl:2: qid r: box 0 [0.1, nan, 0.4, 0.5] is not finite"),
        ('{"qid": "r", "span": [1, 0], ' + TRACK.replace("BOXES", "[0.1, 0.1, 0.4, 0.5]") + "}",
         "pred.jsonl:2: qid r: span [1, 0] ends before it starts"),
        ('{"qid": "r", "span": [0, 1]}', "pred.jsonl:2: qid r: missing field 'track'"),
        ('{"qid": "r", "span": [0, 1], "track": {"times_s": [0, 0.01], "boxes": '
         "[[0, 0, 1, 1], [0, 0, 1, 1]]}}", "qid r: two boxes on frame 0"),
    ],
)  # fmt: skip
def test_bad_prediction_is_one_line_exit_2(tmp_path, capsys, pred_line, message):
    gt, pred = write_pair(tmp_path, pred_line)
    assert main(["eval", gt, pred, "--protocol", "stvg"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_protocol_is_registered_with_the_others(tmp_path, capsys):
    with pytest.raises(Exception, match="use `longground eval --protocol stvg`"):
        get_protocol("stvg")
    gt, pred = write_pair(tmp_path, line(Tube("r", (0.0, 1.0), GT.track), False))
    assert main(["eval", gt, pred, "--protocol", "stvg", "--by", "domain"]) == 2
    assert "does not take --by" in capsys.readouterr().err
