"""The cache root: one folder for every kind of cache (see `kinds` for what is inside)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "LONGGROUND_CACHE"


def cache_root(root: str | Path | None = None) -> Path:
    """`root` when given (`~` expanded), else `$LONGGROUND_CACHE`, else `~/.cache/longground`.

    >>> os.environ[CACHE_ENV] = "/tmp/lg-cache"
    >>> str(cache_root()), str(cache_root("/data/cache"))
    ('/tmp/lg-cache', '/data/cache')
    >>> del os.environ[CACHE_ENV]
    """
    if root is not None:
        return Path(root).expanduser()
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "longground").expanduser()
