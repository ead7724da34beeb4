"""`--device` and `--batch-size`: parsing, resolving on machines with 0-4 GPUs, ONNX providers,
the Video-LLM's placement, and the encoders run on the CPU through the same code paths."""

from __future__ import annotations

import numpy as np
import pytest

from longground.device import (
    Device,
    check_batch_size,
    onnx_providers,
    parse_device,
    resolve_device,
)
from longground.encoders import load_encoder
from longground.encoders.base import ENCODERS, ImageTextEncoder
from longground.errors import UserError
from longground.llm.placement import Placement, place_network
from tests.encoders.test_encoders import _save_tiny_clip


def gpus(n):
    return lambda: n


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("cpu", ("cpu", None)), ("cuda", ("cuda", None)), ("cuda:3", ("cuda", 3)),
     ("auto", ("auto", None)), (" Cuda:0 ", ("cuda", 0))],
)  # fmt: skip
def test_parse_device_accepts_the_four_forms(spec, expected):
    assert parse_device(spec) == expected


@pytest.mark.parametrize("spec", ["gpu", "cuda:", "cuda:-1", "cpu:0", "auto:1", "cuda:x", ""])
def test_parse_device_refuses_anything_else_in_one_line(spec):
    with pytest.raises(UserError, match="--device") as caught:
        parse_device(spec)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "n", "bf16", "expected"),
    [
        ("auto", 0, True, Device()),
        ("cpu", 4, True, Device()),
        ("auto", 2, True, Device("cuda", 0, "bfloat16")),
        ("cuda", 1, False, Device("cuda", 0, "float16")),
        ("cuda:3", 4, True, Device("cuda", 3, "bfloat16")),
    ],
)
def test_resolve_device(spec, n, bf16, expected):
    assert resolve_device(spec, gpus(n), lambda: bf16) == expected


@pytest.mark.parametrize(("spec", "n"), [("cuda", 0), ("cuda:2", 2), ("cuda:0", 0)])
def test_asking_for_a_gpu_the_machine_lacks_is_a_user_error(spec, n):
    with pytest.raises(UserError, match=f"--device {spec}: this machine has"):
        resolve_device(spec, gpus(n), lambda: True)


def test_this_machine_resolves_auto_to_what_torch_sees():
    torch = pytest.importorskip("torch")
    device = resolve_device("auto")
    assert device.kind == ("cuda" if torch.cuda.is_available() else "cpu")


def test_onnx_providers_need_the_cuda_provider_for_a_gpu():
    cpu_only = ["CPUExecutionProvider"]
    with pytest.raises(UserError, match="onnxruntime-gpu"):
        onnx_providers(Device("cuda", 0, "float16"), cpu_only)
    assert onnx_providers(Device(), cpu_only) == cpu_only


def test_batch_size_must_be_positive():
    assert check_batch_size(None) is None and check_batch_size(3) == 3
    with pytest.raises(UserError, match="--batch-size"):
        check_batch_size(-2)


@pytest.mark.parametrize(
    ("spec", "dtype", "n", "expected"),
    [
        ("cpu", "auto", 2, Placement("auto", "cpu")),
        (None, "auto", 0, Placement("auto", "cpu")),
        (None, "auto", 1, Placement("bfloat16", "cuda:0")),
        ("auto", "float16", 8, Placement("float16", None, "auto")),
        ("cuda:1", "auto", 8, Placement("bfloat16", "cuda:1")),
    ],
)
def test_video_llm_placement(spec, dtype, n, expected):
    assert place_network(spec, dtype, gpus(n), lambda: True) == expected


def test_label_bridge_takes_device_and_batch_size():
    encoder = load_encoder("label-bridge:7", device="cpu", batch_size=3)
    assert encoder.batch_size == 3 and encoder.device == Device()
    assert encoder is load_encoder("label-bridge:7", device="cpu", batch_size=3)
    assert encoder is not load_encoder("label-bridge:7")
    assert encoder.encoder_id == load_encoder("label-bridge:7").encoder_id
    with pytest.raises(UserError, match="--device cuda:5"):
        load_encoder("label-bridge", device="cuda:5")


def test_an_encoder_without_device_support_says_so(monkeypatch):
    class Plain(ImageTextEncoder):
        encoder_id = "plain"

        def encode_images(self, frames): ...

        def encode_texts(self, texts): ...

    monkeypatch.setitem(ENCODERS, "plain-test", lambda arg: Plain())
    assert isinstance(load_encoder("plain-test"), Plain)
    with pytest.raises(UserError, match="'plain-test' does not take --batch-size"):
        load_encoder("plain-test", batch_size=4)


def test_hf_encoder_runs_in_half_precision_through_the_gpu_code_path(tmp_path):
    """On the CPU, Device("cpu", None, "bfloat16") takes the casting path a GPU takes."""
    pytest.importorskip("transformers")
    from longground.encoders.hf_clip import HFImageTextEncoder

    _save_tiny_clip(tmp_path)
    full = HFImageTextEncoder(str(tmp_path), batch_size=2)
    half = HFImageTextEncoder(str(tmp_path), batch_size=2, device=Device("cpu", None, "bfloat16"))
    assert half.encoder_id == full.encoder_id + "@bfloat16"
    assert next(half.model.parameters()).dtype.__str__() == "torch.bfloat16"
    frames = np.random.default_rng(0).integers(0, 255, (5, 40, 60, 3), dtype=np.uint8)
    a, b = full.encode_images(frames), half.encode_images(frames)
    assert b.dtype == np.float32 and b.shape == a.shape
    assert (np.sum(a * b, axis=1) > 0.98).all()  # bf16 keeps the direction
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(
        np.sum(full.encode_texts(["a cat"]) * half.encode_texts(["a cat"])), 1, atol=0.02
    )
