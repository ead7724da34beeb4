"""Where a thing is not shown: a method's answer for the thing, turned inside out."""

import numpy as np

from longground.methods.base import Grounding
from longground.methods.channels import hidden_grounding
from longground.moments import Moments
from longground.query import analyse
from longground.video import VideoWriter


def test_the_gaps_between_the_moments_that_show_it(tmp_path):
    path = tmp_path / "twenty_seconds.mp4"
    with VideoWriter(str(path), 64, 36, fps=1) as writer:
        for _ in range(20):
            writer.write(np.zeros((36, 64, 3), np.uint8))
    asked = []

    def ground(video, query):
        asked.append(query)
        shown = Moments.from_list([[2.0, 5.0], [5.5, 9.0], [15.0, 16.0]], [0.9, 0.8, 0.7])
        return Grounding(shown, trace={"route": {"channel": "visual"}})

    found = hidden_grounding(ground, path, analyse("when is the cat not on screen"))
    assert asked == ["the cat"]
    # the half-second gap between two showings is no moment without the cat
    assert found.moments.to_list() == [[0.0, 2.0], [9.0, 15.0], [16.0, 20.0]]
    assert found.trace["hidden"]["shown"] == [[2.0, 5.0], [5.5, 9.0], [15.0, 16.0]]

    windowed = analyse("between 0:01 and 0:12, when is the cat not on screen")
    longest = hidden_grounding(ground, path, windowed, single=True)
    assert asked[-1] == "between 0:01 and 0:12 the cat"
    assert longest.moments.to_list() == [[9.0, 12.0]]

    first = hidden_grounding(ground, path, analyse("the first time the cat is not on screen"))
    assert first.moments.to_list() == [[0.0, 2.0]]
    last = hidden_grounding(ground, path, analyse("the last time the cat is not on screen"))
    assert last.moments.to_list() == [[16.0, 20.0]]

    assert hidden_grounding(ground, path, analyse("the cat")) is None
