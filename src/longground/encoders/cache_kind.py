"""The `encoders` kind of cache entry: arrays and network exports the encoders keep
(`encoders/<name>.npy`, `<name>-<key>.onnx`), registered with `cache.admin` by the package
that writes them."""

from __future__ import annotations

from pathlib import Path

from ..cache.admin import CacheKind, Entry, file_entry, register_cache_kind, regular_files
from ..cache.kinds import ENCODERS_DIR


class EncodersKind(CacheKind):
    """One entry per file."""

    name = "encoders"
    folders = (ENCODERS_DIR,)

    def scan(self, base: Path) -> list[Entry]:
        files = regular_files(base / ENCODERS_DIR, base)
        return [file_entry(self.name, p) for p in files if not p.name.startswith(".")]


ENCODERS_KIND = register_cache_kind(EncodersKind())
