"""`load_encoder(spec)`: build an encoder by name from the `ENCODERS` registry, once per process.

A spec is `NAME` or `NAME:ARG`, split at the first colon: "label-bridge", "label-bridge:5",
"open_clip:ViT-B-32/laion2b_s34b_b79k", "hf:/models/siglip-base-patch16-224".
"""

from __future__ import annotations

import importlib
import inspect
import threading

from .base import DEFAULT_ENCODER, ENCODERS, ImageTextEncoder

# Modules that register encoders. Importing them is cheap: heavy imports happen on first use.
IMPLEMENTATIONS = (
    "longground.encoders.label_bridge",
    "longground.encoders.hf_clip",
    "longground.encoders.open_clip_encoder",
)

_LOADED: dict[str, ImageTextEncoder] = {}
_LOCK = threading.Lock()


def parse_spec(spec: str) -> tuple[str, str]:
    """Split an encoder spec into (name, argument).

    >>> parse_spec("hf:C:/models/clip")
    ('hf', 'C:/models/clip')
    >>> parse_spec(" label-bridge ")
    ('label-bridge', '')
    """
    name, _, arg = spec.strip().partition(":")
    return name.strip(), arg.strip()


def load_encoder(
    spec: str = DEFAULT_ENCODER, device: str | None = None, batch_size: int | None = None
) -> ImageTextEncoder:
    """The encoder for `spec`, loaded once per process (per device and batch size) and reused.

    Args:
        spec: `NAME` or `NAME:ARG`.
        device: `--device` (cpu, cuda, cuda:N, auto); None: the encoder's own default.
        batch_size: frames per forward pass; None: the encoder's own default.

    Raises:
        UserError: unknown encoder name (the message lists the known ones), a bad argument,
            a device this machine lacks, or a device given to an encoder that takes none.

    >>> load_encoder("label-bridge") is load_encoder("label-bridge")
    True
    >>> load_encoder("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    longground.errors.UserError: unknown encoder 'nope'; known: hf, label-bridge, open_clip...
    """
    from longground.errors import UserError

    from ..device import check_batch_size, resolve_device

    name, arg = parse_spec(spec)
    check_batch_size(batch_size)
    options = {}
    if device is not None:
        options["device"] = resolve_device(device)
    if batch_size is not None:
        options["batch_size"] = batch_size
    key = f"{name}:{arg}|{options.get('device')}|{batch_size}"
    with _LOCK:
        if key not in _LOADED:
            for module in IMPLEMENTATIONS:
                importlib.import_module(module)
            if name not in ENCODERS:
                known = ", ".join(sorted(ENCODERS))
                raise UserError(f"unknown encoder {name!r}; known: {known}")
            factory = ENCODERS[name]
            refused = set(options) - set(inspect.signature(factory).parameters)
            if refused:
                flags = ", ".join("--" + k.replace("_", "-") for k in sorted(refused))
                raise UserError(f"encoder {name!r} does not take {flags}")
            _LOADED[key] = factory(arg, **options)
        return _LOADED[key]
