"""Sequential relations: which neighbouring shot "right after / before" looks at."""

import numpy as np
import pytest

from longground.agent.composited.slivers import holds_other_object, sliver_is_own_shot
from longground.agent.graph.cache import GraphCache
from longground.agent.perception.conditions import past_slivers
from longground.agent.pipeline import CometAgent
from longground.agent.settings import AgentSettings
from longground.errors import UserError
from tests.agent.test_pipeline import cat_shots, matched, run


def _frames(n: int, square: bool, seed: int = 0) -> np.ndarray:
    """`(n, 90, 160, 3)` frames of a noisy brown backdrop, with a blue square in the left
    half when `square`."""
    rng = np.random.default_rng(seed)
    frames = np.clip(rng.normal((120, 90, 60), 6, size=(n, 90, 160, 3)), 0, 255)
    if square:
        frames[:, 25:65, 20:60] = (30, 60, 220)
    return frames.astype(np.uint8)


def test_a_short_shot_of_another_object_is_a_shot_of_its_own():
    assert holds_other_object(_frames(2, square=True), target_seen=0.05, accept_p=0.5)


def test_a_backdrop_alone_or_the_target_passes_the_look_on():
    assert not holds_other_object(_frames(2, square=False), target_seen=0.05, accept_p=0.5)
    assert not holds_other_object(_frames(2, square=True), target_seen=0.9, accept_p=0.5)


def test_an_object_in_only_some_frames_is_not_a_shot_of_its_own():
    frames = np.concatenate([_frames(1, square=True), _frames(1, square=False, seed=1)])
    assert not holds_other_object(frames, target_seen=0.05, accept_p=0.5)


def test_the_look_stops_at_a_sliver_that_is_its_own_shot():
    samples = np.array([9, 2, 2, 9, 9])
    looked = past_slivers((2,), samples, step=-1, own_shot=lambda shot: shot == 1)
    assert looked == (2, 1)
    assert past_slivers((2,), samples, step=-1) == (2, 1, 0)


def _backdrop(rgb: tuple[int, int, int], seed: int) -> np.ndarray:
    """One `(1, 90, 160, 3)` frame of a noisy backdrop around `rgb`."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(rgb, 6, size=(1, 90, 160, 3)), 0, 255).astype(np.uint8)


def test_a_sliver_with_a_backdrop_of_its_own_is_a_shot_of_its_own():
    before, after = _backdrop((200, 60, 60), 0), _backdrop((60, 200, 60), 1)
    filler = _backdrop((60, 60, 200), 2)
    assert sliver_is_own_shot(np.concatenate([before, filler, after]), -1, 0.0, 0.5)


def test_a_piece_of_either_neighbour_passes_the_look_on():
    before, after = _backdrop((200, 60, 60), 0), _backdrop((60, 200, 60), 1)
    piece_of_before, piece_of_after = _backdrop((200, 60, 60), 3), _backdrop((60, 200, 60), 4)
    for step in (-1, 1):
        for piece in (piece_of_before, piece_of_after):
            assert not sliver_is_own_shot(np.concatenate([before, piece, after]), step, 0.0, 0.5)


def test_another_object_on_the_instance_shots_backdrop_is_a_shot_of_its_own():
    before, after = _backdrop((200, 60, 60), 0), _backdrop((60, 200, 60), 1)
    still = _backdrop((60, 200, 60), 5)
    still[:, 25:65, 20:60] = (30, 60, 220)
    # looking back ("right after") the instance is after the sliver: the near side
    assert sliver_is_own_shot(np.concatenate([before, still, after]), -1, 0.0, 0.5)
    assert not sliver_is_own_shot(np.concatenate([before, still, after]), -1, 0.9, 0.5)
    # looking ahead, the same sliver is a piece of the shot beyond
    assert not sliver_is_own_shot(np.concatenate([before, still, after]), +1, 0.0, 0.5)


def test_the_neighbouring_shot_must_show_the_condition_clearly():
    """The fake encoder reads the rocket's shot before the first cat at 0.75 and before the
    second at 0.99: only the second stands clear of a confusable object's reading."""
    query, truth = "a cat right after a rocket", cat_shots(after="rocket")
    loose = CometAgent(AgentSettings(roles="offline", neighbour_p=0.5), 1.0, GraphCache(None))
    assert matched(run(query, loose)[0].spans, truth)
    strict = CometAgent(AgentSettings(roles="offline", neighbour_p=0.9), 1.0, GraphCache(None))
    moments, trace = run(query, strict)
    assert matched(moments.spans, truth[1:])
    weak = [v for v in trace["verifications"] if v["reason"] == "failed: condition:a rocket"]
    assert any(0.25 < v["details"]["parts"]["condition:a rocket"] < 0.5 for v in weak)


def test_neighbour_p_must_be_a_probability():
    with pytest.raises(UserError, match="neighbour_p"):
        AgentSettings(neighbour_p=0.0)
