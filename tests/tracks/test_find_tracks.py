"""`find --tracks` and `--count-objects/--count-shots` end to end, the API's `tracks=True`,
and `tracks_on` itself: a generated video of moving squares, a fixed method and a localiser
of bright patches (tests/tracks/fakes.py), so every box and count is known."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.moments import Moments
from longground.track import box_iou
from longground.tracking.on_moments import MIN_SAMPLES, moment_times, target_words, tracks_on
from tests.support.hostile import call
from tests.tracks.fakes import register, square_boxes, squares_video

pytest.importorskip("trackers")
QUERY = "how many squares appear"


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return squares_video(tmp_path_factory.mktemp("squares") / "squares.mp4")


@pytest.fixture(autouse=True)
def fakes(monkeypatch, tmp_path):
    register(monkeypatch)
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))


def find(video, *args):
    code, out, err = call(["find", str(video), *args, "-m", "lg-fixed"])
    return code, out, err


def test_a_count_query_counts_objects_and_says_so(video):
    code, out, _ = find(video, QUERY, "--json")
    record = json.loads(out)
    assert code == 0 and record["count"] == 2
    assert record["objects"] == 3 and record["counted"] == "objects"
    assert all("tracks" not in m for m in record["moments"])  # not asked for
    code, out, _ = find(video, QUERY)
    assert out.splitlines()[-1] == "2 moments, 3 objects (distinct tracks)"
    assert find(video, QUERY, "-c")[1] == "3\n"


def test_count_shots_keeps_the_moments_count_and_says_it_is_of_shots(video):
    record = json.loads(find(video, QUERY, "--json", "--count-shots")[1])
    assert record["counted"] == "shots" and "objects" not in record
    assert find(video, QUERY, "--count-shots")[1].splitlines()[-1] == "2 moments (shots)"
    assert "counted" not in json.loads(find(video, "the squares", "--json")[1])


def test_tracks_hold_every_square_on_the_five_fps_grid(video):
    code, out, _ = find(video, "the squares", "--tracks", "--json")
    moments = json.loads(out)["moments"]
    assert code == 0 and [len(m["tracks"]) for m in moments] == [1, 2]
    ids = [t["track_id"] for m in moments for t in m["tracks"]]
    assert ids == [0, 1, 2]
    for moment in moments:
        for track in moment["tracks"]:
            times = np.array(track["times_s"])
            assert np.allclose(times * 5, np.round(times * 5))  # on the 5 fps grid
            assert moment["start_s"] <= times.min() and times.max() < moment["end_s"]
            truth = np.array([min(square_boxes(t), key=lambda b: abs(b[1] - track["boxes"][0][1]))
                              for t in times])  # fmt: skip
            assert box_iou(np.array(track["boxes"]), truth).min() > 0.7
    out = find(video, "the squares", "--tracks")[1].splitlines()
    assert out[0].endswith("  1 track") and out[1].endswith("  2 tracks")


def test_a_moment_found_by_speech_has_no_track_and_a_note_says_why(video):
    code, out, err = find(video, "when does someone say square", "--tracks", "--json")
    assert code == 0 and [m["tracks"] for m in json.loads(out)["moments"]] == [[], []]
    assert "note:" in err and "speech channel answers it" in err


@pytest.mark.parametrize(("args", "message"), [
    (["when does someone say square", "--count-objects"], "--count-objects: the speech"),
    (["how many moons appear", "--count-objects"], "cannot find"),
    (["the squares", "--tracks", "--top", "3"], "neither --tracks"),
])  # fmt: skip
def test_what_cannot_be_counted_or_tracked_is_refused_before_the_search(video, args, message):
    code, out, err = find(video, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err


def test_exports_carry_the_tracks_and_a_csv_writes_its_boxes_beside_it(video, tmp_path):
    table, lines = tmp_path / "m.csv", tmp_path / "m.jsonl"
    code, _, err = find(video, QUERY, "--tracks", "--export", str(table), "--export", str(lines))
    assert code == 0 and f"wrote {tmp_path / 'm.boxes.csv'}" in err
    rows = list(csv.DictReader(table.open()))
    assert [r["tracks"] for r in rows] == ["1", "2"]
    boxes = list(csv.DictReader((tmp_path / "m.boxes.csv").open()))
    assert {r["track_id"] for r in boxes} == {"0", "1", "2"}
    assert {r["moment"] for r in boxes} == {"0", "1"}
    (record,) = [json.loads(line) for line in lines.read_text().splitlines()]
    assert record["objects"] == 3 and [len(m["tracks"]) for m in record["moments"]] == [1, 2]
    code, _, err = find(video, QUERY, "--tracks", "--export", str(tmp_path / "n.csv"),
                        "--export", str(tmp_path / "n.boxes.csv"))  # fmt: skip
    assert code == 2 and "both name" in err


def test_an_existing_boxes_file_is_refused_before_the_search(video, tmp_path):
    (tmp_path / "m.boxes.csv").write_text("mine\n")
    code, _, err = find(video, QUERY, "--tracks", "--export", str(tmp_path / "m.csv"))
    assert code == 2 and "m.boxes.csv" in err and not (tmp_path / "m.csv").exists()
    assert (tmp_path / "m.boxes.csv").read_text() == "mine\n"


def test_the_api_gives_what_find_prints(video):
    import longground

    found = longground.find(video, QUERY, method="lg-fixed", tracks=True)
    record = json.loads(find(video, QUERY, "--tracks", "--json")[1])
    assert found.objects == record["objects"] == 3
    assert [[t.to_dict() for t in ts] for ts in found.tracks] == \
        [m["tracks"] for m in record["moments"]]  # fmt: skip
    assert isinstance(longground.find(video, QUERY, method="lg-fixed"), Moments)
    (many,) = longground.find_many([video], QUERY, method="lg-fixed", count_objects=True)
    assert many.objects == 3 and many.tracks is None


def test_tracks_on_gives_a_list_per_moment_and_none_for_a_moment_of_no_length(video):
    moments = Moments.from_list([[1.0, 4.0], [5.0, 5.0], [6.0, 9.0]])
    tracks = tracks_on(video, moments, "squares", progress=False)
    assert [len(ts) for ts in tracks] == [1, 0, 2]


def test_target_words_name_what_is_followed_or_why_nothing_is():
    assert target_words("how many cars pass") == ("cars pass", "")
    assert target_words("count every person who enters")[0] == "person who enters"
    assert target_words("a dog", channel="text")[0] is None
    assert "cannot find 'the moon'" in target_words("the moon")[1]


@given(st.floats(0, 1e4), st.floats(0, 60), st.sampled_from([5.0, 10.0]),
       st.sampled_from([5.0, 25.0, 30000 / 1001]))  # fmt: skip
def test_moment_times_lie_in_the_moment_on_a_grid(start_s, length_s, fps, video_fps):
    end_s = start_s + length_s
    times = moment_times(start_s, end_s, fps, video_fps)
    if end_s <= start_s:
        assert len(times) == 0
        return
    assert (times >= start_s - 1e-9).all() and (times < end_s).all()
    assert (np.diff(times) > 0).all() and len(times) >= 1
    steps = np.diff(times)
    assert np.allclose(steps, steps[0] if len(steps) else 0)
    if length_s * fps >= MIN_SAMPLES:
        assert np.allclose(steps, 1 / fps) and np.allclose(times * fps, np.round(times * fps))
