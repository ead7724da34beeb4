"""The one foreground localiser (`agent.foreground`): held against plain loops
(`perception.reference`) on random and hostile masks and distances, and on frames whose
objects are known."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from longground.agent import foreground
from longground.agent.composited.boxes import object_box
from longground.agent.composited.reid import object_parts
from longground.agent.composited.ring import lab_distances, ring_foreground
from longground.agent.graph.flow import difference_centres
from longground.agent.perception import reference

pytest.importorskip("cv2")


def masks(max_side: int = 14):
    return st.tuples(st.integers(1, max_side), st.integers(1, max_side)).flatmap(
        lambda shape: arrays(bool, shape, elements=st.booleans())
    )


@settings(max_examples=150, deadline=None)
@given(masks(), st.sampled_from([3, 5]), st.sampled_from([0.0, 0.25, 1.0]))
def test_parts_against_a_pixel_loop(mask, k, share):
    height = int(round(k / foreground.OPEN_SHARE))  # the frame height whose opening is k
    assert foreground.open_px(height) == k
    fast = foreground.parts(mask, height, share)
    slow = reference.parts(mask, k, share)
    assert [{(int(y), int(x)) for y, x in zip(*np.nonzero(p))} for p in fast] == slow


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 6)),
              elements=st.floats(0, 1e4)))  # fmt: skip
def test_excess_against_a_loop(distance):
    assert np.allclose(foreground.excess(distance), reference.excess(distance))


@pytest.mark.parametrize("mask", [
    np.zeros((8, 8), bool),  # nothing
    np.ones((8, 8), bool),  # everything
    np.eye(8, dtype=bool),  # a line thinner than the opening
])  # fmt: skip
def test_hostile_masks(mask):
    found = foreground.parts(mask)
    assert [int(p.sum()) for p in found] == [len(g) for g in reference.parts(mask, 3, 0.25)]


def test_a_flat_frame_has_no_foreground():
    assert foreground.split(np.full((5, 5), 7.0)) is None
    flat = np.full((20, 30, 3), 128, np.uint8)
    assert not ring_foreground(flat).any()
    assert object_parts(flat) == ([], None)  # the looks' Lab distances: all as far


def test_the_looks_localiser_splits_on_the_blurred_ring_distances():
    """`reid.object_parts`: Otsu's cut of the blurred frame's Lab distances to the ring
    (`foreground.split`), its regions not opened, and the pixels beyond the cut."""
    frame = np.zeros((60, 80, 3), np.uint8)
    frame[...] = (50, 90, 210)
    frame[10:30, 5:35] = 250
    frame[35:55, 45:70] = 20
    found, beyond = object_parts(frame)
    blurred, _ = lab_distances(frame)
    mask, _ = foreground.split(blurred)
    assert [p.sum() for p in found] == [p.sum() for p in foreground.parts(mask, opening=False)]
    assert len(found) == 2 and found[0][20, 20] and found[1][45, 57]
    assert beyond[20, 20] and not beyond[2, 2]


def test_the_object_on_a_backdrop_is_found_where_it_is():
    rng = np.random.default_rng(0)
    frame = np.clip(rng.normal((60, 90, 200), 8, size=(90, 160, 3)), 0, 255).astype(np.uint8)
    frame[20:70, 95:140] = (230, 200, 40)
    top, bottom, left, right = object_box(frame, 80, 160)
    assert abs(top - 20) <= 2 and abs(bottom - 70) <= 2
    assert abs(left - 95) <= 2 and abs(right - 140) <= 2
    assert object_box(frame, 0, 80) is None


def test_what_moves_is_found_against_the_shots_median():
    frames = np.zeros((9, 20, 80), np.uint8)
    for t in range(9):
        frames[t, 5:15, 8 * t : 8 * t + 8] = 200
    centre, mass = difference_centres(frames)
    assert np.allclose(centre, (8 * np.arange(9) + 3.5) / 80, atol=0.02)
    assert (mass > 0).all()
