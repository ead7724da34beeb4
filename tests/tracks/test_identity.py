"""The looks of tracked objects, and identity decided on them in the general scene."""

from fractions import Fraction

import numpy as np
import pytest

from longground.agent.aggregate import Instance, consolidate
from longground.agent.scene import Scene, same_looks
from longground.agent.settings import AgentSettings
from longground.agent.verify.memory import MemoryEntry
from longground.moments import Moments
from longground.tracking import localise
from longground.tracking.identity import Faces, TrackedLooks, main_track, square_crop

from .fakes import SquareLocaliser

#: `(start_s, end_s, colour, x0)`: a square of one colour in each span, at its own place.
RED, BLUE = (220, 30, 30), (30, 30, 220)
SHOWN = [(1.0, 3.0, RED, 20), (5.0, 7.0, BLUE, 90), (9.0, 11.0, RED, 60)]


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    from longground.video import VideoWriter

    path = tmp_path_factory.mktemp("looks") / "squares.mp4"
    with VideoWriter(path, 160, 120, fps=Fraction(10)) as writer:
        for i in range(120):
            frame = np.zeros((120, 160, 3), np.uint8)
            for start, end, colour, x0 in SHOWN:
                if start <= i / 10 < end:
                    frame[40:80, x0 : x0 + 40] = colour
            writer.write(frame)
    return path


class PatchLocaliser(SquareLocaliser):
    """Boxes whatever is not black (squares of any colour); knows only "square(s)"."""

    name = "patches"

    @staticmethod
    def bright(frame):
        return frame.max(axis=2) > 100


class MeanColour:
    """An encoder whose appearance feature is a crop's mean colour, made a unit vector; it
    keeps the crops it was given."""

    def __init__(self):
        self.crops = []

    def image_features(self, frames):
        self.crops.extend(frames)
        mean = frames.reshape(len(frames), -1, 3).mean(axis=1)
        return {"appearance": mean / np.linalg.norm(mean, axis=1, keepdims=True)}


@pytest.fixture(autouse=True)
def patches(monkeypatch):
    monkeypatch.setitem(localise.LOCALISERS, "patches", PatchLocaliser)
    monkeypatch.setattr(localise, "_MADE", {})


def test_each_span_gets_the_look_of_its_tracked_object(video):
    encoder = MeanColour()
    spans = np.array([[s, e] for s, e, _, _ in SHOWN] + [[3.5, 4.5]])
    looks = TrackedLooks(video, encoder)(spans, "the red square")
    assert looks.shape == (4, 3) and np.isnan(looks[3]).all()  # nothing to follow there
    cosine = looks[:3] @ looks[:3].T
    assert cosine[0, 2] > 0.99 and cosine[0, 1] < 0.5
    # crops are squares around the object, a little wider than it, at most CROPS a span
    assert len(encoder.crops) == 3 * 4
    assert all(c.shape[0] == c.shape[1] and 40 < c.shape[0] <= 56 for c in encoder.crops)


def test_what_no_localiser_knows_or_what_is_heard_has_no_look(video):
    encoder = MeanColour()
    spans = np.array([[1.0, 3.0]])
    assert TrackedLooks(video, encoder)(spans, "a flying carpet").shape == (1, 0)
    assert TrackedLooks(video, encoder)(spans, "when does he say square").shape == (1, 0)
    assert encoder.crops == []


def test_the_general_scene_tells_instances_apart_by_their_looks(video):
    entries = [MemoryEntry("square", s, e, 0.9, z=np.ones(2)) for s, e, _, _ in SHOWN]
    # the embeddings say one identity; without looks the second to appear is no one
    assert len(consolidate(entries, ordinal=2)[0]) == 0
    looks = TrackedLooks(video, MeanColour())
    same = Scene(AgentSettings()).identities(None, None, "the square", looks)
    moments, _ = consolidate(entries, ordinal=2, same=same)
    assert moments.to_list() == [[5.0, 7.0]]
    moments, _ = consolidate(entries, ordinal=1, same=same)
    assert moments.to_list() == [[1.0, 3.0], [9.0, 11.0]]
    assert Scene(AgentSettings()).identities(None, None, "the square", None) is None


def test_an_instance_without_a_look_is_compared_by_its_embedding():
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    instances = [Instance(0, 1, 0.9, (0,), a), Instance(2, 3, 0.9, (1,), a),
                 Instance(4, 5, 0.9, (2,), b)]  # fmt: skip
    same = same_looks([a, None, None], [i.z for i in instances], 0.8, 0.9)
    assert same.tolist() == [[True, True, False], [True, True, False], [False, False, True]]
    assert not same_looks([None, None], [None, None], 0.8, 0.9)[0, 1]


def test_the_main_track_and_its_crops():
    assert main_track([]) is None
    frame = np.zeros((100, 200, 3), np.uint8)
    # a 20 x 10 px box: a 24 px square, cut off by the top and left edges
    assert square_crop(frame, np.array([0.0, 0.0, 0.1, 0.1])).shape == (17, 22, 3)
    assert square_crop(frame, np.array([0.5, 0.5, 0.5, 0.5])).shape[:2] == (2, 2)  # no size


class FaceLocaliser(PatchLocaliser):
    """The patches taken for faces: the people localiser's place for "a face"."""

    def accepts(self, target):
        return "face" in target


def test_the_nth_person_is_the_nth_face_told_apart_by_its_looks(video, monkeypatch):
    monkeypatch.setattr(localise, "LOCALISERS", {"faces": FaceLocaliser, **localise.LOCALISERS})
    monkeypatch.setattr(localise, "_MADE", {})
    people = Moments.from_list([[0.5, 3.5], [4.5, 7.5], [8.5, 11.5]], [0.9, 0.8, 0.7])
    encoder = MeanColour()
    faces = Faces(video, people, encoder)
    first, record = faces.ranked(1, False)
    assert record["people"] == 2 and record["face_tracks"] == 3
    assert first.spans.round(1).tolist() == [[1.0, 2.8], [9.0, 10.8]]
    assert first.scores.tolist() == [0.9, 0.7]  # the channel's moment each lies in
    assert faces.ranked(2, False)[0].spans.round(1).tolist() == [[5.0, 6.8]]
    assert faces.ranked(1, True)[0].spans.round(1).tolist() == [[9.0, 10.8]]  # "come back"
    assert faces.ranked(-1, False)[0].spans.round(1).tolist() == [[5.0, 6.8]]
    assert len(faces.ranked(3, False)[0]) == 0
    assert len(encoder.crops) == 3 * 4  # the faces were looked at once for every rank
