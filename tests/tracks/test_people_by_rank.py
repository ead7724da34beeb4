"""People by rank on real faces: "the second person to appear" keeps that person only."""

from fractions import Fraction

import numpy as np
import pytest

from longground import find
from longground.video import VideoWriter, frames_at

from ..support.real_media import real_media

pytest.importorskip("trackers")
pytest.importorskip("cv2")

FPS = 10
#: `(clip, seconds)`: one man, another man, the first again.
SHOWN = [("single_face.mp4", 2.4), ("jwpIntro.mp4", 5.0), ("single_face.mp4", 2.4)]


@pytest.fixture(scope="module")
def two_men(tmp_path_factory):
    files = dict(zip(("single_face.mp4", "jwpIntro.mp4"),
                     real_media("single_face.mp4", "jwpIntro.mp4")))  # fmt: skip
    path = tmp_path_factory.mktemp("people") / "two_men.mp4"
    with VideoWriter(path, 320, 180, fps=Fraction(FPS)) as writer:
        for name, seconds in SHOWN:
            times = np.arange(round(seconds * FPS)) / FPS
            for frame in frames_at(files[name], times, short_side=180).frames:
                canvas = np.zeros((180, 320, 3), np.uint8)
                w = min(320, frame.shape[1])
                x = (320 - w) // 2
                canvas[:, x : x + w] = frame[:180, (frame.shape[1] - w) // 2 :][:, :w]
                writer.write(canvas)
    return path


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def test_the_second_person_is_the_other_man_and_the_first_comes_back(two_men):
    everyone = find(two_men, "a person").spans
    assert len(everyone) >= 1 and everyone[0, 0] < 1 and everyone[-1, 1] > 9
    second = find(two_men, "the second person to appear").spans
    assert len(second) == 1 and 2 <= second[0, 0] and second[0, 1] <= 8, second.tolist()
    first = find(two_men, "the first person to appear").spans
    assert len(first) == 2 and first[0, 1] <= 3 and first[1, 0] >= 7, first.tolist()
    back = find(two_men, "when does the first person come back?").spans
    assert back.tolist() == first[1:].tolist()
    single = find(two_men, "the first person to appear", single=True).spans
    assert len(single) == 1 and single.tolist()[0] in first.tolist()
