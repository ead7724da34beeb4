"""The packaged EfficientNet-Lite0 as a function of numpy arrays, on ONNX Runtime or torch.

This module imports neither torch nor the network's code until a backend needs them: with
ONNX Runtime and an export already in the cache, classifying frames never imports torch
(about 200 MB of resident memory less).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from .lite0_weights import packaged_weights

# `(N, 3, 224, 224)` float32 -> logits `(N, 1000)`, pooled `(N, 1280)`, half logits `(N, 2, 1000)`.
Runner = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
BACKENDS = ("auto", "onnx", "torch", "int8")
OUTPUTS = ("logits", "pooled", "half_logits")
# The ONNX export's file stem; it changed when the half logits joined the outputs.
ONNX_NAME = "efficientnet-lite0-halves"


def _with_halves():
    from .efficientnet_lite import WithHalves, load_efficientnet_lite0

    return WithHalves(load_efficientnet_lite0()).eval()


def efficientnet_lite0_runner(
    backend: str = "auto", threads: int | None = None, device=None
) -> Runner:
    """The packaged classifier as a function `(N, 3, 224, 224) float32 -> outputs`.

    Args:
        backend: "onnx" (ONNX Runtime, export cached on disk), "torch", or "auto" (ONNX Runtime
            when installed). Both give the same outputs to float32 rounding. "int8": ONNX
            Runtime on an int8 copy of the export (`onnx_net.quantized_onnx`, calibrated on
            `calibration_images`): faster, with other outputs (an opt-in mode).
        threads: threads for the ONNX Runtime session (default all cores); torch uses its own
            setting.
        device: a `Device` (default the CPU): the ONNX session gets the CUDA provider, the
            torch network moves there; both stay in float32.

    Returns:
        The runner; outputs are numpy float32 `(N, 1000)` logits, `(N, 1280)` pooled features
        and `(N, 2, 1000)` logits of the left and right halves of the input (`WithHalves`).
    """
    from ..device import Device, onnx_providers
    from ..errors import UserError
    from . import onnx_net

    device = Device() if device is None else replace(device, dtype="float32")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "int8":
        return _int8_runner(threads, onnx_providers(device))
    if backend == "onnx" or (backend == "auto" and onnx_net.onnx_available()):
        try:
            return onnx_net.cached_onnx_net(
                _with_halves,
                Path(packaged_weights()),
                ONNX_NAME,
                image_size=224,
                output_names=OUTPUTS,
                threads=threads,
                providers=onnx_providers(device),
            )
        except Exception as exc:  # export or runtime failure: "auto" still works, slower
            if backend == "onnx" or isinstance(exc, UserError):
                raise
            message = f"ONNX Runtime failed ({exc}); running the classifier in torch"
            warnings.warn(message, stacklevel=2)
    return _torch_runner(device)


def _int8_runner(threads: int | None, providers: list) -> Runner:
    from . import onnx_net

    float_net = onnx_net.cached_onnx_net(
        _with_halves, Path(packaged_weights()), ONNX_NAME, image_size=224,
        output_names=OUTPUTS, threads=1, providers=providers,
    )  # fmt: skip
    int8 = onnx_net.quantized_onnx(float_net.path, calibration_images())
    return onnx_net.OnnxNet(int8, threads, providers)


def calibration_images(n: int = 48, side: int = 224, seed: int = 0) -> np.ndarray:
    """`(n, 3, side, side)` float32 network inputs for int8 calibration, made here (no image
    set is shipped): smooth colour gradients under random rectangles, discs and stripes at
    several scales, through the classifier's own normalisation. Deterministic.

    >>> calibration_images(2).shape
    (2, 3, 224, 224)
    """
    from .resize import to_model_input_np

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:side, 0:side] / side
    frames = np.empty((n, side, side, 3), np.uint8)
    for i in range(n):
        base = rng.uniform(0, 255, 3) * (1 - x[..., None]) + rng.uniform(0, 255, 3) * y[..., None]
        image = base / np.maximum(base.max() / 255, 1)
        for _ in range(rng.integers(3, 12)):
            cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.4)
            colour = rng.uniform(0, 255, 3)
            if rng.random() < 0.5:
                mask = (x - cx) ** 2 + (y - cy) ** 2 < r**2
            elif rng.random() < 0.5:
                mask = (abs(x - cx) < r) & (abs(y - cy) < r / 2)
            else:
                mask = np.sin((x * np.cos(r * 9) + y * np.sin(r * 9)) * 60 * r) > 0.3
            image[mask] = colour
        noise = rng.normal(0, rng.uniform(2, 20), image.shape)
        frames[i] = np.clip(image + noise, 0, 255).astype(np.uint8)
    return to_model_input_np(frames)


def _torch_runner(device) -> Runner:
    import torch

    net = _with_halves().to(memory_format=torch.channels_last).to(device.torch_name)

    def run(images: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = torch.from_numpy(images).contiguous(memory_format=torch.channels_last)
        with torch.inference_mode():
            outputs = net(x.to(device.torch_name))
        return tuple(o.cpu().numpy() for o in outputs)

    return run
