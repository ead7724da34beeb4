"""Watching folders for videos that appear or go away, by polling (no file-system events:
they do not reach across network file systems, where shared libraries live)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import UserError
from .library import find_videos


def poll_changes(
    folders: list[Path],
    seen: set[Path],
    interval_s: float,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[tuple[list[Path], list[Path]]]:
    """Every `interval_s` seconds, `(new videos, videos gone)` under `folders` against
    `seen` (updated in place). A new file is reported once its size has stayed the same
    over one poll (a copy still being written is left for the next poll).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()); (root / "a.mp4").write_bytes(b"x")
    1
    >>> changes = poll_changes([root], set(), 0, sleep=lambda s: None)
    >>> next(changes), next(changes)
    (([], []), ([PosixPath('...a.mp4')], []))
    """
    sizes: dict[Path, int] = {}
    while True:
        sleep(interval_s)
        present = set(_listed(folders))
        gone = sorted(seen - present)
        seen.difference_update(gone)
        new = []
        for video in sorted(present - seen):
            size = _size(video)
            if size is not None and sizes.get(video) == size:
                new.append(video)
                seen.add(video)
                sizes.pop(video)
            elif size is not None:
                sizes[video] = size
        yield new, gone


def _listed(folders: list[Path]) -> list[Path]:
    out = []
    for folder in folders:
        try:
            out += find_videos([folder])
        except (UserError, OSError):  # an empty or vanished folder: nothing in it now
            continue
    return out


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
