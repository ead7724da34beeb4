"""The first look's decoding: flow frames of all kept events in one pass, region features
from the index (or streamed and gated like the index), on a small generated video."""

from __future__ import annotations

import numpy as np

from longground.agent.composited.regions import halves
from longground.agent.graph.levels import split_event, split_events
from longground.agent.profiles import PROFILES
from longground.agent.settings import AgentSettings
from longground.encoders.label_bridge import HALF_LOGITS
from longground.index.store import FeatureStore
from longground.methods.agent import FileSource
from tests.agent.test_method import ColourEncoder, clip  # noqa: F401 (fixture)

WINDOWS = [(0.5, 3.0, 2.0), (3.0, 4.0, 8.0), (11.2, 14.9, 1.0), (31.5, 40.0, 1.0)]


class CountingEncoder(ColourEncoder):
    def __init__(self):
        self.frames_encoded = 0

    def encode_images(self, frames):
        self.frames_encoded += len(frames)
        return super().encode_images(frames)


def source(clip, tmp_path, gate="default", encoder=None, region_source="encoder"):  # noqa: F811
    store = FeatureStore(tmp_path) if gate == "default" else FeatureStore(tmp_path, gate=gate)
    return FileSource(clip, encoder or ColourEncoder(), store, region_source=region_source)


def test_one_pass_gives_each_windows_own_frames(clip, tmp_path):  # noqa: F811
    src = source(clip, tmp_path)
    got: dict[int, list] = {}
    for i, frames, pts_s in src.frames(WINDOWS, 32):
        got.setdefault(i, []).append((frames, pts_s))
    assert sorted(got) == [0, 1, 2, 3]  # the last window runs past the 34-s clip's end
    for i, (start_s, end_s, fps) in enumerate(WINDOWS):
        window = [(start_s, min(end_s, src.duration_s), fps)]
        alone = [(f, p) for _, f, p in src.frames(window, 32)]
        assert np.array_equal(
            np.concatenate([f for f, _ in got[i]]), np.concatenate([f for f, _ in alone])
        )
        assert np.allclose(
            np.concatenate([p for _, p in got[i]]), np.concatenate([p for _, p in alone])
        )


def test_streamed_splits_equal_one_event_at_a_time(clip, tmp_path):  # noqa: F811
    src = source(clip, tmp_path)
    settings = AgentSettings.from_params({"min_motion_range": "0"})
    spans = [(0.0, 6.0), (6.0, 11.0), (11.0, 11.4), (17.0, 22.0)]
    streamed = dict(split_events(src, spans, PROFILES["medium"], settings, margin_s=0.25))
    assert list(streamed) == spans
    for span in spans:
        alone = split_event(src, span, PROFILES["medium"], settings, margin_s=0.25)
        assert np.array_equal(streamed[span].cuts_s, alone.cuts_s)
        assert np.allclose(streamed[span].motion, alone.motion, equal_nan=True)


def test_region_halves_are_gated_like_the_index(clip, tmp_path):  # noqa: F811
    times = np.arange(0.5, 34.0, 1.0)
    gated_enc, every_enc = CountingEncoder(), CountingEncoder()
    gated = source(clip, tmp_path / "a", encoder=gated_enc).region_features(times)
    every = source(clip, tmp_path / "b", gate=None, encoder=every_enc).region_features(times)
    assert every_enc.frames_encoded == 2 * len(times)
    # 6 scenes of flat colours: each half is encoded about once per scene, not per frame.
    assert gated_enc.frames_encoded <= 2 * 8
    assert gated["embedding"].shape == every["embedding"].shape == (len(times), 2, 3)
    assert np.allclose(gated["embedding"], every["embedding"], atol=0.02)


class HalvesEncoder(CountingEncoder):
    """Also gives each frame's halves from the whole-frame pass (as label-bridge does): the
    mean colours of its left and right halves, turned into features by `region_features`."""

    def image_features(self, frames):
        features = super().image_features(frames)
        left, right = halves(np.asarray(frames, np.float32))
        means = np.stack([left.mean(axis=(1, 2)), right.mean(axis=(1, 2))], axis=1)
        return {**features, HALF_LOGITS: means}

    def region_features(self, features):
        means = features[HALF_LOGITS] + 1.0
        return {"embedding": means / np.linalg.norm(means, axis=-1, keepdims=True)}


def test_region_halves_from_the_index_need_no_encoder_call(clip, tmp_path):  # noqa: F811
    times = np.arange(0.5, 34.0, 1.0)
    enc = HalvesEncoder()
    src = source(clip, tmp_path / "a", encoder=enc, region_source="index")
    assert src.extras.regions_in_index
    src.timeline(1.0)
    before = enc.frames_encoded
    pooled = src.region_features(times)
    assert enc.frames_encoded == before  # read from the index
    encoded = source(clip, tmp_path / "b", encoder=CountingEncoder()).region_features(times)
    assert pooled["embedding"].shape == encoded["embedding"].shape == (len(times), 2, 3)
    # Flat-coloured halves: the whole frame's halves are the halves encoded alone, except
    # within a second of a scene change (the nearest indexed frame may be the other scene's).
    same = np.isclose(pooled["embedding"], encoded["embedding"], atol=0.02).all(axis=(1, 2))
    assert same.mean() > 0.8


def test_region_source_encoder_is_the_default_and_the_old_path(clip, tmp_path):  # noqa: F811
    enc = HalvesEncoder()
    src = FileSource(clip, enc, FeatureStore(tmp_path))
    index_src = FileSource(clip, enc, FeatureStore(tmp_path), region_source="index")
    assert not src.extras.regions_in_index and src.key != index_src.key
    src.timeline(1.0)
    before = enc.frames_encoded
    got = src.region_features(np.array([2.0, 9.0]))
    assert enc.frames_encoded - before == 4 and HALF_LOGITS not in got
    assert "regions=index" not in FileSource(clip, ColourEncoder(), FeatureStore(tmp_path),
                                             region_source="index").key  # fmt: skip


def test_region_source_is_checked():
    import pytest

    from longground.errors import UserError

    with pytest.raises(UserError, match="region_source='pixels'; choose one of: index, encoder"):
        AgentSettings.from_params({"region_source": "pixels"})


def test_mean_embeddings_match_a_cumulative_sum():
    from longground.agent.graph.nodes import mean_embeddings

    rng = np.random.default_rng(5)
    emb = rng.normal(size=(50, 7)).astype(np.float32)
    frames = np.sort(rng.integers(0, 51, size=(20, 2)), axis=1)
    frames[0] = (3, 3)  # an empty range gives a zero row
    cums = np.vstack([np.zeros((1, 7)), np.cumsum(emb.astype(np.float64), axis=0)])
    means = (cums[frames[:, 1]] - cums[frames[:, 0]]) / np.maximum(np.diff(frames, axis=1), 1)
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    expected = means / np.where(norms > 0, norms, 1.0)
    np.testing.assert_allclose(mean_embeddings(emb, frames), expected, atol=1e-6)
    assert not mean_embeddings(emb, frames)[0].any()
