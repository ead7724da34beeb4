"""The one frame sampler (`agent.frames.FrameSampler`): the frames it gives are the frames
`frames_at` gives, whatever it kept or decoded before, however they are chunked."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.agent.frames import FrameSampler


def clip(n_frames: int = 200, fps: float = 10.0):
    """A video of `n_frames` at `fps` whose frame k is filled with k (mod 256), and a list of
    the times each call decoded."""
    calls: list[list[float]] = []

    def frames_at(times):
        times = np.asarray(times, np.float64)
        calls.append(times.tolist())
        index = np.floor(times * fps + 1e-9).astype(int)
        index = index[index < n_frames]  # a file ends: the later times give nothing
        return (
            np.stack([np.full((4, 6, 3), k % 256, np.uint8) for k in index])
            if len(index)
            else np.zeros((0, 4, 6, 3), np.uint8)
        )

    return frames_at, calls


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 25_000), min_size=0, max_size=30), min_size=1, max_size=5),
    st.integers(1, 9),
    st.integers(1, 40),
)
def test_the_sampler_gives_what_frames_at_gives(requests, chunk, keep):
    """Against a plain loop: each request, in any order, with any repeats, at times past the
    file's end, decoded in chunks of any size, with any number of frames kept."""
    frames_at, _ = clip()
    sampler = FrameSampler(frames_at, keep=keep)
    for ms in requests:
        times = np.asarray(ms, np.float64) / 1000.0
        got = np.concatenate(list(sampler.chunks(times, chunk)))
        reachable = [t for t in times if t * 10.0 < 200 - 1e-9]
        want = [frames_at(np.array([t]))[0] for t in reachable]
        assert [int(f[0, 0, 0]) for f in got] == [int(f[0, 0, 0]) for f in want]


def test_a_stretch_read_twice_is_decoded_once():
    frames_at, calls = clip()
    sampler = FrameSampler(frames_at)
    first = sampler.frames(sampler.grid(1.0, 3.0))
    second = sampler.frames(sampler.grid(2.0, 3.0, every=4))  # a lower rate, on the same grid
    assert len(first) == 16 and len(second) == 2
    assert sum(len(c) for c in calls) == 16


def test_decoding_goes_in_chunks_and_keeps_at_most_keep_frames():
    frames_at, calls = clip()
    sampler = FrameSampler(frames_at, keep=10)
    pieces = list(sampler.chunks(sampler.grid(0.0, 5.0), 7))
    assert [len(p) for p in pieces] == [7, 7, 7, 7, 7, 5]
    assert max(len(c) for c in calls) == 7 and len(sampler._kept) == 10


def test_after_the_end_of_the_file_nothing_more_is_asked():
    frames_at, calls = clip(n_frames=30)  # 3 s
    sampler = FrameSampler(frames_at)
    assert len(sampler.frames(sampler.grid(2.0, 6.0))) == 8  # 2.0 .. 2.875
    asked = len(calls)
    assert len(sampler.frames(np.array([4.0, 5.0]))) == 0 and len(calls) == asked


@pytest.mark.parametrize("start_s, end_s, every, first, count", [
    (0.3, 1.0, 1, 0.25, 6), (0.0, 1.0, 8, 0.0, 1), (-1.0, 0.5, 2, 0.0, 2), (2.0, 2.0, 1, 0, 0),
])  # fmt: skip
def test_the_grid(start_s, end_s, every, first, count):
    times = FrameSampler(lambda t: t).grid(start_s, end_s, every)
    assert len(times) == count and (count == 0 or times[0] == first)
    assert np.allclose(times * 8, np.round(times * 8)) and (times < end_s).all()
