"""A small object that whole frames and halves miss is seen on its object box (the closer
look), judged against the absolute threshold even where the text's own was lowered or the
null texts marked it absent (docs/agent.md, "Small frames: the closer look decides"); but only
on a view that found a box: one that fell back to its half or the whole frame is no closer look
(docs/notes/agent-log.md, "Views without a box")."""

import numpy as np

from longground.agent.composited.closer import HalvesAndBoxes
from longground.agent.composited.object_views import OBJECT_FOUND
from longground.agent.graph.nodes import Nodes
from longground.agent.perception.presence import Calibration
from longground.agent.perception.visibility import Visibility
from longground.agent.settings import AgentSettings

TIMES = np.arange(10.0)
RAW = {"cup": np.full(10, 0.5)}  # whole frames: well under any threshold below


def score(features, text):
    return features["embedding"][:, 0]


def halves(times):  # both halves as weak as the whole frame
    return {"embedding": np.full((len(times), 2, 1), 0.5)}


def boxes(box_score, found=None):
    def objects(times):  # the left half's box shows the cup, the right one nothing
        rows = np.tile(np.array([[[box_score], [0.0]]]), (len(times), 1, 1))
        if found is None:  # a source that does not say which views found a box
            return {"embedding": rows}
        return {"embedding": rows, OBJECT_FOUND: np.tile(found, (len(times), 1))}

    return objects


def nodes(spans_s):
    spans = np.asarray(spans_s, np.float64)
    frames = np.clip(spans, 0, 10).astype(np.int64)
    k = len(spans)
    return Nodes(spans, frames, np.ones((k, 2)), np.full(k, -1), np.zeros(k), np.zeros((k, k)))


def visibility(box_score, per_text=None, object_presence=True, found=None):
    closer = HalvesAndBoxes(score, halves, boxes(box_score, found), object_presence)
    return Visibility(TIMES, RAW, Calibration(2.4, 0.05), per_text, closer)


def test_a_box_above_the_absolute_threshold_makes_the_node_seen():
    events = nodes([[0.0, 5.0], [5.0, 10.0]])
    assert (visibility(3.3).nodes("cup", events, "events", seen_once=True) > 0.9).all()
    assert (visibility(3.3).nodes("cup", events, "actions") > 0.9).all()  # throughout too
    off = visibility(3.3, object_presence=False).nodes("cup", events, "events", seen_once=True)
    assert (off < 0.1).all()


def test_boxes_keep_the_absolute_threshold_whatever_the_text_own():
    events = nodes([[0.0, 10.0]])
    # a lowered threshold (1.0) does not carry over to the box: 1.5 is under 2.4
    lowered = visibility(1.5, {"cup": Calibration(1.0, 0.05)})
    assert lowered.nodes("cup", events, "events", seen_once=True)[0] < 0.1
    # marked absent by the null texts (infinite threshold): the box at 3.3 still counts
    absent = visibility(3.3, {"cup": Calibration(float("inf"), 0.05)})
    assert absent.nodes("cup", events, "events", seen_once=True)[0] > 0.9


def test_object_presence_is_on_in_the_composited_scene_and_can_be_turned_off():
    assert not AgentSettings().object_presence  # the general scene assumes no backdrop
    assert AgentSettings(scene="composited").object_presence
    params = {"scene": "composited", "object_presence": "false"}
    assert not AgentSettings.from_params(params).object_presence


def test_only_views_that_found_a_box_are_a_closer_look():
    events = nodes([[0.0, 10.0]])
    absent = {"cup": Calibration(float("inf"), 0.05)}
    # the left view fell back to its half (a full-frame scene): it does not overrule "absent"
    fell_back = visibility(3.3, absent, found=np.array([False, True]))
    assert fell_back.nodes("cup", events, "events", seen_once=True)[0] < 0.1
    boxed = visibility(3.3, absent, found=np.array([True, False]))
    assert boxed.nodes("cup", events, "events", seen_once=True)[0] > 0.9
