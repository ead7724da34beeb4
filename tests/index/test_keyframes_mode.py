"""The opt-in keyframes-only decoding: each sample is the last keyframe at or before it, and
its index entries are kept apart from exact ones."""

from __future__ import annotations

import numpy as np

from longground.index import FeatureStore
from longground.video import sample_frames
from longground.video.container import open_video
from tests.support.hostile import MeanColourEncoder
from tests.support.media import bikes_path


def keyframe_times(path) -> np.ndarray:
    """Every keyframe's time, from decoding every frame (the naive reference)."""
    with open_video(path) as video:
        origin, base = video.origin_pts, video.time_base
        frames = video.container.decode(video.stream)
        return np.array([float((f.pts - origin) * base) for f in frames if f.key_frame])


def test_each_sample_is_the_last_keyframe_at_or_before_it():
    keys = keyframe_times(bikes_path())
    stream = sample_frames(bikes_path(), 4, keyframes_only=True)
    batches = list(stream)
    times = np.concatenate([b.times_s for b in batches])
    pts = np.concatenate([b.pts_s for b in batches])
    exact = np.concatenate([b.times_s for b in sample_frames(bikes_path(), 4)])
    np.testing.assert_array_equal(times, exact)  # the same sample times as exact decoding
    expected = keys[np.searchsorted(keys, times, side="right") - 1]
    np.testing.assert_allclose(pts, expected)
    assert stream.n_decoded == len(keys) and stream.truncated_at_s is None


def test_keyframes_only_entries_are_kept_apart(tmp_path, monkeypatch):
    exact = FeatureStore(tmp_path, gate=None)
    fast = FeatureStore(tmp_path, gate=None, keyframes_only=True)
    assert fast.key(bikes_path(), "e", 1) == {**exact.key(bikes_path(), "e", 1),
                                              "decode": "keyframes"}  # fmt: skip
    monkeypatch.setenv("LONGGROUND_INDEX_KEYFRAMES", "1")
    assert FeatureStore(tmp_path, gate=None).keyframes_only
    a = exact.get_or_build(bikes_path(), MeanColourEncoder(), 2, progress=False)
    b = fast.get_or_build(bikes_path(), MeanColourEncoder(), 2, progress=False)
    assert len(a) == len(b) and len(list((tmp_path / "timelines").glob("*.npz"))) == 2
    assert not np.array_equal(a.pts_s, b.pts_s)
