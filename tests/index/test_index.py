"""The feature index: building, cache hits, rebuilds of damaged entries, atomic writes."""

from __future__ import annotations

import threading
import time
import warnings
from fractions import Fraction

import numpy as np
import pytest

import longground.index.storage as storage
from longground import atomic
from longground.encoders.base import ImageTextEncoder
from longground.index import (
    CACHE_ENV,
    FeatureStore,
    Timeline,
    build_timeline,
    clear_memory_cache,
)
from longground.index.prefetch import prefetch
from longground.index.rows import RowBuffer
from longground.index.storage import half_precision
from longground.video import BadVideo, TruncatedVideo
from tests.support.videos import COLOURS, SCENE_S, write_scenes


class MeanColour(ImageTextEncoder):
    """A fake encoder: the embedding is the normalised mean colour of the frame."""

    encoder_id = "fake-mean-colour/1"

    def __init__(self, delay_s: float = 0.0, fail_on_call: int | None = None):
        self.calls, self.batch_sizes = 0, []
        self.delay_s, self.fail_on_call = delay_s, fail_on_call

    def encode_images(self, frames):
        mean = frames.reshape(len(frames), -1, 3).mean(axis=1)
        return (mean / np.linalg.norm(mean, axis=1, keepdims=True)).astype(np.float32)

    def encode_texts(self, texts):
        return np.ones((len(texts), 3), np.float32) / np.sqrt(3)

    def image_features(self, frames):
        self.calls += 1
        self.batch_sizes.append(len(frames))
        if self.fail_on_call == self.calls:
            raise KeyboardInterrupt
        time.sleep(self.delay_s)
        return {"embedding": self.encode_images(frames), "appearance": frames.mean(axis=(1, 2))}


@pytest.fixture(scope="module")
def clip(scenes_video):
    return scenes_video(seconds=10)


@pytest.fixture(autouse=True)
def fresh_memory():
    clear_memory_cache()
    yield
    clear_memory_cache()


def entry_files(store):
    return sorted(p.name for p in store.root.glob("*") if not p.name.endswith(".lock"))


def test_build_samples_at_fps_and_encodes_what_is_on_screen(clip):
    encoder = MeanColour()
    timeline = build_timeline(clip, encoder, fps=2, progress=False, batch_size=8)
    assert timeline.times_s.tolist() == [k / 2 for k in range(20)]
    assert (timeline.pts_s <= timeline.times_s).all()
    assert timeline.encoder_id == encoder.encoder_id and timeline.duration_s == 10.0
    shown = np.floor(timeline.times_s * 25) / 25  # the frame on screen at each sample
    scenes = (shown // SCENE_S).astype(int) % len(COLOURS)
    expected = COLOURS[scenes] / np.linalg.norm(COLOURS[scenes], axis=1, keepdims=True)
    assert np.allclose(timeline.features["embedding"], expected, atol=0.03)
    assert timeline.features["appearance"].shape == (20, 3)
    assert max(encoder.batch_sizes) <= 8 and sum(encoder.batch_sizes) == 20


def test_second_lookup_is_a_cache_hit_on_disk_and_in_memory(clip, tmp_path, monkeypatch):
    store = FeatureStore(tmp_path)
    first = store.get_or_build(clip, MeanColour(), fps=1, progress=False)
    in_memory = store.get_or_build(clip, untouched := MeanColour(), fps=1)
    assert in_memory is first and untouched.calls == 0
    clear_memory_cache()
    from_disk = FeatureStore(tmp_path).get_or_build(clip, untouched, fps=1)
    assert untouched.calls == 0 and from_disk is not first
    assert np.array_equal(from_disk.features["embedding"], first.features["embedding"])
    assert np.array_equal(from_disk.times_s, first.times_s)
    monkeypatch.setattr(storage, "read_timeline", lambda *a: pytest.fail("read the disk"))
    assert FeatureStore(tmp_path).get_or_build(clip, untouched, fps=1) is from_disk


def test_cached_arrays_are_read_only(clip, tmp_path):
    timeline = FeatureStore(tmp_path).get_or_build(clip, MeanColour(), fps=1)
    with pytest.raises(ValueError):
        timeline.features["embedding"][0, 0] = 1.0


def test_key_separates_rates_encoders_and_changed_files(clip, tmp_path):
    store = FeatureStore(tmp_path)
    store.get_or_build(clip, MeanColour(), fps=1)
    store.get_or_build(clip, MeanColour(), fps=2)
    other = MeanColour()
    other.encoder_id = "fake-mean-colour/2"
    store.get_or_build(clip, other, fps=1)
    assert len(entry_files(store)) == 3 and other.calls > 0
    copy = tmp_path / "copy.mp4"
    copy.write_bytes(clip.read_bytes())
    key = store.key(copy, other.encoder_id, 1)
    write_scenes(copy, seconds=6)  # same name, new content
    assert store.key(copy, other.encoder_id, 1) != key


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_damaged_entry_is_detected_and_rebuilt(clip, tmp_path, damage):
    store = FeatureStore(tmp_path)
    good = store.get_or_build(clip, MeanColour(), fps=1)
    (entry,) = store.root.glob("*.npz")
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
    elif damage == "empty":
        data = b""
    else:
        data = b"not a zip file at all" * 10
    entry.write_bytes(bytes(data))
    clear_memory_cache()
    encoder = MeanColour()
    with pytest.warns(UserWarning, match="rebuilding"):
        rebuilt = FeatureStore(tmp_path).get_or_build(clip, encoder, fps=1)
    assert encoder.calls > 0
    assert np.allclose(rebuilt.features["embedding"], good.features["embedding"])
    clear_memory_cache()
    assert storage.read_timeline(entry, store.key(clip, encoder.encoder_id, 1)) is not None


def test_entry_for_another_key_is_not_trusted(clip, tmp_path):
    store = FeatureStore(tmp_path)
    store.get_or_build(clip, MeanColour(), fps=1)
    (entry,) = store.root.glob("*.npz")
    wrong_key = store.key(clip, "someone-else", 1)
    with pytest.raises(storage.CorruptEntry, match="made for"):
        storage.read_timeline(entry, wrong_key)


def test_cache_location_follows_the_environment(clip, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "envcache"))
    store = FeatureStore()
    assert store.root == tmp_path / "envcache" / "timelines"
    store.get_or_build(clip, MeanColour(), fps=1)
    assert len(list((tmp_path / "envcache" / "timelines").glob("*.npz"))) == 1
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert FeatureStore().root == tmp_path / "home" / ".cache" / "longground" / "timelines"


def test_interrupted_write_leaves_no_entry_and_no_partial_file(clip, tmp_path, monkeypatch):
    def savez_then_crash(handle, **arrays):
        handle.write(b"PK\x03\x04 half of a zip")
        raise KeyboardInterrupt

    store = FeatureStore(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(storage.np, "savez", savez_then_crash)
        with pytest.raises(KeyboardInterrupt):
            store.get_or_build(clip, MeanColour(), fps=1)
    assert entry_files(store) == []
    encoder = MeanColour()
    store.get_or_build(clip, encoder, fps=1)
    assert encoder.calls > 0 and len(entry_files(store)) == 1


def test_interrupted_build_keeps_its_progress_and_the_next_build_resumes(clip, tmp_path):
    store = FeatureStore(tmp_path, gate=None)  # every frame encoded: batch sizes are known
    threads_before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        store.get_or_build(clip, MeanColour(fail_on_call=2), fps=10)
    (partial,) = entry_files(store)  # no entry, only the work done so far
    assert partial.endswith(".partial.npz")
    assert threading.active_count() == threads_before  # decoding stopped
    resumed_encoder = MeanColour()
    resumed = store.get_or_build(clip, resumed_encoder, fps=10)
    assert resumed_encoder.batch_sizes == [100 - 64]  # only the frames after the first batch
    assert entry_files(store) == [partial.replace(".partial", "")]
    whole = half_precision(build_timeline(clip, MeanColour(), fps=10, progress=False))
    np.testing.assert_array_equal(resumed.times_s, whole.times_s)
    np.testing.assert_array_equal(resumed.pts_s, whole.pts_s)
    for name, values in whole.features.items():
        np.testing.assert_array_equal(resumed.features[name], values)


def test_builds_checkpoint_periodically(clip):
    saved = []
    whole = build_timeline(
        clip, MeanColour(), fps=10, progress=False, batch_size=16, pipeline=False,
        checkpoint=lambda so_far: saved.append(len(so_far)), checkpoint_every_s=0.0,
    )  # fmt: skip
    assert saved == [16, 32, 48, 64, 80, 96, 100] and len(whole) == 100


def test_a_checkpoint_that_reached_the_end_completes_without_decoding(clip, tmp_path):
    whole = build_timeline(clip, MeanColour(), fps=10, progress=False)
    encoder = MeanColour()
    again = build_timeline(clip, encoder, fps=10, progress=False, resume=whole)
    assert encoder.calls == 0 and again is whole


def test_a_damaged_checkpoint_is_ignored(clip, tmp_path):
    store = FeatureStore(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        store.get_or_build(clip, MeanColour(fail_on_call=2), fps=10)
    (partial,) = store.root.glob("*.partial.npz")
    partial.write_bytes(b"not a zip")
    encoder = MeanColour()
    assert len(store.get_or_build(clip, encoder, fps=10)) == 100 and encoder.calls == 2


def test_existing_entry_survives_a_crashed_rewrite(clip, tmp_path, monkeypatch):
    store = FeatureStore(tmp_path)
    timeline = store.get_or_build(clip, MeanColour(), fps=1)
    (entry,) = store.root.glob("*.npz")
    before = entry.read_bytes()
    monkeypatch.setattr(atomic.os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk")))
    with pytest.raises(OSError):
        storage.write_timeline(entry, timeline, store.key(clip, MeanColour.encoder_id, 1))
    assert entry.read_bytes() == before and entry_files(store) == [entry.name]


def test_concurrent_builds_of_one_entry_encode_once(clip, tmp_path):
    encoders = [MeanColour(delay_s=0.05), MeanColour(delay_s=0.05)]
    results = [None, None]

    def build(i):
        results[i] = FeatureStore(tmp_path).get_or_build(clip, encoders[i], fps=2)

    workers = [threading.Thread(target=build, args=(i,)) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(e.calls > 0 for e in encoders) == [False, True]
    assert np.array_equal(results[0].times_s, results[1].times_s)


def test_truncated_video_is_indexed_up_to_the_cut_and_warned_each_time(tmp_path):
    whole = write_scenes(tmp_path / "whole.mkv", seconds=8)
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    store = FeatureStore(tmp_path / "cache")
    with pytest.warns(TruncatedVideo, match="decoding stopped"):
        timeline = store.get_or_build(cut, MeanColour(), fps=1)
    assert timeline.truncated_at_s is not None and timeline.truncated_at_s < 7.0
    assert len(timeline) <= int(timeline.truncated_at_s) + 1
    clear_memory_cache()
    with pytest.warns(TruncatedVideo):
        again = store.get_or_build(cut, untouched := MeanColour(), fps=1)
    assert untouched.calls == 0 and again.truncated_at_s == timeline.truncated_at_s


def test_missing_video_is_a_bad_video(tmp_path):
    with pytest.raises(BadVideo, match="no such file"):
        FeatureStore(tmp_path).get_or_build(tmp_path / "nope.mp4", MeanColour(), fps=1)


def test_timeline_rejects_misaligned_features():
    with pytest.raises(ValueError, match="rows"):
        Timeline(np.arange(3.0), {"embedding": np.zeros((2, 4))}, "x", 1.0, 3.0)


def test_prefetch_passes_errors_through_and_stops_when_abandoned():
    def failing():
        yield 1
        raise RuntimeError("decoder broke")

    with pytest.raises(RuntimeError, match="decoder broke"):
        list(prefetch(failing()))
    produced = []

    def endless():
        for i in range(10_000):
            produced.append(i)
            yield i

    items = prefetch(endless(), depth=2)
    assert next(items) == 0
    items.close()
    assert len(produced) <= 5


def test_fps_is_keyed_exactly(clip, tmp_path):
    store = FeatureStore(tmp_path)
    assert store.key(clip, "e", 23.976023976)["fps"] == "24000/1001"  # the clip plays at 25
    assert store.key(clip, "e", Fraction(1, 2))["fps"] == "1/2"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.get_or_build(clip, MeanColour(), fps=0.5)


def test_a_rate_above_the_videos_is_capped_with_a_warning(clip, tmp_path):
    store = FeatureStore(tmp_path)
    with pytest.warns(UserWarning, match="above the video's frame rate; sampling at 25"):
        assert store.key(clip, "e", 1e308)["fps"] == "25"
    with pytest.warns(UserWarning):
        capped = store.get_or_build(clip, MeanColour(), fps=1000.0)
    assert capped.fps == 25.0
    assert store.get(clip, MeanColour().encoder_id, 25.0) is not None  # one entry for both


@pytest.mark.parametrize("capacity", [1, 7, 64, 1000])
def test_row_buffer_equals_concatenation(capacity):
    rng = np.random.default_rng(capacity)
    batches = [{"a": rng.random((n, 3)), "b": rng.random(n)} for n in (5, 1, 17, 9)]
    rows = RowBuffer(capacity)
    for batch in batches:
        rows.append(batch)
    got = rows.arrays()
    for name in ("a", "b"):
        assert np.array_equal(got[name], np.concatenate([b[name] for b in batches]))
    with pytest.raises(ValueError, match="differ in length"):
        rows.append({"a": np.zeros((2, 3)), "b": np.zeros(3)})


def test_prefetch_by_weight_runs_ahead_by_weight_and_lets_a_heavy_item_through():
    produced = []

    def items():
        for size in (3, 1, 1, 1, 1, 1, 1, 5, 0):
            produced.append(size)
            yield [0] * size

    ahead = prefetch(items(), depth=2, weigh=len)
    assert len(next(ahead)) == 3  # heavier than the depth: passes when nothing else waits
    time.sleep(0.2)
    assert len(produced) <= 4  # two light items wait, a third is being produced
    assert [len(item) for item in ahead] == [1, 1, 1, 1, 1, 1, 5, 0]
