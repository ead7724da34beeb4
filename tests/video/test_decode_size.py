"""The index decodes frames at the encoder's own input size, and that size is in the key."""

from __future__ import annotations

import numpy as np
import pytest

from longground.encoders.base import ImageTextEncoder
from longground.index import FeatureStore, clear_memory_cache
from longground.index.store import LEGACY_SHORT_SIDE, decode_side
from longground.video import VideoWriter


class ShapeRecorder(ImageTextEncoder):
    """Records the frame sizes it is handed; embeds each frame by its mean colour."""

    encoder_id = "shape-recorder"

    def __init__(self, input_size: int):
        self.input_size = input_size
        self.shapes: set[tuple[int, int]] = set()

    def encode_images(self, frames):
        self.shapes |= {frames.shape[1:3]}
        mean = frames.reshape(len(frames), -1, 3).mean(axis=1) + 1.0
        return (mean / np.linalg.norm(mean, axis=1, keepdims=True)).astype(np.float32)

    def encode_texts(self, texts):
        return np.ones((len(texts), 3), np.float32) / np.sqrt(3)


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("decode") / "wide.mp4"
    with VideoWriter(path, 640, 360, fps=5) as writer:
        for i in range(15):
            writer.write(np.full((360, 640, 3), 15 * i, np.uint8))
    return path


@pytest.fixture(autouse=True)
def fresh_memory():
    clear_memory_cache()
    yield
    clear_memory_cache()


@pytest.mark.parametrize("side", [224, 336])
def test_frames_reach_the_encoder_at_its_input_size(tmp_path, video, side):
    encoder = ShapeRecorder(side)
    timeline = FeatureStore(tmp_path).get_or_build(video, encoder, fps=1, progress=False)
    assert len(timeline) == 3
    assert {min(shape) for shape in encoder.shapes} == {side}  # never upscaled from 224


def test_size_is_in_the_key_except_at_the_legacy_224(tmp_path, video):
    store = FeatureStore(tmp_path)
    legacy = store.key(video, "e", 1.0)
    assert "short_side" not in legacy  # entries written before the change keep their key
    assert store.key(video, "e", 1.0, LEGACY_SHORT_SIDE) == legacy
    wide = store.key(video, "e", 1.0, 336)
    assert wide == {**legacy, "short_side": 336}
    assert store.path_for(video, wide) != store.path_for(video, legacy)


def test_same_encoder_id_at_another_size_is_another_entry(tmp_path, video):
    store = FeatureStore(tmp_path)
    small, large = ShapeRecorder(224), ShapeRecorder(336)
    store.get_or_build(video, small, fps=1, progress=False)
    assert store.get(video, "shape-recorder", 1.0) is not None
    assert store.get(video, "shape-recorder", 1.0, 336) is None
    store.get_or_build(video, large, fps=1, progress=False)
    assert large.shapes  # built, not served from the 224 entry
    assert store.get(video, "shape-recorder", 1.0, 336) is not None
    assert len(list((tmp_path / "timelines").glob("*.npz"))) == 2


def test_decode_side_rejects_a_bad_input_size():
    assert decode_side(ShapeRecorder(336)) == 336
    with pytest.raises(ValueError, match="input_size must be a positive int"):
        decode_side(ShapeRecorder(0))


def test_hf_encoder_reads_its_input_size_from_the_checkpoint(tmp_path):
    pytest.importorskip("transformers")
    from longground.encoders import load_encoder
    from tests.encoders.test_encoders import _save_tiny_clip

    _save_tiny_clip(tmp_path)  # a vision tower trained at 32 x 32
    assert load_encoder(f"hf:{tmp_path}").input_size == 32


def test_label_bridge_decodes_at_224():
    from longground.encoders.label_bridge import LabelBridgeEncoder

    assert LabelBridgeEncoder.input_size == 224
