"""`load_encoder(spec)`: build an encoder by name from the `ENCODERS` registry, once per process.

A spec is `NAME` or `NAME:ARG`, split at the first colon: "label-bridge", "label-bridge:5",
"open_clip:ViT-B-32/laion2b_s34b_b79k", "hf:/models/siglip-base-patch16-224".
"""

from __future__ import annotations

import importlib
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


def load_encoder(spec: str = DEFAULT_ENCODER) -> ImageTextEncoder:
    """The encoder for `spec`, loaded once per process and then reused.

    Raises:
        UserError: unknown encoder name (the message lists the known ones) or a bad argument.

    >>> load_encoder("label-bridge") is load_encoder("label-bridge")
    True
    >>> load_encoder("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    longground.errors.UserError: unknown encoder 'nope'; known: hf, label-bridge, open_clip...
    """
    from longground.errors import UserError

    name, arg = parse_spec(spec)
    key = f"{name}:{arg}"
    with _LOCK:
        if key not in _LOADED:
            for module in IMPLEMENTATIONS:
                importlib.import_module(module)
            if name not in ENCODERS:
                known = ", ".join(sorted(ENCODERS))
                raise UserError(f"unknown encoder {name!r}; known: {known}")
            _LOADED[key] = ENCODERS[name](arg)
        return _LOADED[key]
