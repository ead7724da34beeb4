"""Where the transformers Video-LLM's weights go: one device, or split over every GPU.

`$LONGGROUND_LLM_DEVICE` takes the encoders' `--device` values (cpu, cuda, cuda:N, auto).
On a GPU the weights load in bfloat16 (float16 where the GPU lacks it) unless a dtype is
given; with "auto" and more than one GPU, transformers' `device_map="auto"` splits a model
too large for one GPU over all of them (this needs the `accelerate` package).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..device import parse_device, resolve_device


@dataclass(frozen=True)
class Placement:
    """How to load the network.

    Attributes:
        dtype: the dtype name for `from_pretrained` ("auto" keeps the checkpoint's).
        device: where to move the loaded network, or None when `device_map` placed it.
        device_map: "auto" to split over every GPU, else None.
    """

    dtype: str
    device: str | None
    device_map: str | None = None


def place_network(
    spec: str | None,
    dtype: str = "auto",
    gpu_count: Callable[[], int] | None = None,
    bf16_supported: Callable[[], bool] | None = None,
) -> Placement:
    """The `Placement` for a device spec (None: "auto").

    >>> place_network("auto", gpu_count=lambda: 0)
    Placement(dtype='auto', device='cpu', device_map=None)
    >>> place_network("auto", gpu_count=lambda: 4, bf16_supported=lambda: True)
    Placement(dtype='bfloat16', device=None, device_map='auto')
    >>> place_network("cuda:1", "float16", gpu_count=lambda: 2)
    Placement(dtype='float16', device='cuda:1', device_map=None)
    """
    spec = spec or "auto"
    kind, _ = parse_device(spec)
    device = resolve_device(spec, gpu_count, bf16_supported)
    if device.kind == "cpu":
        return Placement(dtype, "cpu")
    half = device.dtype if dtype == "auto" else dtype
    count = (gpu_count or _gpu_count)()
    if kind == "auto" and count > 1:
        return Placement(half, None, "auto")
    return Placement(half, device.torch_name)


def _gpu_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0
