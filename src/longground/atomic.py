"""Writing files so that a crash leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import stat
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
    `path`; on an error remove it and leave `path` untouched. The file gets the mode of the one
    it replaces, or for a new file the umask's, like a plain `open`.

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
        os.fchmod(fd, _file_mode(path))  # mkstemp makes 0600; the result should not be
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _file_mode(path: Path) -> int:
    """The mode a plain `open(path, "w")` would give: the replaced file's, else 0666 less the
    umask.

    >>> _file_mode(Path("/no/such/file")) == 0o666 & ~_umask()
    True
    """
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask: from /proc on Linux, else by setting it and straight back (which
    another thread could observe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
