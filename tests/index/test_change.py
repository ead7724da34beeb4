"""Content-adaptive indexing: the change gate, row expansion, and timelines built through it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.index import FeatureStore, build_timeline, clear_memory_cache
from longground.index.change import ChangeGate, expand_rows
from longground.index.storage import half_precision
from longground.video import VideoWriter
from tests.index.test_index import COLOURS, MeanColour, write_scenes


@pytest.fixture(autouse=True)
def fresh_memory():
    clear_memory_cache()
    yield
    clear_memory_cache()


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return write_scenes(tmp_path_factory.mktemp("chg") / "scenes.mp4")


@pytest.fixture(scope="module")
def moving(tmp_path_factory):
    """3 s of a white square crossing a grey picture: every frame differs."""
    path = tmp_path_factory.mktemp("chg") / "moving.mp4"
    with VideoWriter(path, 64, 48, fps=25) as writer:
        for i in range(75):
            frame = np.full((48, 64, 3), 90, np.uint8)
            x = (i * 3) % 48
            frame[16:32, x : x + 16] = 250
            writer.write(frame)
    return path


def test_a_still_picture_is_encoded_once_and_a_new_one_again():
    gate = ChangeGate()
    frames = np.full((6, 48, 64, 3), 100, np.uint8)
    frames[3:] = 160
    frames[4, 0, 0] = 200  # one pixel: far below a change
    encoded, last = gate.select(gate.thumbnails(frames), None)
    assert encoded.tolist() == [True, False, False, True, False, False]
    np.testing.assert_allclose(last, 160, atol=1)


def test_a_small_object_entering_a_still_picture_is_a_change():
    gate = ChangeGate()
    frames = np.full((2, 96, 160, 3), 100, np.uint8)
    frames[1, 8:24, 8:24] = 255  # 2% of the picture: the mean moves by ~3 levels at most
    thumbs = gate.thumbnails(frames)
    blocks = np.abs(thumbs[1] - thumbs[0]).mean(axis=-1)
    assert blocks.max() > gate.block_levels
    assert gate.select(thumbs, None)[0].tolist() == [True, True]


def test_drift_is_measured_against_the_last_encoded_frame():
    gate = ChangeGate(mean_levels=2.0, block_levels=255)
    frames = np.stack([np.full((24, 32, 3), 100 + k, np.uint8) for k in range(7)])
    encoded, _ = gate.select(gate.thumbnails(frames), None)
    assert encoded.tolist() == [True, False, False, True, False, False, True]


def test_thumbnails_are_block_means():
    frames = np.arange(2 * 24 * 36 * 3, dtype=np.uint8).reshape(2, 24, 36, 3)
    thumbs = ChangeGate(rows=4).thumbnails(frames)
    assert thumbs.shape == (2, 4, 6, 3)
    np.testing.assert_allclose(thumbs[1, 2, 3], frames[1, 12:18, 18:24].reshape(-1, 3).mean(0))


@pytest.mark.parametrize(("h", "w", "rows"), [(224, 398, 12), (37, 53, 5), (8, 8, 12)])
def test_thumbnails_equal_float32_block_means_exactly(h, w, rows):
    frames = np.random.default_rng(h).integers(0, 256, (3, h, w, 3), np.uint8)
    side = max(1, h // rows)
    r, c = h // side, max(1, w // side)
    cropped = frames[:, : r * side, : c * side].astype(np.float32)
    means = cropped.reshape(3, r, side, c, side, 3).mean(axis=(2, 4))
    thumbs = ChangeGate(rows=rows).thumbnails(frames)
    assert thumbs.dtype == np.float32 and np.array_equal(thumbs, means)


@given(st.lists(st.booleans(), min_size=1, max_size=40), st.booleans())
def test_expand_rows_matches_a_loop(encoded, with_carry):
    encoded = np.array(encoded)
    if not with_carry:
        encoded[0] = True
    computed = {"e": np.arange(encoded.sum(), dtype=np.float32)[:, None] + 1}
    carry = {"e": np.array([-1.0], np.float32)} if with_carry else None
    expected, last, k = [], -1.0, 0
    for flag in encoded:
        if flag:
            last, k = computed["e"][k, 0], k + 1
        expected.append(last)
    assert expand_rows(computed, encoded, carry)["e"][:, 0].tolist() == expected


def test_build_encodes_only_changed_frames_and_records_them(clip):
    encoder = MeanColour()
    timeline = build_timeline(clip, encoder, fps=2, progress=False, gate=ChangeGate())
    # four scenes of 2.5 s in 10 s at 2 fps: a change at 0, 2.5 (sampled at 3.0), 5, 7.5 (8.0)
    assert np.flatnonzero(timeline.encoded).tolist() == [0, 6, 10, 16]
    assert sum(encoder.batch_sizes) == 4
    every = build_timeline(clip, MeanColour(), fps=2, progress=False)
    np.testing.assert_allclose(
        timeline.features["embedding"], every.features["embedding"], atol=0.02
    )
    assert every.encoded.all()


def test_when_every_frame_changes_every_frame_is_encoded(moving):
    timeline = build_timeline(moving, MeanColour(), fps=5, progress=False, gate=ChangeGate())
    assert timeline.encoded.all() and len(timeline) == 15


def test_store_keys_the_gate_and_keeps_the_mask_and_only_computed_rows(clip, tmp_path):
    adaptive = FeatureStore(tmp_path / "a", gate=ChangeGate())
    every = FeatureStore(tmp_path / "e", gate=None)
    assert adaptive.key(clip, "x", 2)["change"] == ChangeGate().key
    assert "change" not in every.key(clip, "x", 2)
    built = adaptive.get_or_build(clip, MeanColour(), fps=5, progress=False)
    full = every.get_or_build(clip, MeanColour(), fps=5, progress=False)
    clear_memory_cache()
    read = FeatureStore(tmp_path / "a", gate=ChangeGate()).get_or_build(clip, MeanColour(), 5)
    assert read is not built
    np.testing.assert_array_equal(read.encoded, built.encoded)
    for name, values in built.features.items():
        np.testing.assert_array_equal(read.features[name], values)
    (entry_a,) = (tmp_path / "a" / "timelines").glob("*.npz")
    (entry_e,) = (tmp_path / "e" / "timelines").glob("*.npz")
    assert built.encoded.sum() == len(COLOURS) and len(built) == 50
    assert entry_a.stat().st_size < entry_e.stat().st_size
    np.testing.assert_array_equal(full.features["embedding"],
                                  half_precision(full).features["embedding"])  # fmt: skip


def test_every_frame_env_turns_the_gate_off(monkeypatch, tmp_path):
    monkeypatch.setenv("LONGGROUND_INDEX_EVERY_FRAME", "1")
    assert FeatureStore(tmp_path).gate is None
    monkeypatch.delenv("LONGGROUND_INDEX_EVERY_FRAME")
    assert FeatureStore(tmp_path).gate == ChangeGate()


def test_the_gate_gives_the_same_rows_in_the_decoding_thread_or_not(clip):
    threaded = build_timeline(clip, MeanColour(), fps=5, progress=False, gate=ChangeGate(),
                              batch_size=7)  # fmt: skip
    inline = build_timeline(clip, MeanColour(), fps=5, progress=False, gate=ChangeGate(),
                            batch_size=7, pipeline=False)  # fmt: skip
    np.testing.assert_array_equal(threaded.encoded, inline.encoded)
    np.testing.assert_array_equal(threaded.features["embedding"], inline.features["embedding"])
    assert 0 < threaded.encoded.sum() < len(threaded)
