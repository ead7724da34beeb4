"""`Track`: validation, slicing, the JSON round trip, and track files refused line by line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.errors import BadInputFile
from longground.formats.tracks import read_tracks, write_tracks
from longground.track import Track, box_iou

unit = st.floats(0, 1, allow_nan=False)


@st.composite
def tracks(draw) -> Track:
    n = draw(st.integers(0, 8))
    corners = np.array(draw(st.lists(st.tuples(unit, unit, unit, unit), min_size=n, max_size=n)))
    corners = corners.reshape(n, 4)
    boxes = np.c_[
        np.minimum(corners[:, :2], corners[:, 2:]), np.maximum(corners[:, :2], corners[:, 2:])
    ]
    steps = draw(st.lists(st.floats(1e-3, 10), min_size=n, max_size=n))
    times = draw(st.floats(-100, 100)) + np.cumsum(steps)
    confidence = draw(st.lists(unit, min_size=n, max_size=n))
    return Track(boxes, times, confidence, draw(st.integers(0, 10**6)), draw(st.text()))


@given(tracks())
def test_json_round_trip_is_exact(track):
    again = Track.from_dict(json.loads(json.dumps(track.to_dict())))
    assert again.to_dict() == track.to_dict()


@given(tracks(), st.data())
def test_mask_keeps_the_chosen_frames_and_the_identity(track, data):
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(track), max_size=len(track))))
    part = track[mask] if len(track) else track[np.zeros(0, bool)]
    assert len(part) == int(mask.sum()) and part.track_id == track.track_id
    assert np.array_equal(part.times_s, track.times_s[mask.astype(bool)])


@pytest.mark.parametrize(
    ("boxes", "times", "confidence", "message"),
    [
        ([[0.1, 0.1, 1.2, 0.5]], [0.0], None, "box 0 [0.1, 0.1, 1.2, 0.5] lies outside the frame"),
        ([[-0.1, 0.1, 0.2, 0.5]], [0.0], None, "lies outside the frame"),
        ([[0.5, 0.1, 0.2, 0.5]], [0.0], None, "has a negative size"),
        ([[0.1, 0.6, 0.2, 0.5]], [0.0], None, "has a negative size"),
        ([[0.1, 0.1, 0.2, np.nan]], [0.0], None, "box 0 [0.1, 0.1, 0.2, nan] is not finite"),
        ([[0.1, 0.1, 0.2, 0.2]] * 2, [1.0, 1.0], None, "time 1 (1 s) does not come after 1 s"),
        ([[0.1, 0.1, 0.2, 0.2]], [np.inf], None, "time 0 is not finite"),
        ([[0.1, 0.1, 0.2, 0.2]], [0.0], [1.5], "confidence 0 is 1.5"),
        ([[0.1, 0.1, 0.2, 0.2]], [0.0], [np.nan], "confidence 0 is nan"),
        ([[0.1, 0.1, 0.2, 0.2]], [0.0, 1.0], None, "2 times for 1 boxes"),
    ],
)
def test_bad_tracks_are_refused_naming_the_box(boxes, times, confidence, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Track(boxes, times, confidence)


def test_box_iou_by_hand():
    a = np.array([[0, 0, 2, 2], [0, 0, 1, 1], [0, 0, 0, 0]])
    b = np.array([[1, 1, 3, 3], [0, 0, 1, 1], [0, 0, 0, 0]])
    assert box_iou(a, b).tolist() == [1 / 7, 1.0, 0.0]


def test_files_round_trip_and_keep_other_fields_aside(tmp_path):
    path = tmp_path / "t.jsonl"
    written = [Track([[0, 0, 0.5, 0.5]], [1.0], [0.7], 4, "dog")]
    assert write_tracks(path, written, video="v.mp4") == 1
    assert json.loads(path.read_text())["video"] == "v.mp4"
    assert read_tracks(path)[0].to_dict() == written[0].to_dict()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"times_s": [0], "boxes": [[0.1, 0.1, 1.5, 0.2]]}', "t.jsonl:2: box 0 [0.1, 0.1, 1.5"),
        ('{"times_s": [0], "boxes": [[0.3, 0.1, 0.2, 0.2]]}', "t.jsonl:2: box 0 [0.3, 0.1, 0.2"),
        ('{"times_s": [0], "boxes": [[0.1, NaN, 0.2, 0.2]]}', "t.jsonl:2: box 0 [0.1, nan, 0.2"),
        ('{"times_s": [0], "boxes": [[0.1, 0.1, 0.2]]}', "t.jsonl:2: field 'boxes' must be"),
        ('{"times_s": ["0"], "boxes": [[0.1, 0.1, 0.2, 0.2]]}', "t.jsonl:2: times, boxes and"),
        ('{"boxes": [[0.1, 0.1, 0.2, 0.2]]}', "t.jsonl:2: field 'times_s' must be a list"),
        ("[1, 2]", "t.jsonl:2: expected a JSON object"),
        ('{"times_s": [0], "boxes": [[0.1, 0.1, 0.2, 0.2]], "track_id": "a"}', "track_id must"),
        ("{not json", "t.jsonl:2: malformed JSON"),
    ],
)
def test_a_bad_line_is_one_error_naming_file_and_line(tmp_path, line, message):
    path = tmp_path / "t.jsonl"
    good = '{"times_s": [0], "boxes": [[0.1, 0.1, 0.2, 0.2]]}'
    path.write_text(good + "\n" + line + "\n")
    with pytest.raises(BadInputFile) as caught:
        read_tracks(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)
