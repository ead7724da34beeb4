"""Non-reference frames that cannot be on screen at a sample time are not decoded, exactly."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from longground.video import FrameBatch, VideoWriter
from longground.video.container import open_video
from longground.video.sampling import FrameStream, frames_at, sample_times


def _moving(i: int) -> np.ndarray:
    """A textured square moving over a gradient: B-frames are worth it to x264."""
    frame = np.tile(np.linspace(40, 200, 160, dtype=np.uint8)[None, :, None], (96, 1, 3))
    x = (3 * i) % 128
    frame[30:62, x : x + 32] = (np.arange(32 * 32 * 3).reshape(32, 32, 3) * 7 % 251).astype(
        np.uint8
    )
    return frame


@pytest.fixture(scope="module")
def bframes(tmp_path_factory):
    """8 s at 25 fps, x264 "veryfast" (3 B-frames, about a third of them unreferenced)."""
    path = tmp_path_factory.mktemp("skip") / "bframes.mp4"
    with VideoWriter(path, 160, 96, fps=25) as writer:
        for i in range(200):
            writer.write(_moving(i))
    return path


@pytest.fixture(scope="module")
def gappy(tmp_path_factory):
    """25 fps with a 1.5 s hole at 3.0 s (a variable frame rate, as screen recorders write)."""
    path = tmp_path_factory.mktemp("skip") / "gappy.mp4"
    with VideoWriter(path, 160, 96, fps=25) as writer:
        for i in range(150):
            pts_s = i / 25 if i < 75 else i / 25 + 1.5
            writer.write(_moving(i), pts_s=pts_s)
    return path


def _sampled(path, times, skip: bool) -> tuple[FrameBatch, FrameStream]:
    stream = FrameStream(open_video(path), times, None, 64, skip_unshown=skip)
    return FrameBatch.concat(list(stream)), stream


def _same(a: FrameBatch, b: FrameBatch) -> None:
    np.testing.assert_array_equal(a.pts_s, b.pts_s)
    np.testing.assert_array_equal(a.times_s, b.times_s)
    np.testing.assert_array_equal(a.frames, b.frames)


@pytest.mark.parametrize("fps", [Fraction(1), Fraction(5, 2), Fraction(6)])
def test_skipping_gives_the_frames_full_decoding_gives_with_fewer_decoded(bframes, fps):
    times = list(sample_times(fps, Fraction(0), Fraction(8)))
    full, full_stream = _sampled(bframes, times, skip=False)
    skipped, skip_stream = _sampled(bframes, times, skip=True)
    _same(full, skipped)
    assert skip_stream.n_decoded < full_stream.n_decoded  # some frames were never decoded
    assert skip_stream._picker.skipping  # a constant rate never needs the fallback


def test_a_gap_longer_than_the_window_turns_skipping_off_and_stays_exact(gappy):
    times = [Fraction(k, 10) for k in range(0, 60, 3)]  # several samples inside the gap
    full, _ = _sampled(gappy, times, skip=False)
    skipped, stream = _sampled(gappy, times, skip=True)
    _same(full, skipped)
    assert not stream._picker.skipping


def test_frames_at_arbitrary_times_are_unchanged_by_skipping(bframes):
    times = np.random.default_rng(3).uniform(0, 7.9, 25)
    got = frames_at(bframes, times, short_side=None)
    stream = FrameStream(open_video(bframes), [Fraction(t) for t in np.unique(times)], None, 64,
                         skip_unshown=False)  # fmt: skip
    full = FrameBatch.concat(list(stream))
    order = np.searchsorted(np.unique(times), times)
    np.testing.assert_array_equal(got.frames, full.frames[order])


def test_other_codecs_decode_every_frame(tmp_path):
    import av

    path = tmp_path / "mpeg4.avi"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("mpeg4", rate=25)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for i in range(50):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 4 * i, np.uint8), "rgb24")
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    times = list(sample_times(Fraction(1), Fraction(0), Fraction(2)))
    _, stream = _sampled(path, times, skip=True)
    assert not stream._picker.skipping
