"""Image-text encoders: frames and queries into one space, so a query can score frames.

`load_encoder("label-bridge")` (the offline default), `"open_clip:ARCH/PRETRAINED_OR_PATH"` or
`"hf:REPO_OR_PATH"`; see docs/encoders.md.
"""

from .base import DEFAULT_ENCODER, ENCODERS, ImageTextEncoder, register_encoder
from .load import load_encoder, parse_spec

__all__ = [
    "DEFAULT_ENCODER",
    "ENCODERS",
    "ImageTextEncoder",
    "load_encoder",
    "parse_spec",
    "register_encoder",
]
