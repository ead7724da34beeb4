"""Queries across channels on a generated audio-visual clip (`synth.av_render`): each
sub-event goes to its channel and the moments are combined by the agent's relation. The
expected intervals are computed from the clip's plan and the spoken spans the renderer
reports, never from the channels."""

from __future__ import annotations

import json

import pytest

from longground.cli.main import main
from longground.synth.audiovisual import AvPlan, Overlay, Scene, Utterance

pytest.importorskip("pocketsphinx")
pytest.importorskip("rapidocr_onnxruntime")
pytest.importorskip("cv2")

SENTENCE = "Everybody is waiting for the dinosaur."
PLAN = AvPlan(
    40.0,
    (Scene(0.0, 8.0, "face", "astronaut"), Scene(8.0, 18.0, "slide", "Final Summary"),
     Scene(18.0, 26.0, "photo", "coffee"), Scene(26.0, 40.0, "face", "astronaut")),
    (Overlay(12.0, 22.0, "scoreboard", "HOME 0-0 AWAY"),
     Overlay(22.0, 30.0, "scoreboard", "HOME 1-0 AWAY"),
     Overlay(30.0, 36.0, "scoreboard", "HOME 1-1 AWAY")),
    (Utterance(13.0, "dinosaur", SENTENCE), Utterance(31.0, "dinosaur", SENTENCE)),
    (),
    True,
)  # fmt: skip
STEP_S = 1.0  # channels sample at --fps 1: a change is known to one step


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    from longground.synth.av_render import write_av_video

    folder = tmp_path_factory.mktemp("combined")
    path = folder / "match.mp4"
    spoken = write_av_video(PLAN, path)
    return path, folder / "cache", spoken


def find(capsys, clip, query, tmp_path):
    path, cache, _ = clip
    trace = tmp_path / "trace.json"
    code = main(["find", str(path), query, "--cache-dir", str(cache), "--json", "--trace",
                 str(trace), "--overwrite"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    found = json.loads(out)
    return [[m["start_s"], m["end_s"]] for m in found["moments"]], json.loads(trace.read_text())


def near(got, want, tol_s):
    return len(got) == len(want) and all(
        abs(a - c) <= tol_s and abs(b - d) <= tol_s for (a, b), (c, d) in zip(got, want)
    )


def shown(text: str) -> list[tuple[float, float]]:
    return [(o.start_s, o.end_s) for o in PLAN.overlays if o.text == text]


def test_speech_while_the_scoreboard_shows(clip, capsys, tmp_path):
    spoken = clip[2]
    want = []
    for i, _ in enumerate(PLAN.utterances):
        a, b = spoken[i]
        want += [[max(a, c), min(b, d)] for c, d in shown("HOME 1-1 AWAY") if min(b, d) > max(a, c)]
    got, trace = find(capsys, clip, "when someone says dinosaur while the scoreboard shows 1-1",
                      tmp_path)  # fmt: skip
    assert near(got, want, 0.6), (got, want)
    route = trace["route"]
    assert route["channel"] == "combined" and route["relation"] == "while"
    assert [e["channel"] for e in route["subevents"]] == ["speech", "text"]


def score_changes() -> list[float]:
    board = [o for o in PLAN.overlays if o.kind == "scoreboard"]
    return [b.start_s for a, b in zip(board, board[1:]) if a.text != b.text]


def test_the_first_score_change_after_half_time(clip, capsys, tmp_path):
    first = min(t for t in score_changes() if t >= PLAN.duration_s / 2)
    got, trace = find(capsys, clip, "the first time the score changes after half time", tmp_path)
    assert near(got, [[first - 1.0, first + 1.0]], STEP_S), got
    assert trace["combined"]["subevents"][0]["route"]["rule"] == "text-score-change"
    every, _ = find(capsys, clip, "every time the score changes", tmp_path)
    assert near(every, [[t - 1.0, t + 1.0] for t in score_changes()], STEP_S), every


def test_a_person_after_the_slide(clip, capsys, tmp_path):
    slide_end = max(s.end_s for s in PLAN.scenes if s.label == "Final Summary")
    want = [
        [s.start_s, s.end_s] for s in PLAN.scenes if s.kind == "face" and s.start_s >= slide_end
    ]
    got, trace = find(capsys, clip, "a person on screen after the slide reads summary", tmp_path)
    assert near(got, want, STEP_S), (got, want)
    events = trace["combined"]["subevents"]
    assert [(e["role"], e["channel"]) for e in events] == [
        ("target", "people"),
        ("condition", "text"),
    ]
