"""The `encoders` kind of cache entry: arrays and network exports the encoders keep
(`encoders/<name>.npy`, `<name>-<key>.onnx`), registered with `cache.admin` by the package
that writes them."""

from __future__ import annotations

from ..cache.admin import FilesKind, register_cache_kind
from ..cache.kinds import ENCODERS_DIR


class EncodersKind(FilesKind):
    """One entry per file."""

    name = "encoders"
    folders = (ENCODERS_DIR,)


ENCODERS_KIND = register_cache_kind(EncodersKind())
