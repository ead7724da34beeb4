"""Answers about the edit itself (`methods.edits`): cuts, shots and black frames, on a video
written here with known cuts, a fade and black, and on real footage (bikes.mp4)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from longground.cli.main import main
from longground.methods import edits
from longground.query import analyse
from longground.video import VideoWriter
from tests.support.media import bikes_path

FPS = 24
# Shots of a still texture each: A 0-2 s, B 2-4 s, C 4-5.5 s fading to black from 4.5 s, black
# 5.5-6.5 s, D 6.5-8 s. Cuts at 2, 4 and 6.5 s; the fade is no cut.
CUTS_S = (2.0, 4.0, 6.5)


@pytest.fixture(scope="module")
def edited(tmp_path_factory) -> Path:
    rng = np.random.default_rng(0)
    textures = [rng.integers(60, 161, (48, 64, 3)).astype(np.float64) for _ in range(4)]
    path = tmp_path_factory.mktemp("edits") / "edited.mp4"
    with VideoWriter(path, 64, 48, fps=FPS) as writer:
        for i in range(8 * FPS):
            t = i / FPS
            if t < 2:
                frame = textures[0]
            elif t < 4:
                frame = textures[1]
            elif t < 5.5:
                frame = textures[2] * min(1.0, max(0.0, 5.5 - t))  # fades over 4.5-5.5 s
            elif t < 6.5:
                frame = np.zeros((48, 64, 3))
            else:
                frame = textures[3]
            writer.write(frame.astype(np.uint8))
    return path


def find_json(video, query, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path))
    code = main(["find", str(video), query, "--json"])
    return code, json.loads(capsys.readouterr().out)


def middles(result) -> list[float]:
    return [(m["start_s"] + m["end_s"]) / 2 for m in result["moments"]]


def test_cuts_shots_and_black_of_a_written_video(edited):
    reading = edits.read_edit(edited, progress=False)
    cuts = reading.cuts().spans.mean(axis=1)
    assert len(cuts) == len(CUTS_S)
    assert np.allclose(cuts, CUTS_S, atol=1 / edits.SAMPLER_FPS)
    shots = reading.shots().spans
    assert len(shots) == 4 and shots[0, 0] == 0 and shots[-1, 1] == pytest.approx(8.0, abs=0.05)
    (black,) = reading.black().spans  # the end of the fade and the black shot
    assert 5.25 <= black[0] <= 5.5 and black[1] == pytest.approx(6.5, abs=1 / edits.SAMPLER_FPS)


def test_reading_a_chunk_at_a_time_is_reading_at_once(edited, monkeypatch):
    at_once = edits.read_edit(edited, progress=False)
    monkeypatch.setattr(edits, "CHUNK", 12)
    chunked = edits.read_edit(edited, progress=False)
    assert np.array_equal(chunked.cut_pairs, at_once.cut_pairs)
    assert np.array_equal(chunked.black_frames, at_once.black_frames)
    assert len(chunked.cut_pairs) == len(chunked.black_frames) - 1


def test_a_reading_is_kept_and_a_broken_one_read_again(edited, tmp_path, monkeypatch):
    first = edits.kept_reading(edited, tmp_path)
    (entry,) = (tmp_path / "channels").glob("*.json")

    def no_second_pass(*_, **__):
        raise AssertionError("the kept reading was not used")

    monkeypatch.setattr(edits, "read_edit", no_second_pass)
    again = edits.kept_reading(edited, tmp_path)
    assert again.cuts() == first.cuts() and again.black() == first.black()
    entry.write_text("{not json")
    monkeypatch.undo()
    assert edits.kept_reading(edited, tmp_path).cuts() == first.cuts()
    assert '"cut_pairs"' in entry.read_text()  # rewritten


@pytest.mark.parametrize(
    ("query", "count"),
    [("every cut", 3), ("how many shots are there", 4), ("black frames", 1),
     ("when does it fade to black", 1), ("the longest shot", 1), ("the first cut", 1),
     ("shots longer than 1.8 seconds", 3), ("cuts after 0:03", 2), ("every other shot", 2)],
)  # fmt: skip
def test_find_answers_the_edit(edited, monkeypatch, capsys, tmp_path, query, count):
    code, result = find_json(edited, query, monkeypatch, capsys, tmp_path)
    assert code == 0
    assert result["count"] == count, result
    assert "counted" not in result  # the moments themselves, not objects


def test_the_cuts_of_real_footage(monkeypatch, capsys, tmp_path):
    """bikes.mp4's five cuts (about 1.2, 3.0, 5.5, 7.5 and 9.7 s) are found; a passer-by and
    a car that fill the frame are read as cuts too (two more): pixels alone cannot tell."""
    code, result = find_json(bikes_path(), "every cut", monkeypatch, capsys, tmp_path)
    assert code == 0
    found = middles(result)
    for cut_s in (1.2, 3.0, 5.5, 7.5, 9.7):
        assert min(abs(np.array(found) - cut_s)) <= 0.3, (cut_s, found)
    assert len(found) <= 7


@pytest.mark.parametrize(
    ("query", "kind"),
    [("every cut", "cut"), ("scene changes", "cut"), ("where does the video cut", "cut"),
     ("the transitions", "cut"), ("how many cuts are there", "cut"), ("shot changes", "cut"),
     ("each time the shot changes", "cut"), ("every shot", "shot"), ("list the shots", "shot"),
     ("how many scenes are there", "shot"), ("all the shots", "shot"), ("black frames", "black"),
     ("a fade to black", "black"), ("when does the screen go dark", "black"),
     ("when is the screen black", "black"), ("a black cat", ""), ("a shot of a dog", ""),
     ("the scene with the motorcycle", ""), ("scenes featuring a zebra", "")],
)  # fmt: skip
def test_words_for_the_edit(query, kind):
    analysis = analyse(query)
    assert analysis.target.route.edit == kind
    assert analysis.derived == bool(kind) or analysis.hidden or analysis.adjacent
