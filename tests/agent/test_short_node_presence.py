"""A short action node's presence is read on at least `READ_STEPS` timeline steps around it,
inside its parent event: one frame's stray reading does not decide it."""

import numpy as np

from longground.agent.composited.closer import HalvesAndBoxes
from longground.agent.graph.nodes import Nodes, frames_in_spans
from longground.agent.perception.presence import Calibration
from longground.agent.perception.visibility import READ_STEPS, Visibility, confirmed, read_spans

TEXTS = ("a cup", "a camera")
TIMES_S = np.arange(0.0, 20.0)  # a 1-fps timeline
# Event 0 is [0, 10] s, cut by motion into a 1.2-s piece between two longer ones; event 1
# is [10, 20] s, one node.
SPANS_S = np.array([[0.0, 4.0], [4.0, 5.2], [5.2, 10.0], [10.0, 20.0]])
PARENT = np.array([0, 0, 0, 1])


def _actions(spans_s=SPANS_S, parent=PARENT) -> Nodes:
    k = len(spans_s)
    return Nodes(spans_s, frames_in_spans(spans_s, TIMES_S), np.ones((k, 2)), parent,
                 np.zeros(k), np.zeros((k, k)))  # fmt: skip


def _visibility(seen_s) -> Visibility:
    """Whole frames read nothing; the left half reads every text at the times `seen_s(t)` is
    True, the right half never."""

    def regions(times):
        left = np.where(seen_s(np.asarray(times)), 1.0, 0.0)
        rows = np.stack([left, np.zeros_like(left)], axis=1)  # (N, 2 halves)
        return {"embedding": np.repeat(rows[..., None], len(TEXTS), axis=2)}

    def score(feats, text):
        return feats["embedding"][:, TEXTS.index(text)]

    whole = {t: np.zeros(len(TIMES_S)) for t in TEXTS}
    closer = HalvesAndBoxes(score, regions, None)
    return Visibility(TIMES_S, whole, Calibration(0.5, 0.05), None, closer)


def test_short_nodes_are_read_on_a_window_inside_their_event():
    read = read_spans(_actions(), 1.0)
    assert np.allclose(read[1], [4.6 - READ_STEPS / 2, 4.6 + READ_STEPS / 2])
    assert np.allclose(read[[0, 2, 3]], SPANS_S[[0, 2, 3]])  # long enough: their own spans
    # At an event's edge the window slides inward, never across the cut.
    edge = np.array([[0.0, 1.0], [1.0, 10.0], [10.0, 11.0], [11.0, 20.0]])
    read = read_spans(_actions(edge, np.array([0, 0, 1, 1])), 1.0)
    assert np.allclose(read[[0, 2]], [[0.0, READ_STEPS], [10.0, 10.0 + READ_STEPS]])
    # An event shorter than the window: the whole event, no more.
    tiny = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 20.0]])
    assert np.allclose(read_spans(_actions(tiny, np.array([0, 0, 1])), 1.0)[:2], [[0, 2]] * 2)
    # Event nodes have no parent: widening one would cross a cut.
    events = _actions(SPANS_S, np.full(4, -1))
    assert np.allclose(read_spans(events, 1.0), SPANS_S)


def test_the_window_only_confirms_a_short_nodes_own_reading():
    def seen_between(lo_s, hi_s):  # a reading that is 1 where all region frames lie inside
        return lambda frames, times: np.all((times > lo_s) & (times < hi_s), axis=1) * 1.0

    acts = _actions()
    own = seen_between(4.3, 4.9)(acts.frames, np.array([[4.4, 4.8]]))
    assert own.tolist() == [1.0]  # the short node's own frames see it ...
    assert confirmed(seen_between(4.3, 4.9), acts, TIMES_S).tolist() == [0.0] * 4  # ... alone
    # A long node keeps its own reading, even where a window would not confirm it.
    assert confirmed(seen_between(1.0, 3.0), acts, TIMES_S).tolist() == [1.0, 0.0, 0.0, 0.0]
    # A short node seen on its own frames and around them keeps it.
    assert confirmed(seen_between(3.0, 6.2), acts, TIMES_S)[1] == 1.0


def test_a_stray_frame_does_not_make_a_short_node_show_a_text():
    # The left half reads the cup only around 4.4-4.8 s: both of the short node's own region
    # frames (1/3 and 2/3 of 4.0-5.2 s), and nothing else of its event.
    vis = _visibility(lambda t: (t > 4.3) & (t < 4.9))
    acts = _actions()
    assert vis.nodes("a cup", acts, "actions")[1] < 0.5
    assert vis.together(TEXTS, acts, "actions")[1] < 0.5
    # Its own span and frames are untouched.
    assert np.allclose(acts.spans_s, SPANS_S)


def test_a_text_seen_through_the_event_still_shows_in_its_short_node():
    vis = _visibility(lambda t: t < 10.0)  # the whole first event
    acts = _actions()
    assert np.all(vis.nodes("a cup", acts, "actions")[:3] > 0.5)
    assert np.all(vis.together(TEXTS, acts, "actions")[:3] > 0.5)
    # ... and is not read into the next event across the cut.
    assert vis.nodes("a cup", acts, "actions")[3] < 0.5
    # Seen only in the next event: the short node, next to nothing, does not borrow it.
    vis = _visibility(lambda t: t >= 10.0)
    assert vis.nodes("a cup", acts, "actions", seen_once=True)[1] < 0.5
