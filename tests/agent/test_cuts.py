"""The one cut detector (`agent.perception.cuts`): the vectorised rules held against plain
loops (`perception.reference`) on random and hostile frames, and the cuts of generated clips
with known cut times."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from longground.agent.frames import FrameSampler
from longground.agent.perception import cuts, reference


def clips(max_frames: int = 8, max_side: int = 9):
    """Small int16 RGB clips: random pixels, few distinct levels (so that repeats, equal
    pairs and pairs just over `PIXEL_STEP` all happen), any size down to one pixel."""
    levels = st.sampled_from([0, 20, 26, 60, 230, 255])
    shapes = st.tuples(st.integers(0, max_frames), st.integers(1, max_side),
                       st.integers(1, max_side), st.just(3))  # fmt: skip
    return shapes.flatmap(lambda shape: arrays(np.int16, shape, elements=levels))


@settings(max_examples=150, deadline=None)
@given(clips())
def test_pair_changes_against_a_pixel_loop(small):
    gray, colour = cuts.pair_changes(small)
    ref_gray, ref_colour = reference.pair_changes(small)
    assert np.allclose(gray, ref_gray)
    assert colour.tolist() == ref_colour or (len(small) < 2 and colour.size == 0)


@settings(max_examples=150, deadline=None)
@given(clips())
def test_cut_pairs_and_cuts_against_loops(small):
    if len(small) >= 2:
        _, colour = cuts.pair_changes(small)
        assert cuts.cut_pairs(colour).tolist() == reference.cut_pairs(colour)
    assert cuts.cuts(small).tolist() == reference.cuts(small)


@settings(max_examples=60, deadline=None)
@given(clips(max_frames=6), st.integers(2, 4))
def test_a_repeated_frame_changes_nothing(small, times):
    """Reading a clip faster than its own rate (each frame `times` times) finds the same cuts,
    at the last pair of each repeat."""
    slow = cuts.cuts(small)
    fast = cuts.cuts(np.repeat(small, times, axis=0))
    at = (np.arange(len(slow)) + 1) * times - 1
    assert fast[at].tolist() == slow.tolist()
    assert fast.sum() == slow.sum()


@pytest.mark.parametrize("frames", [
    np.zeros((0, 4, 4, 3), np.int16),  # nothing
    np.zeros((1, 4, 4, 3), np.int16),  # one frame
    np.zeros((5, 4, 4, 3), np.int16),  # nothing changes
    np.full((5, 2, 2, 3), 255, np.int16),  # smaller than the grid
])  # fmt: skip
def test_no_cut_where_nothing_changes(frames):
    assert not cuts.cuts(frames).any()
    assert len(cuts.cuts(frames)) == max(len(frames) - 1, 0)


def generated(cut_frames: list[int], n: int = 64, fps: int = 8, moving: bool = True):
    """A clip of `n` frames at `fps` whose backdrop colour changes at each of `cut_frames`;
    with `moving`, a square crosses every shot (motion that is no cut)."""
    rng = np.random.default_rng(1)
    colours = rng.integers(40, 220, size=(len(cut_frames) + 1, 3))
    video = np.zeros((n, 36, 64, 3), np.uint8)
    shot = np.searchsorted(np.asarray(cut_frames), np.arange(n), side="right")
    for k in range(n):
        video[k] = colours[shot[k]]
        video[k, ::4] = 90  # texture
        if moving:
            x = 50 - abs((k * 3) % 100 - 50)  # back and forth
            video[k, 10:22, x : x + 12] = 250
    return FrameSampler(lambda t: video[np.minimum((np.asarray(t) * fps).astype(int), n - 1)])


@pytest.mark.parametrize("cut_frames, count", [
    ([], 0), ([20], 1), ([10, 30, 50], 3), ([20, 22], 2),
    ([20, 21], 1),  # a one-frame flash between two shots: cuts in two consecutive pairs, one cut
])  # fmt: skip
def test_generated_clips_give_their_cuts(cut_frames, count):
    frames = generated(cut_frames)
    found = cuts.cut_times(frames, 0.0, 8.0)
    want = (np.asarray(cut_frames) - 0.5) / 8
    assert np.allclose(found, want)
    assert cuts.cut_count(frames, 0.0, 8.0) == count
