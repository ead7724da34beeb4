"""Event and action segmentation on synthetic signals with known change points."""

from __future__ import annotations

import numpy as np
import pytest
import ruptures as rpt

from longground.agent.graph.actions import (
    RBF_GAMMA,
    action_bounds,
    change_points,
    motion_similarity,
)
from longground.agent.graph.denoise import wavelet_denoise
from longground.agent.graph.events import (
    adjacent_cosine,
    bounds_to_spans,
    event_bounds,
    local_minima_below,
)
from longground.agent.graph.flow import flow_magnitudes, small_gray


def scene_features(lengths, dim=64, noise=0.05, seed=0):
    """Frames of consecutive scenes: each scene a random direction plus per-frame noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(lengths), dim))
    rows = [centres[i] + noise * np.sqrt(dim) * rng.normal(size=(n, dim)) / 4
            for i, n in enumerate(lengths)]  # fmt: skip
    return np.vstack(rows)


def starts_of(lengths):
    return np.cumsum([0, *lengths[:-1]])


def test_adjacent_cosine_matches_a_loop():
    x = np.random.default_rng(1).normal(size=(30, 8))
    naive = [x[i] @ x[i + 1] / np.linalg.norm(x[i]) / np.linalg.norm(x[i + 1]) for i in range(29)]
    np.testing.assert_allclose(adjacent_cosine(x), naive)


@pytest.mark.parametrize("seed", range(5))
def test_local_minima_match_a_loop(seed):
    c = np.random.default_rng(seed).random(50)
    naive = [
        i
        for i in range(50)
        if (i == 0 or c[i] < c[i - 1]) and (i == 49 or c[i] <= c[i + 1]) and c[i] < 0.5
    ]
    assert local_minima_below(c, 0.5).tolist() == naive


def test_min_gap_keeps_the_deeper_minimum():
    c = np.array([1.0, 0.2, 0.9, 0.1, 0.9, 1.0, 1.0, 0.3, 1.0])
    assert local_minima_below(c, 0.5, min_gap=3).tolist() == [3, 7]


@pytest.mark.parametrize("seed", range(4))
def test_events_recover_known_cuts(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(6, 40, size=12).tolist()
    feats = scene_features(lengths, seed=seed)
    bounds = event_bounds(feats, tau_e=0.8)
    assert bounds[:, 0].tolist() == starts_of(lengths).tolist()
    assert bounds[-1, 1] == sum(lengths)


@pytest.mark.parametrize("stride", [2, 3])
def test_coarse_boundaries_are_refined_to_the_full_rate(stride):
    lengths = [17, 23, 11, 30, 19]
    bounds = event_bounds(scene_features(lengths, seed=3), tau_e=0.8, stride=stride)
    assert bounds[:, 0].tolist() == starts_of(lengths).tolist()


def test_no_boundary_inside_a_steady_scene():
    feats = scene_features([200], noise=0.05)
    assert event_bounds(feats, tau_e=0.8).tolist() == [[0, 200]]


def test_threshold_decides_what_counts_as_a_cut():
    # Two scenes whose directions are close (cosine about 0.9): a cut only under a strict tau_e.
    a = np.r_[1.0, 0.0, np.zeros(6)]
    b = np.r_[0.9, 0.436, np.zeros(6)]
    feats = np.vstack([np.tile(a, (20, 1)), np.tile(b, (20, 1))])
    assert len(event_bounds(feats, tau_e=0.95, denoise=False)) == 2
    assert len(event_bounds(feats, tau_e=0.85, denoise=False)) == 1


def test_spans_place_cuts_between_samples():
    spans = bounds_to_spans(np.array([[0, 3], [3, 5]]), np.arange(5) * 2.0, end_s=10.0)
    assert spans.tolist() == [[0.0, 5.0], [5.0, 10.0]]


def test_soft_denoise_keeps_a_sharp_dip_and_removes_noise():
    rng = np.random.default_rng(0)
    curve = 0.97 + 0.01 * rng.normal(size=256)
    curve[100] = 0.4
    out = wavelet_denoise(curve, "soft")
    assert int(np.argmin(out)) == 100 and out[100] < 0.7
    assert np.std(np.delete(out, range(90, 111))) < np.std(np.delete(curve, range(90, 111)))


@pytest.mark.parametrize("seed", range(3))
def test_hard_denoise_keeps_steps_sharper_than_soft(seed):
    clean = np.r_[np.zeros(64), np.ones(64)]
    noisy = clean + 0.02 * np.random.default_rng(seed).normal(size=128)
    near = slice(56, 72)
    hard, soft = wavelet_denoise(noisy, "hard"), wavelet_denoise(noisy, "soft")
    assert np.abs(hard - clean)[near].mean() < np.abs(soft - clean)[near].mean()
    assert np.abs(hard - clean).mean() < np.abs(noisy - clean).mean()


def test_eq14_maps_motion_to_similarity():
    g = np.array([0.0, 2.0, 1.0, 2.0])
    s = motion_similarity(g)
    assert s.min() >= 0 and s.max() <= 1
    assert s[0] == pytest.approx(1.0, abs=1e-5) and s[1] == pytest.approx(0.0)


def test_change_points_fall_off_the_default_grid_of_5():
    curve = np.r_[np.full(13, 0.9), np.full(11, 0.2), np.full(17, 0.9)]
    assert change_points(curve, beta=0.5) == [13, 24]
    snapped = rpt.Pelt(model="rbf", params={"gamma": RBF_GAMMA}).fit(curve[:, None]).predict(0.5)
    assert snapped[:-1] != [13, 24]  # ruptures' default jump=5 cannot place them


@pytest.mark.parametrize("seed", range(6))
def test_change_points_match_plain_pelt_with_the_rbf_cost(seed):
    rng = np.random.default_rng(seed)
    levels = rng.uniform(0, 1, size=5)
    curve = np.concatenate(
        [np.full(int(n), lv) for n, lv in zip(rng.integers(4, 30, 5), levels, strict=True)]
    )
    curve += 0.03 * rng.normal(size=len(curve))
    reference = rpt.Pelt(model="rbf", min_size=2, jump=1, params={"gamma": RBF_GAMMA})
    expected = reference.fit(curve[:, None]).predict(pen=0.5)[:-1]
    assert change_points(curve, beta=0.5) == expected


@pytest.mark.parametrize("seed", range(3))
def test_actions_recover_motion_changes(seed):
    rng = np.random.default_rng(seed)
    pieces = rng.integers(8, 25, size=4)
    levels = np.array([0.01, 0.15, 0.02, 0.2])
    g = np.concatenate([np.full(n, lv) for n, lv in zip(pieces, levels, strict=True)])
    g += 0.004 * rng.normal(size=len(g))
    bounds = action_bounds(np.abs(g), beta=0.5)
    expected = np.cumsum(pieces)[:-1]
    assert np.abs(bounds[1:, 0] - expected).max() <= 1
    assert bounds[-1, 1] == len(g) + 1


def test_motion_homogeneous_events_are_not_split():
    g = 0.01 + 0.0002 * np.random.default_rng(0).normal(size=40)
    assert action_bounds(np.abs(g), beta=0.3, min_range=0.002).tolist() == [[0, 41]]


def test_min_size_is_respected():
    g = np.r_[np.full(10, 0.0), np.full(1, 0.3), np.full(10, 0.0)]
    bounds = action_bounds(g, beta=0.1, min_size=3, denoise=False)
    assert (np.diff(bounds, axis=1) >= 3).all()


def moving_square(n, step_px):
    frames = np.zeros((n, 72, 96, 3), np.uint8)
    frames[:, ::6] = 60
    for t in range(n):
        x = 10 + t * step_px
        frames[t, 20:44, x : x + 24] = 255
    return frames


@pytest.mark.parametrize("method", ["dis", "farneback"])
def test_flow_grows_with_motion(method):
    still = flow_magnitudes(small_gray(moving_square(4, 0)), method)
    slow = flow_magnitudes(small_gray(moving_square(4, 2)), method)
    fast = flow_magnitudes(small_gray(moving_square(4, 6)), method)
    assert still.max() < slow.min() < fast.min()
