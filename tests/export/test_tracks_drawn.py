"""Tracks drawn on the pictures and clips of found moments, and carried by `Found` in
step with its moments (a square moving across a generated video, tests/tracks/fakes.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from longground.export import Found
from longground.export.clips import write_clips
from longground.export.overlay import colour, draw_tracks
from longground.export.pictures import contact_sheet, timeline_strip
from longground.moments import Moments
from longground.track import Track
from tests.tracks.fakes import square_boxes, squares_video

pytest.importorskip("matplotlib")
BLUE = np.array(colour(0))


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return squares_video(tmp_path_factory.mktemp("squares") / "squares.mp4")


def square_track(start_s: float, end_s: float, track_id: int = 0) -> Track:
    """The exact track of the first square, sampled at 5 fps."""
    times = np.arange(round(start_s * 5), round(end_s * 5)) / 5
    return Track([square_boxes(t)[0] for t in times], times, None, track_id, "square")


def painted(image: np.ndarray, rgb=BLUE, tolerance: int = 40) -> np.ndarray:
    """The pixels of `image` within `tolerance` of `rgb`."""
    return (np.abs(image[..., :3].astype(int) - rgb).max(axis=-1) <= tolerance)


def read_png(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB"))


def test_found_keeps_each_moments_tracks_when_it_sorts_the_moments():
    late, early = square_track(6.0, 7.0, 1), square_track(1.0, 2.0, 0)
    found = Found(Path("v.mp4"), "a square", Moments.from_list([[6, 9], [1, 4]]),
                  tracks=((late,), (early,)))  # fmt: skip
    assert found.moments.to_list() == [[1.0, 4.0], [6.0, 9.0]]
    assert [t.track_id for ts in found.tracks for t in ts] == [0, 1]
    with pytest.raises(ValueError, match="1 track lists for 2 moments"):
        Found(Path("v.mp4"), "a square", Moments.from_list([[6, 9], [1, 4]]), tracks=((),))


def test_a_box_is_outlined_where_the_track_is_at_that_time():
    frame = np.zeros((120, 160, 3), np.uint8)
    track = Track([[0.1, 0.2, 0.3, 0.6], [0.5, 0.2, 0.7, 0.6]], [1.0, 2.0])
    drawn = draw_tracks(frame, [track], 1.5)  # halfway: x from 0.3 to 0.5 of 160 px
    ys, xs = np.nonzero(painted(drawn))
    assert xs.min() == 48 and xs.max() == 79 and ys.max() == 71
    assert draw_tracks(frame, [track], 2.5) is frame  # after its last box: nothing


def test_the_contact_sheet_shows_the_tracked_object_boxed(video, tmp_path):
    moments = Moments.from_list([[1.0, 4.0]])
    plain, boxed = tmp_path / "plain.png", tmp_path / "boxed.png"
    contact_sheet([Found(video, "a square", moments)], plain)
    contact_sheet([Found(video, "a square", moments, tracks=((square_track(1.0, 4.0),),))],
                  boxed)  # fmt: skip
    assert painted(read_png(plain)).sum() == 0
    assert painted(read_png(boxed)).sum() > 100


def test_the_timeline_strip_boxes_its_frames_inside_a_tracked_moment(video, tmp_path):
    path = tmp_path / "strip.png"
    found = Found(video, "a square", Moments.from_list([[1.0, 4.0]]),
                  tracks=((square_track(1.0, 4.0),),))  # fmt: skip
    timeline_strip([found], path)
    tinted = 0.75 * BLUE + 0.25 * np.array([255, 127, 14])  # under the moment's orange tint
    assert painted(read_png(path), tinted, 25).sum() > 20  # the frames at 1.5, 2.5, 3.5 s


def test_a_clip_with_tracks_is_cut_exactly_with_its_boxes_drawn(video, tmp_path):
    from longground.video import frames_at

    pytest.importorskip("av")
    track = square_track(1.0, 4.0)
    found = Found(video, "a square", Moments.from_list([[1.0, 4.0]]), tracks=((track,),))
    (clip,) = write_clips([found], tmp_path / "clips")
    frames = frames_at(clip, [0.0, 1.0, 2.0], short_side=None)
    for t_s, frame in zip([1.0, 2.0, 3.0], frames.frames):
        ys, xs = np.nonzero(painted(frame, tolerance=60))
        x0, y0, x1, y1 = np.array(track.boxes_at([t_s])[0]) * [160, 120, 160, 120]
        assert abs(xs.min() - x0) <= 3 and abs(xs.max() - x1) <= 3, (t_s, xs.min(), x0)
        assert abs(ys.max() - y1) <= 3
    plain = write_clips([Found(video, "a square", found.moments)], tmp_path / "plain")[0]
    assert painted(frames_at(plain, [1.0], short_side=None).frames[0], tolerance=60).sum() == 0
