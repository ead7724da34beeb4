"""One object box, one object: "together" needs the two texts on two objects."""

import numpy as np

from longground.agent.composited.closer import HalvesAndBoxes
from longground.agent.graph.nodes import Nodes
from longground.agent.perception.presence import Calibration
from longground.agent.perception.visibility import Visibility

TEXTS = ("a camera", "a cup")


def _node() -> Nodes:
    return Nodes(np.array([[0.0, 10.0]]), np.array([[0, 10]]), np.ones((1, 2)), np.full(1, -1),
                 np.zeros(1), np.zeros((1, 1)))  # fmt: skip


def _visibility(half_scores, box_scores, with_boxes=True) -> Visibility:
    """Whole frames read both texts; each half (and its box) scores each text as given:
    `{text: (left, right)}`. Threshold 0.5 everywhere."""

    def features(table):
        rows = np.array([[table[t][side] for t in TEXTS] for side in (0, 1)])
        return lambda times: {"embedding": np.tile(rows[None], (len(times), 1, 1))}

    def score(feats, text):
        return feats["embedding"][:, TEXTS.index(text)]

    times = np.arange(10.0)
    whole = {t: np.full(10, 1.0) for t in TEXTS}
    objects = features(box_scores) if with_boxes else None
    closer = HalvesAndBoxes(score, features(half_scores), objects)
    return Visibility(times, whole, Calibration(0.5, 0.05), None, closer)


def test_a_half_whose_box_shows_the_other_text_does_not_show_this_one():
    # One cup in the left half; its half (and the whole frame) also read "a camera".
    halves = {"a camera": (1.0, -1.0), "a cup": (3.0, -1.0)}
    boxes = {"a camera": (-1.0, -1.0), "a cup": (3.0, -1.0)}
    assert _visibility(halves, boxes).together(TEXTS, _node(), "n")[0] < 0.5
    # Without boxes nothing says the half holds one object: read as before.
    assert _visibility(halves, boxes, with_boxes=False).together(TEXTS, _node(), "n")[0] > 0.5


def test_two_objects_in_two_halves_are_together():
    halves = {"a camera": (1.0, -1.0), "a cup": (1.0, 3.0)}
    boxes = {"a camera": (2.0, -1.0), "a cup": (-1.0, 3.0)}
    assert _visibility(halves, boxes).together(TEXTS, _node(), "n")[0] > 0.5
    # The camera seen on its own box, in the cup's box's half too: a box that shows both.
    boxes = {"a camera": (2.0, -1.0), "a cup": (3.0, -1.0)}
    assert _visibility(halves, boxes).together(TEXTS, _node(), "n")[0] > 0.5
