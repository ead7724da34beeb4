"""What the offline roles look at: region features, visibility, backdrop colours, and where a
relation looks for its condition."""

from __future__ import annotations

import numpy as np
import pytest

from longground.agent.composited.closer import HalvesAndBoxes
from longground.agent.composited.colors import (
    COLOR_NAMES,
    backdrop_share,
    border_pixels,
    name_pixels,
)
from longground.agent.composited.regions import halves
from longground.agent.graph.denoise import plateau_noise
from longground.agent.graph.nodes import make_nodes
from longground.agent.perception.conditions import condition_check
from longground.agent.perception.presence import Calibration
from longground.agent.perception.visibility import Visibility, region_times
from longground.agent.plan.planner import Relation
from longground.agent.regions import RegionIndex


def test_halves_split_the_width():
    frames = np.arange(2 * 3 * 5 * 3, dtype=np.uint8).reshape(2, 3, 5, 3)
    left, right = halves(frames)
    assert np.array_equal(np.concatenate([left, right], axis=2), frames)


def test_region_index_computes_each_time_once_and_keeps_it_on_disk(tmp_path):
    calls = []

    def compute(times):
        calls.append(times.tolist())
        return {"embedding": np.stack([times, times + 0.5], axis=1)[:, :, None]}

    path = tmp_path / "v.regions.npz"
    index = RegionIndex(path)
    first = index.features(np.array([3.0, 1.0, 3.0]), compute)["embedding"][:, :, 0]
    assert first.tolist() == [[3.0, 3.5], [1.0, 1.5], [3.0, 3.5]]
    index.features(np.array([1.0, 2.0]), compute)
    assert calls == [[1.0, 3.0], [2.0]]
    reloaded = RegionIndex(path)
    assert reloaded.features(np.array([2.0]), compute)["embedding"][0, 1, 0] == 2.5
    assert calls == [[1.0, 3.0], [2.0]]  # nothing recomputed


def test_a_damaged_region_file_is_rebuilt(tmp_path):
    path = tmp_path / "v.regions.npz"
    path.write_bytes(b"not a zip")
    index = RegionIndex(path)
    assert index.features(np.array([1.0]), lambda t: {"embedding": np.zeros((len(t), 2, 1))})[
        "embedding"
    ].shape == (1, 2, 1)
    reloaded = RegionIndex(path)  # must not recompute: the rebuilt file holds it
    assert reloaded.features(np.array([1.0]), lambda t: 1 / 0)["embedding"].shape == (1, 2, 1)


def nodes(spans, times):
    return make_nodes(np.array(spans, float), times, np.ones((len(times), 2)), 3.0, 1)


def test_visibility_takes_the_better_of_whole_frames_and_halves():
    times = np.arange(20.0)
    whole = {"cat": np.r_[np.full(10, 2.0), np.full(10, -1.0)], "cup": np.full(20, -1.0)}

    def regions(t):  # the cup shows in the right half of the second node only
        feats = np.zeros((len(t), 2, 1))
        feats[t >= 10, 1, 0] = 1.0
        return {"x": feats}

    def score(features, text):
        return (
            np.where(features["x"][:, 0] > 0, 2.0, -1.0)
            if text == "cup"
            else -np.ones(len(features["x"]))
        )

    closer = HalvesAndBoxes(score, regions, None)

    vis = Visibility(times, whole, Calibration(0.5, 0.1), None, closer)
    level = nodes([[0, 10], [10, 20]], times)
    assert vis.nodes("cat", level, "n").round(2).tolist() == [1.0, 0.0]
    assert vis.nodes("cup", level, "n").round(2).tolist() == [0.0, 1.0]
    assert vis.together(("cat", "cup"), level, "n").round(2).tolist() == [0.0, 0.0]
    # Without regions the cup is never seen.
    blind = Visibility(times, whole, Calibration(0.5, 0.1))
    assert blind.nodes("cup", level, "n").max() < 0.01


def test_together_needs_both_in_the_same_frames():
    times = np.arange(10.0)
    whole = {"a": np.full(10, 2.0), "b": np.full(10, -1.0)}

    def regions(t):
        return {"x": np.ones((len(t), 2, 1))}

    def score(f, text):
        return np.full(len(f["x"]), 2.0 if text == "b" else -1.0)

    closer = HalvesAndBoxes(score, regions, None)

    vis = Visibility(times, whole, Calibration(0.5, 0.1), None, closer)
    level = nodes([[0, 10]], times)
    assert vis.together(("a", "b"), level, "n")[0] > 0.99


def test_region_times_sit_inside_the_nodes():
    t = region_times(np.array([[0.0, 3.0], [10.0, 40.0]]))
    assert t.shape == (2, 2) and (t[:, 0] < t[:, 1]).all() and t[1, 0] == 20.0


@pytest.mark.parametrize(
    ("rgb", "name"),
    [((60, 170, 60), "green"), ((50, 90, 210), "blue"), ((205, 45, 45), "red"),
     ((230, 205, 40), "yellow"), ((135, 60, 175), "purple"), ((240, 130, 30), "orange"),
     ((250, 250, 250), "white"), ((120, 120, 120), "gray"), ((10, 10, 10), "black"),
     ((27, 77, 26), "green")],  # a dark shade keeps its hue
)  # fmt: skip
def test_pixel_colour_names(rgb, name):
    assert COLOR_NAMES[name_pixels(np.array([rgb]))[0]] == name


def test_backdrop_ignores_the_centre_of_the_frame():
    frame = np.zeros((1, 90, 160, 3), np.uint8)
    frame[...] = (60, 170, 60)
    frame[:, 8:82, 10:150] = (200, 40, 40)  # a big red object in the middle
    assert backdrop_share(frame, "green") == 1.0 and backdrop_share(frame, "grey") == 0.0
    assert border_pixels(frame).shape[1] == 3
    with pytest.raises(ValueError):
        backdrop_share(frame, "plaid")


@pytest.mark.parametrize(
    ("relation", "first", "last", "events", "mode"),
    [
        (Relation.RIGHT_AFTER, 3, 4, (2,), "seen"),
        (Relation.RIGHT_AFTER, 0, 0, (), "seen"),
        (Relation.RIGHT_BEFORE, 3, 4, (5,), "seen"),
        (Relation.RIGHT_BEFORE, 9, 9, (), "seen"),
        (Relation.CAUSED_BY, 3, 4, (3, 4), "seen"),
        (Relation.CAUSES, 3, 4, (3, 4), "seen"),
        (Relation.AFTER, 3, 3, (0, 1, 2), "seen"),
        (Relation.BEFORE, 3, 3, (4, 5, 6, 7), "seen"),
        (Relation.WHILE, 3, 3, (), "together"),
        (Relation.WITHOUT, 3, 3, (), "absent"),
    ],
)
def test_where_relations_look(relation, first, last, events, mode):
    check = condition_check(relation, first, last, n_events=10, lookback=4)
    assert (check.events, check.mode) == (events, mode)


@pytest.mark.parametrize("relation", [Relation.NONE, Relation.BETWEEN])
def test_relations_without_conditions(relation):
    assert condition_check(relation, 1, 1, 5) is None


def test_plateau_noise_ignores_dense_cuts():
    rng = np.random.default_rng(1)
    curve = 0.97 + 0.005 * rng.normal(size=300)
    curve[::3] = 0.2  # a cut every third sample would dominate the usual estimate
    assert plateau_noise(curve, curve > 0.8) == pytest.approx(0.005, rel=0.3)
    assert plateau_noise(curve[:5], curve[:5] > 0.8) is None
