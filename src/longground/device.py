"""Where a model runs: `--device cpu|cuda|cuda:N|auto`, resolved once into a `Device`.

Torch encoders move their weights there and, on a GPU, run in half precision (bfloat16 where
the GPU supports it, else float16); ONNX Runtime sessions get the CUDA execution provider
when it is installed. Nothing here imports torch or onnxruntime until a device is resolved,
and the counting functions can be handed in, so the logic is tested on a CPU-only machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import UserError

DEVICE_HELP = "cpu, cuda (the first GPU), cuda:N, or auto (a GPU when there is one)"
_SPEC = re.compile(r"^(cpu|auto|cuda)(?::(\d+))?$")


@dataclass(frozen=True)
class Device:
    """A resolved device.

    Attributes:
        kind: "cpu" or "cuda".
        index: the GPU number for "cuda", None for "cpu".
        dtype: the torch dtype name weights and inputs use there: "float32" on the CPU,
            "bfloat16" or "float16" on a GPU.

    >>> Device("cuda", 1, "bfloat16").torch_name, Device("cpu").torch_name
    ('cuda:1', 'cpu')
    """

    kind: str = "cpu"
    index: int | None = None
    dtype: str = "float32"

    def __post_init__(self) -> None:
        if self.kind not in ("cpu", "cuda") or (self.kind == "cuda") != (self.index is not None):
            raise ValueError(f"invalid device {self}")

    @property
    def torch_name(self) -> str:
        """The name torch takes: "cpu" or "cuda:N"."""
        return "cpu" if self.kind == "cpu" else f"cuda:{self.index}"

    @property
    def id_suffix(self) -> str:
        """What to append to an `encoder_id` whose features this device changes: "" in
        float32, "@bfloat16" or "@float16" otherwise (the feature cache keys on it)."""
        return "" if self.dtype == "float32" else f"@{self.dtype}"


def parse_device(spec: str) -> tuple[str, int | None]:
    """Check a `--device` value: `(kind, index)` with kind "cpu", "cuda" or "auto".

    >>> parse_device("cuda:1"), parse_device(" AUTO ")
    (('cuda', 1), ('auto', None))
    >>> parse_device("gpu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    longground.errors.UserError: --device 'gpu': use cpu, cuda (the first GPU), cuda:N, or auto...
    """
    match = _SPEC.match(str(spec).strip().lower())
    if match is None or (match[2] is not None and match[1] != "cuda"):
        raise UserError(f"--device {spec!r}: use {DEVICE_HELP}")
    return match[1], None if match[2] is None else int(match[2])


def resolve_device(
    spec: str = "auto",
    gpu_count: Callable[[], int] | None = None,
    bf16_supported: Callable[[], bool] | None = None,
) -> Device:
    """The device `spec` names on this machine.

    Args:
        spec: "cpu", "cuda", "cuda:N" or "auto".
        gpu_count: how many CUDA GPUs torch sees (default: asks torch; 0 without torch).
        bf16_supported: whether the GPU runs bfloat16 (default: asks torch).

    Returns:
        The `Device`; "auto" is the first GPU when there is one, else the CPU.

    Raises:
        UserError: a malformed spec, or a GPU asked for that this machine does not have.

    >>> resolve_device("auto", gpu_count=lambda: 0)
    Device(kind='cpu', index=None, dtype='float32')
    >>> resolve_device("cuda", gpu_count=lambda: 2, bf16_supported=lambda: False)
    Device(kind='cuda', index=0, dtype='float16')
    """
    kind, index = parse_device(spec)
    if kind == "cpu":
        return Device()
    count = (gpu_count or _torch_gpu_count)()
    if kind == "auto" and count == 0:
        return Device()
    index = index or 0
    if index >= count:
        have = "no CUDA GPU" if count == 0 else f"{count} CUDA GPU{'s' if count > 1 else ''}"
        raise UserError(f"--device {spec}: this machine has {have} (torch sees {count})")
    bf16 = (bf16_supported or _torch_bf16)()
    return Device("cuda", index, "bfloat16" if bf16 else "float16")


def onnx_providers(device: Device, available: Sequence[str] | None = None) -> list:
    """ONNX Runtime execution providers for `device`, best first.

    Args:
        device: where to run.
        available: the providers this onnxruntime build has (default: asks it).

    Raises:
        UserError: a GPU was asked for and this onnxruntime has no CUDA provider.

    >>> both = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    >>> onnx_providers(Device("cuda", 1, "float16"), both)
    [('CUDAExecutionProvider', {'device_id': 1}), 'CPUExecutionProvider']
    >>> onnx_providers(Device(), both)
    ['CPUExecutionProvider']
    """
    if device.kind == "cpu":
        return ["CPUExecutionProvider"]
    if available is None:
        import onnxruntime

        available = onnxruntime.get_available_providers()
    if "CUDAExecutionProvider" not in available:
        raise UserError(
            f"--device {device.torch_name}: this onnxruntime has no CUDA provider "
            "(pip install onnxruntime-gpu, or use --device cpu)"
        )
    return [("CUDAExecutionProvider", {"device_id": device.index}), "CPUExecutionProvider"]


def check_batch_size(batch_size: int | None) -> int | None:
    """A `--batch-size` value: None (the encoder's default) or a positive int.

    >>> check_batch_size(0)
    Traceback (most recent call last):
    longground.errors.UserError: --batch-size must be at least 1, got 0
    """
    if batch_size is not None and (isinstance(batch_size, bool) or batch_size < 1):
        raise UserError(f"--batch-size must be at least 1, got {batch_size}")
    return batch_size


def torch_dtype(device: Device):
    """The torch dtype of `device.dtype`."""
    import torch

    return getattr(torch, device.dtype)


def _torch_gpu_count() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _torch_bf16() -> bool:
    import torch

    return bool(torch.cuda.is_bf16_supported())


def place_module(module, device: Device):
    """A torch module's weights on `device`, in its dtype (a no-op on the CPU in float32)."""
    return module.to(device=device.torch_name, dtype=torch_dtype(device))


def to_device(tensor, device: Device):
    """A torch tensor on `device`; floating-point tensors also take its dtype (token ids
    and masks keep theirs)."""
    if tensor.is_floating_point():
        return tensor.to(device.torch_name, dtype=torch_dtype(device))
    return tensor.to(device.torch_name)
