"""Small arrays computed once per machine (e.g. class-name embeddings), kept next to the index.

Location: `$LONGGROUND_CACHE/encoders/`, default `~/.cache/longground/encoders/`. Writes are
atomic (temporary file + rename), and an entry of the wrong shape or with non-finite values is
recomputed, so an interrupted run never leaves a file that later reads as valid.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..cache.kinds import encoder_file


def cached_array(
    name: str,
    shape: tuple[int, ...],
    compute: Callable[[], np.ndarray],
    root: Path | None = None,
) -> np.ndarray:
    """Load `name`.npy from the cache, or compute it, store it atomically and return it.

    Args:
        name: file stem; include a content hash so changed inputs get a new entry.
        shape: the expected shape; a cached file of another shape is recomputed.
        compute: builds the array when it is missing or invalid.
        root: the cache root; default `cache_root()`.

    Returns:
        The float32 array. A read-only cache folder only costs the recomputation.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> cached_array("demo", (2,), lambda: np.ones(2), root).tolist()
    [1.0, 1.0]
    >>> cached_array("demo", (2,), lambda: np.zeros(2), root).tolist()  # read back
    [1.0, 1.0]
    """
    path = encoder_file(f"{name}.npy", root)
    try:
        array = np.load(path, allow_pickle=False)
        if array.shape == tuple(shape) and np.isfinite(array).all():
            return array.astype(np.float32, copy=False)
    except (OSError, ValueError):
        pass
    array = np.asarray(compute(), dtype=np.float32)
    if array.shape != tuple(shape):
        raise ValueError(f"computed {name} has shape {array.shape}, expected {tuple(shape)}")
    _save_atomic(path, array)
    return array


def _save_atomic(path: Path, array: np.ndarray) -> None:
    """Best effort: a cache that cannot be written is simply recomputed next time."""
    try:
        with atomic_open(path, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
    except OSError:
        pass


def files_fingerprint(path: Path) -> str:
    """A short id that changes when any file under `path` (or `path` itself) is replaced.

    Built from relative names, sizes and modification times, not contents, so it is instant
    for multi-GB weights.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "w.bin").write_bytes(b"1")
    >>> before = files_fingerprint(folder)
    >>> _ = (folder / "w.bin").write_bytes(b"22")
    >>> files_fingerprint(folder) != before
    True
    """
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digest = hashlib.sha256()
    for file in files:
        stat = file.stat()
        name = file.relative_to(path) if path.is_dir() else file.name
        digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]
