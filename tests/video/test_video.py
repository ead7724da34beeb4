"""Decoding on generated clips with known content: every frame carries its index as bars.

The top band of each frame spells the frame's index in binary (one black or white block per
bit), and the rest is the colour of its scene, so a decoded frame tells exactly which source
frame it is. Scenes cut at known frames, at 29.97 fps and at a variable frame rate.
"""

from __future__ import annotations

import math
import re
import wave
from fractions import Fraction

import av
import numpy as np
import pytest

from longground.errors import UserError
from longground.video import (
    BadVideo,
    FrameBatch,
    TruncatedVideo,
    VideoWriter,
    frames_at,
    mosaic,
    probe,
    sample_frames,
)
from longground.video.container import open_video
from longground.video.sampling import FrameStream, as_fraction, sample_times

BITS, BLOCK, BAND = 12, 16, 32
WIDTH, HEIGHT = BITS * BLOCK, 108
NTSC = Fraction(30000, 1001)
COLOURS = [(220, 30, 30), (30, 200, 40), (40, 60, 220), (230, 230, 40), (200, 40, 200)]
TB = Fraction(1, 90_000)  # the writer's clock


def coded_frame(index: int, colour) -> np.ndarray:
    frame = np.empty((HEIGHT, WIDTH, 3), np.uint8)
    frame[:] = colour
    for bit in range(BITS):
        frame[:BAND, bit * BLOCK : (bit + 1) * BLOCK] = 255 * ((index >> bit) & 1)
    return frame


def read_index(frame: np.ndarray) -> int:
    """The index spelled by a decoded frame of any size."""
    height, width = frame.shape[:2]
    band = frame[: int(BAND * height / HEIGHT * 0.6)].mean(axis=(0, 2))
    block = width / BITS
    centres = [
        band[int((bit + 0.3) * block) : int((bit + 0.7) * block)].mean() for bit in range(BITS)
    ]
    return sum(1 << bit for bit, level in enumerate(centres) if level > 128)


def read_colour(frame: np.ndarray) -> int:
    """Index into COLOURS of the scene colour below the band."""
    mean = frame[frame.shape[0] // 2 :].reshape(-1, 3).mean(axis=0)
    return int(np.argmin([np.abs(mean - c).sum() for c in COLOURS]))


def scene_of(index: int, cuts: list[int]) -> int:
    return int(np.searchsorted(cuts, index, side="right")) % len(COLOURS)


def write_clip(path, n_frames, cuts, fps=NTSC, pts_s=None):
    with VideoWriter(path, WIDTH, HEIGHT, fps=fps, crf=18) as writer:
        for i in range(n_frames):
            colour = COLOURS[scene_of(i, cuts)]
            writer.write(coded_frame(i, colour), None if pts_s is None else pts_s[i])
    return path


CFR_CUTS = [45, 100]  # frames where the scene changes


@pytest.fixture(scope="module")
def cfr(tmp_path_factory):
    return write_clip(tmp_path_factory.mktemp("v") / "ntsc.mp4", 150, CFR_CUTS)


@pytest.fixture(scope="module")
def vfr(tmp_path_factory):
    rng = np.random.default_rng(7)
    gaps = rng.choice([1 / 60, 1 / 24, 0.1, 0.35, 1.3], size=59)
    pts = np.concatenate([[0.0], np.cumsum(gaps)])
    exact = [round(p / TB) * TB for p in pts]  # what the 90 kHz clock stores
    path = write_clip(tmp_path_factory.mktemp("v") / "vfr.mp4", 60, [20, 40], pts_s=list(pts))
    return path, exact


def expected_cfr_index(time_s: Fraction) -> int:
    return min(math.floor(time_s * NTSC), 149)


@pytest.mark.parametrize("fps", [Fraction(1), Fraction(5, 2), NTSC, Fraction(60)])
def test_samples_are_the_frames_displayed_at_ntsc(cfr, fps):
    times = list(sample_times(fps, Fraction(0), Fraction(150) / NTSC))
    batch = FrameBatch.concat(sample_frames(cfr, fps, short_side=None))
    assert batch.times_s.tolist() == [float(t) for t in times]
    for frame, pts_s, time_s in zip(batch.frames, batch.pts_s, times):
        index = expected_cfr_index(time_s)
        assert read_index(frame) == index
        assert read_colour(frame) == scene_of(index, CFR_CUTS)
        assert abs(pts_s - float(index / NTSC)) < 1e-6
        assert pts_s <= float(time_s) + 1e-9


def test_cut_times_are_exact_to_a_frame(cfr):
    batch = FrameBatch.concat(sample_frames(cfr, NTSC, short_side=None))
    scenes = np.array([read_colour(f) for f in batch.frames])
    change = np.flatnonzero(np.diff(scenes)) + 1
    assert np.allclose(batch.pts_s[change], [float(c / NTSC) for c in CFR_CUTS], atol=1e-6)


@pytest.mark.parametrize("fps", [Fraction(10), Fraction(3), Fraction(1, 2)])
def test_samples_are_the_frames_displayed_at_variable_rate(vfr, fps):
    path, exact = vfr
    end = exact[-1] + Fraction(1, 30)
    batch = FrameBatch.concat(sample_frames(path, fps, short_side=None))
    times = list(sample_times(fps, Fraction(0), end))
    assert len(batch) == len(times)
    for frame, pts_s, time_s in zip(batch.frames, batch.pts_s, times):
        index = int(np.searchsorted(exact, time_s, side="right")) - 1
        assert read_index(frame) == index
        assert read_colour(frame) == scene_of(index, [20, 40])
        assert abs(pts_s - float(exact[index])) < 1e-6


def test_probe_reports_exact_rate_and_size(cfr):
    info = probe(cfr)
    assert info.fps == NTSC
    assert (info.n_frames, info.width, info.height) == (150, WIDTH, HEIGHT)
    assert info.codec == "h264" and info.rotation == 0
    assert abs(info.duration_s - 150 / float(NTSC)) < 1e-6


def test_trim_samples_only_inside_the_range(cfr):
    batch = FrameBatch.concat(sample_frames(cfr, 2, start_s=1.0, end_s=2.5, short_side=None))
    assert batch.times_s.tolist() == [1.0, 1.5, 2.0]
    assert [read_index(f) for f in batch.frames] == [29, 44, 59]


def test_trim_past_the_end_is_clipped_and_a_late_start_refused(cfr):
    batch = FrameBatch.concat(sample_frames(cfr, 1, start_s=3.0, end_s=99.0))
    assert batch.times_s.tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(UserError, match="past the end"):
        sample_frames(cfr, 1, start_s=6.0)


@pytest.mark.parametrize(
    ("short_side", "shape"), [(54, (54, 96, 3)), (224, (224, 398, 3)), (None, (108, 192, 3))]
)
def test_resize_keeps_aspect_with_even_sizes(cfr, short_side, shape):
    batch = next(iter(sample_frames(cfr, 1, short_side=short_side)))
    assert batch.frames.shape[1:] == shape
    assert [read_index(f) for f in batch.frames] == [0, 29, 59, 89, 119, 149]


def test_batches_split_the_samples_without_changing_them(cfr):
    batches = list(sample_frames(cfr, 10, batch_size=7, short_side=54))
    assert [len(b) for b in batches] == [7] * 7 + [2]  # 51 samples in 5.005 s
    whole = next(iter(sample_frames(cfr, 10, batch_size=1000, short_side=54)))
    joined = FrameBatch.concat(batches)
    assert np.array_equal(joined.frames, whole.frames)
    assert np.array_equal(joined.pts_s, whole.pts_s)


def test_frames_at_keeps_order_repeats_and_clips(cfr):
    times = [2.0, 0.0, 2.0, -1.0, 99.0, 1.01]
    batch = frames_at(cfr, times, short_side=None)
    assert batch.times_s.tolist() == times
    assert [read_index(f) for f in batch.frames] == [59, 0, 59, 0, 149, 30]


@pytest.fixture(scope="module", params=["mp4", "ts"])
def long_clip(request, tmp_path_factory):
    """40 s at 30 fps: several keyframe intervals (x264 puts one every 250 frames)."""
    path = tmp_path_factory.mktemp("v") / f"long.{request.param}"
    return write_clip(path, 1200, list(range(100, 1200, 100)), fps=30)


def test_sparse_times_seek_and_agree_with_decoding_everything(long_clip):
    times = [Fraction(t) for t in (0.5, 13, 21.1, 29.9, 38.2)]
    with_seek = FrameBatch.concat(FrameStream(open_video(long_clip), times, None, 64))
    stream = FrameStream(open_video(long_clip), times, None, 64, seek=False)
    without = FrameBatch.concat(stream)
    expected = [math.floor(t * 30) for t in times]
    assert [read_index(f) for f in with_seek.frames] == expected
    assert [read_index(f) for f in without.frames] == expected
    assert np.array_equal(with_seek.pts_s, without.pts_s)


def test_seeking_decodes_less_only_when_it_pays(long_clip):
    sparse = FrameStream(open_video(long_clip), [Fraction(t) for t in (1, 20, 39)], 54, 64)
    list(sparse)
    dense = FrameStream(open_video(long_clip), sample_times(Fraction(5), 0, 40), 54, 64,
                        skip_unshown=False)  # fmt: skip
    list(dense)  # samples 6 frames apart: closer than a seek's cost (SEEK_OVERHEAD_FRAMES)
    if long_clip.suffix == ".mp4":  # an index lists the keyframes
        assert sparse.n_seeks >= 1 and sparse.n_decoded < 600
    assert dense.n_seeks == 0 and dense.n_decoded >= 1195  # up to the frame after 39.8 s
    for fps in (Fraction(1, 3), Fraction(1, 7)):
        seeking = FrameStream(open_video(long_clip), sample_times(fps, 0, 40), 54, 64)
        decoding = FrameStream(open_video(long_clip), sample_times(fps, 0, 40), 54, 64, False)
        assert np.array_equal(FrameBatch.concat(seeking).frames, FrameBatch.concat(decoding).frames)
        assert seeking.n_decoded <= decoding.n_decoded  # a seek never lands behind


def test_rotation_is_applied_like_players_do(tmp_path):
    path = tmp_path / "rotated.mp4"
    container = av.open(str(path), "w")
    stream = container.add_stream("libx264", rate=25)
    stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
    stream.set_display_rotation(90)
    image = np.zeros((48, 64, 3), np.uint8)
    image[:16, :16] = 255  # a mark in the top-left corner of the coded picture
    for i in range(5):
        frame = av.VideoFrame.from_ndarray(image, format="rgb24")
        frame.pts, frame.time_base = i, Fraction(1, 25)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()
    info = probe(path)
    assert (info.rotation, info.width, info.height) == (90, 48, 64)
    shown = frames_at(path, [0.0], short_side=None).frames[0]
    assert shown.shape == (64, 48, 3)
    rows, cols = np.nonzero(shown[..., 0] > 128)
    assert rows.min() >= 44 and cols.max() <= 19  # turned counter-clockwise: bottom-left
    assert next(iter(sample_frames(path, 5, short_side=24))).frames.shape[1:] == (32, 24, 3)


def test_mosaic_places_frames_row_by_row_with_time_stamps():
    frames = np.stack([np.full((60, 80, 3), 40 * (i + 1), np.uint8) for i in range(5)])
    grid = mosaic(frames, np.array([0.0, 1, 2, 3, 3725.0]), rows=2, cols=3)
    assert grid.shape == (120, 240, 3)
    for i in range(6):
        tile = grid[(i // 3) * 60 : (i // 3 + 1) * 60, (i % 3) * 80 : (i % 3 + 1) * 80]
        expected = 40 * (i + 1) if i < 5 else 0
        assert (tile[30:, 40:] == expected).all()  # away from the label
        if i < 5:
            assert not (tile[:8, :40] == expected).all()  # the label is drawn
    plain = mosaic(frames, np.zeros(5), rows=2, cols=3, label=False)
    assert (plain[:60, :80] == 40).all()


def test_mosaic_refuses_too_many_frames():
    with pytest.raises(ValueError, match="do not fit"):
        mosaic(np.zeros((5, 4, 4, 3), np.uint8), np.zeros(5), rows=2, cols=2)


def _text(path):
    path.write_text("hello, this is not a video\n" * 20)


def _empty(path):
    path.write_bytes(b"")


def _audio(path):
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\0\0" * 8000)


def _unknown_codec(path):
    """An AVI whose video stream carries a FourCC no FFmpeg decoder claims."""
    container = av.open(str(path), "w")
    stream = container.add_stream("mpeg4", rate=25)
    stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
    for i in range(5):
        frame = av.VideoFrame.from_ndarray(np.zeros((48, 64, 3), np.uint8), format="rgb24")
        frame.pts, frame.time_base = i, Fraction(1, 25)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()
    path.write_bytes(path.read_bytes().replace(b"FMP4", b"QQQQ"))


def _header_only(path):
    """An MP4 cut right after its header: the stream exists, its frames do not."""
    container = av.open(str(path), "w", options={"movflags": "faststart"})
    stream = container.add_stream("libx264", rate=25)
    stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
    for i in range(25):
        frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i, np.uint8), format="rgb24")
        frame.pts, frame.time_base = i, Fraction(1, 25)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"mdat") + 4])


def _index_cut_off(path):
    """An MP4 whose index (`moov`, written last) was cut off: nothing can be located."""
    write_clip(path, 30, [10])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 6 // 10])


BAD_INPUTS = [
    ("missing.mp4", None, "no such file"),
    ("empty.mp4", _empty, "empty"),
    ("notes.mp4", _text, "not a video"),
    ("speech.wav", _audio, r"no video stream \(audio only\)"),
    ("odd.avi", _unknown_codec, "unsupported video codec"),
    ("cut.mp4", _header_only, "no video frame could be decoded"),
    ("moovless.mp4", _index_cut_off, r"no video stream \(truncated|not a video FFmpeg can read"),
]


@pytest.mark.parametrize(("name", "make", "message"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
@pytest.mark.parametrize("action", ["probe", "sample", "frames_at"])
def test_bad_input_is_one_line_naming_the_file(tmp_path, name, make, message, action):
    path = tmp_path / name
    if make is not None:
        make(path)
    run = {
        "probe": lambda: probe(path),
        "sample": lambda: list(sample_frames(path, 1)),
        "frames_at": lambda: frames_at(path, [0.0]),
    }[action]
    with pytest.raises(BadVideo) as caught:
        run()
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{path}: ") and re.search(message, text)


@pytest.mark.parametrize("suffix", ["mkv", "mp4"])
def test_truncated_file_gives_the_readable_frames_and_a_warning(tmp_path, suffix):
    path = tmp_path / f"whole.{suffix}"
    container_options = {"movflags": "faststart"} if suffix == "mp4" else {}
    _write_plain(path, 100, container_options)
    data = path.read_bytes()
    cut = tmp_path / f"cut.{suffix}"
    cut.write_bytes(data[: len(data) * 6 // 10])
    stream = sample_frames(cut, 5, short_side=None)
    with pytest.warns(TruncatedVideo, match=r"decoding stopped at 00:00:0\d\.\d of 00:00:04\.0"):
        batch = FrameBatch.concat(stream)
    assert 0.5 < stream.truncated_at_s < 3.5
    assert 0 < len(batch) < 20 and batch.times_s[-1] < stream.truncated_at_s
    for frame, time_s in zip(batch.frames, batch.times_s):
        assert read_index(frame) == math.floor(time_s * 25 + 1e-9)


def _write_plain(path, n_frames, options):
    container = av.open(str(path), "w", options=options)
    stream = container.add_stream("libx264", rate=25)
    stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
    stream.options = {"crf": "18", "g": "10"}
    for i in range(n_frames):
        frame = av.VideoFrame.from_ndarray(coded_frame(i, COLOURS[i % 5]), format="rgb24")
        frame.pts, frame.time_base = i, Fraction(1, 25)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()


def test_as_fraction_keeps_ntsc_exact():
    assert as_fraction(30000 / 1001) == NTSC
    assert as_fraction(2) == 2
