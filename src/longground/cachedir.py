"""Where longground keeps what it computes once: one root for every kind of cache."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "LONGGROUND_CACHE"


def default_root() -> Path:
    """`$LONGGROUND_CACHE`, else `~/.cache/longground`.

    >>> os.environ[CACHE_ENV] = "/tmp/lg-cache"
    >>> str(default_root())
    '/tmp/lg-cache'
    >>> del os.environ[CACHE_ENV]
    """
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "longground").expanduser()
