"""Where a thing is not shown: a method's answer for the thing, turned inside out."""

import numpy as np

from longground.methods.base import Grounding
from longground.methods.channels import derived_grounding, hidden_grounding
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


def test_the_shot_next_to_a_thing(tmp_path):
    """"What comes after the cat": from each of the cat's moments to the next cut; "the shot
    before the dog": from the last cut before it."""
    path = tmp_path / "four_shots.mp4"
    with VideoWriter(str(path), 64, 36, fps=4) as writer:
        for second in range(20):  # shots 0-5, 5-9, 9-15, 15-20 s in four grey levels
            level = 40 * (1 + (second >= 5) + (second >= 9) + (second >= 15))
            for _ in range(4):
                writer.write(np.full((36, 64, 3), level, np.uint8))
    asked = []

    def ground(video, query):
        asked.append(query)
        shown = Moments.from_list([[2.0, 5.0], [9.0, 12.0]], [0.9, 0.6])
        return Grounding(shown, trace={"route": {"channel": "visual"}})

    after = derived_grounding(ground, path, analyse("what comes after the cat?"))
    assert asked == ["the cat"]
    starts, ends = np.array(after.moments.to_list()).T
    # after 2-5 s: the next shot, 5-9 s (from the cut at its end); after 9-12 s: the rest of
    # its shot, to the cut at 15 s
    assert np.allclose(starts, [5.0, 12.0], atol=0.3) and np.allclose(ends, [9.0, 15.0], atol=0.3)
    assert after.moments.scores.tolist() == [0.9, 0.6]
    assert after.trace["adjacent"]["side"] == "after"

    before = derived_grounding(ground, path, analyse("the shot right before the dog"))
    starts, ends = np.array(before.moments.to_list()).T
    # before 2-5 s: back to the video's start; before 9-12 s: the shot 5-9 s
    assert np.allclose(starts, [0.0, 5.0], atol=0.3) and np.allclose(ends, [2.0, 9.0], atol=0.3)
    assert derived_grounding(ground, path, analyse("the cat after the dog")) is None


def test_the_shot_next_to_a_thing_stops_where_it_shows_again(tmp_path):
    path = tmp_path / "one_shot.mp4"
    with VideoWriter(str(path), 64, 36, fps=4) as writer:
        for _ in range(40):  # ten seconds, no cut
            writer.write(np.full((36, 64, 3), 90, np.uint8))

    def ground(video, query):
        return Grounding(Moments.from_list([[0.0, 2.0], [8.0, 10.0]], [0.5, 0.4]), trace={})

    after = derived_grounding(ground, path, analyse("what comes after the cat"))
    before = derived_grounding(ground, path, analyse("the shot before the cat"))
    # after the first showing up to the second; nothing after the last (the video ends) or
    # before the first (it begins)
    assert after.moments.to_list() == before.moments.to_list() == [[2.0, 8.0]]


def test_one_of_several_things(tmp_path):
    """"A car or a truck": each asked on its own, the moments joined."""
    path = tmp_path / "twenty_seconds.mp4"
    with VideoWriter(str(path), 64, 36, fps=1) as writer:
        for _ in range(20):
            writer.write(np.zeros((36, 64, 3), np.uint8))
    window = "between 0:10 and 0:20"
    shown = {"a car": [[2.0, 5.0], [12.0, 14.0]], "a truck": [[4.0, 8.0]],
             f"{window} a car": [[12.0, 14.0]], f"{window} a truck": []}  # fmt: skip
    asked = []

    def ground(video, query):
        asked.append(query)
        spans = shown[query]
        return Grounding(Moments.from_list(spans, [0.5 + 0.1 * i for i in range(len(spans))]),
                         trace={"route": {"channel": "visual"}})  # fmt: skip

    found = derived_grounding(ground, path, analyse("a car or a truck"))
    assert asked == ["a car", "a truck"]
    assert found.moments.to_list() == [[2.0, 8.0], [12.0, 14.0]]  # overlaps joined
    assert found.moments.scores.tolist() == [0.5, 0.6]
    assert found.trace["route"] == {"channel": "visual"}
    best = derived_grounding(ground, path, analyse("a car or a truck"), single=True)
    assert best.moments.to_list() == [[12.0, 14.0]]
    first = derived_grounding(ground, path, analyse("the first time a car or a truck appears"))
    assert first.moments.to_list() == [[2.0, 8.0]]
    windowed = derived_grounding(ground, path, analyse(f"{window} a car or a truck"))
    assert windowed.moments.to_list() == [[12.0, 14.0]]
    assert derived_grounding(ground, path, analyse("the red or blue car")) is None
