"""`MediaFolder`: the one folder of videos the server may read, and their durations.

A name comes from a URL or the benchmark. It is served only when it points, after following
symlinks, to a regular file inside the folder: `..` parts, absolute paths, encoded variants
(the server decodes `%2e%2e` before this sees it) and symlinks that leave it are refused.
"""

from __future__ import annotations

import threading
from pathlib import Path, PurePosixPath
from urllib.parse import quote

# Tried in order when the benchmark names a video without its extension (e.g. a YouTube id).
VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".mov", ".m4v", ".avi")


class MediaFolder:
    """Videos under `root`, found by the names a benchmark uses.

    Args:
        root: the folder given with `--videos`.

    >>> import tempfile
    >>> folder = MediaFolder(tempfile.mkdtemp())
    >>> folder.find("../etc/passwd") is None, folder.find("/etc/passwd") is None
    (True, True)
    >>> MediaFolder.url("clips/a b#1.mp4")
    '/media/clips/a%20b%231.mp4'
    """

    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()
        self._durations: dict[str, float | None] = {}
        self._lock = threading.Lock()

    @staticmethod
    def url(name: str) -> str:
        """The path at which the server serves the video the benchmark calls `name`."""
        return "/media/" + quote(name, safe="/")

    def find(self, name: str) -> Path | None:
        """The file for `name` inside the folder, or None when there is none (or it would
        leave the folder)."""
        if not name or "\x00" in name or "\\" in name:
            return None
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts:
            return None
        candidates = [relative]
        if not relative.suffix:
            candidates += [relative.with_suffix(s) for s in VIDEO_SUFFIXES]
        for candidate in candidates:
            found = self._inside(self.root / candidate)
            if found is not None:
                return found
        return None

    def _inside(self, path: Path) -> Path | None:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # missing, or a symlink loop
            return None
        if not real.is_relative_to(self.root) or not real.is_file():
            return None
        return real

    def duration_s(self, name: str) -> float | None:
        """The video's length read from the file (`video.info.probe`), cached; None when the
        file is missing or cannot be read as a video."""
        with self._lock:
            if name in self._durations:
                return self._durations[name]
        found = self.find(name)
        duration_s = _probe_duration_s(found) if found is not None else None
        with self._lock:
            self._durations[name] = duration_s
        return duration_s


def _probe_duration_s(path: Path) -> float | None:
    from ..errors import UserError

    try:
        from ..video.info import probe

        return probe(path).duration_s
    except (UserError, OSError, ValueError):
        return None
