"""Writing files so that a crash leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# Temporary files are `<TEMP_PREFIX><name>.<random><TEMP_SUFFIX>` beside their target.
TEMP_PREFIX, TEMP_SUFFIX = ".", ".tmp"


@contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """Open a temporary file beside `path`; on a clean exit make it durable and rename it over
    `path`; on an error remove it and leave `path` untouched.

    Args:
        path: the file to replace.
        mode: "w" (text, UTF-8) or "wb" (binary).

    >>> import tempfile, os
    >>> target = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_open(target) as f:
    ...     _ = f.write("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{TEMP_PREFIX}{path.name}."
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
