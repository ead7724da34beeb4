"""The footage library `longground serve` shows: the videos under its folders, found again
on every scan (new files are added, vanished ones marked), and each one's indexing state.

A name under a folder that cannot be a video is kept as an error line rather than skipped,
so the page can say why it is not searched: a symbolic link that loops or leads nowhere, a
file that cannot be read, something that is not a regular file.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from ..annotate.media import MediaFolder

#: File suffixes taken for videos (case-insensitive), as `find DIR` takes them.
VIDEO_SUFFIXES = frozenset(
    ".mp4 .m4v .mov .mkv .webm .avi .ts .mts .m2ts .mpg .mpeg .flv .wmv .3gp .ogv".split()
)
#: The states a video goes through.
STATES = ("queued", "indexing", "ready", "error")


@dataclass(frozen=True)
class Entry:
    """A name under one of the folders that looks like a video.

    Args:
        folder: the index of its folder in the library's folder list.
        name: its path inside that folder, `/`-separated.
        problem: why it cannot be a video (None: a regular, readable file).
    """

    folder: int
    name: str
    problem: str | None = None


def scan(folders: Sequence[Path]) -> list[Entry]:
    """Every name with a video suffix under `folders` (recursively, hidden names skipped,
    symbolic links to folders not followed), in sorted order, each with its problem if any.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "a.mp4").write_bytes(b"x") and (root / "loop.mp4").symlink_to("loop.mp4")
    >>> [(f.name, f.problem) for f in scan([root])]
    [('a.mp4', None), ('loop.mp4', 'a symbolic link that loops')]
    """
    found = []
    for k, folder in enumerate(folders):
        for here, dirs, files in os.walk(folder, onerror=lambda error: None):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files + [d for d in dirs if _is_link(here, d)]):
                if name.startswith(".") or Path(name).suffix.lower() not in VIDEO_SUFFIXES:
                    continue
                path = Path(here) / name
                relative = PurePosixPath(path.relative_to(folder).as_posix())
                found.append(Entry(k, str(relative), _problem(path)))
    return found


def _is_link(here: str, name: str) -> bool:
    return os.path.islink(os.path.join(here, name))


def _problem(path: Path) -> str | None:
    """Why `path` cannot be read as a video file, or None."""
    try:
        info = path.stat()
    except OSError as exc:
        if path.is_symlink():
            loops = exc.errno == 40  # ELOOP
            return "a symbolic link that loops" if loops else "a symbolic link to nothing"
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISDIR(info.st_mode):
        return "a folder, not a video file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a FIFO, socket or device)"
    if not os.access(path, os.R_OK):
        return "cannot be read (permission denied)"
    return None


@dataclass
class Video:
    """One video of the library and where its indexing stands.

    Attributes:
        id: a short stable id (from its folder and name), used in URLs.
        folder, name: where it is (`MediaFolder` of the folder, and the name inside it).
        path: the file.
        state: "queued", "indexing", "ready" or "error".
        error: the one-line reason, in state "error".
        duration_s: its length, once read.
        indexed_s: how long indexing took; `started` the time it began (time.time()).
        signature: (size, mtime) when it was indexed; a change queues it again.
        seen: (size, mtime) at the last scan: a file is indexed once two scans in a row
            find it unchanged (not while it is still being copied in).
    """

    id: str
    folder: int
    name: str
    path: Path
    state: str = "queued"
    error: str | None = None
    duration_s: float | None = None
    indexed_s: float | None = None
    started: float | None = None
    signature: tuple = field(default=(), repr=False)
    seen: tuple = field(default=(), repr=False)

    def to_dict(self, media_url: str | None) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("path", "signature", "seen")}
        elapsed = None if self.started is None or self.state != "indexing" else \
            round(time.time() - self.started, 1)  # fmt: skip
        return {**out, "elapsed_s": elapsed, "media_url": media_url}


class Library:
    """The videos under `folders`, their states, and the lock that guards them.

    Args:
        folders: the folders given to `serve` (each must exist).
    """

    def __init__(self, folders: Sequence[Path]):
        self.folders = [MediaFolder(folder) for folder in folders]
        self._videos: dict[str, Video] = {}
        self._lock = threading.Lock()
        self.scans = 0
        #: Goes up whenever a video is added or its state changes (answers may differ).
        self.version = 0

    @staticmethod
    def video_id(folder: int, name: str) -> str:
        """A 12-character id for a name in a folder, the same on every start.

        >>> len(Library.video_id(0, "a.mp4")), Library.video_id(0, "a") == Library.video_id(1, "a")
        (12, False)
        """
        return hashlib.sha1(f"{folder}/{name}".encode()).hexdigest()[:12]

    def refresh(self) -> list[Video]:
        """Scan the folders: add new videos (queued) and error lines, queue changed files
        again, mark vanished ones; returns the queued videos whose file has settled (the
        same size and time as at the scan before), which are ready to be indexed."""
        seen = {}
        for item in scan([f.root for f in self.folders]):
            seen[self.video_id(item.folder, item.name)] = item
        with self._lock:
            before = [(v.id, v.state, v.error) for v in self._videos.values()]
            for video_id, item in seen.items():
                video = self._videos.get(video_id)
                path = self.folders[item.folder].root / item.name
                if video is None:
                    video = Video(video_id, item.folder, item.name, path)
                    self._videos[video_id] = video
                if item.problem is not None:
                    video.state, video.error = "error", item.problem
                elif video.state in ("ready", "error") and (
                    video.error in _SCAN_PROBLEMS or video.signature != signature(path)
                ):  # the problem went away, or the file changed since it was indexed
                    video.state, video.error = "queued", None
            for video_id, video in self._videos.items():
                if video_id not in seen and video.state != "error":
                    video.state, video.error = "error", "the file is gone (deleted or moved)"
            self.version += before != [(v.id, v.state, v.error) for v in self._videos.values()]
            settled = []
            for video in self._videos.values():
                now = signature(video.path)
                if video.state == "queued" and now and now == video.seen:
                    settled.append(Video(**asdict(video)))
                video.seen = now
            self.scans += 1
            return settled

    def videos(self) -> list[Video]:
        """Every video, in folder and name order (copies: safe to read without the lock)."""
        with self._lock:
            ordered = sorted(self._videos.values(), key=lambda v: (v.folder, v.name))
            return [Video(**asdict(v)) for v in ordered]

    def get(self, video_id: str) -> Video | None:
        with self._lock:
            video = self._videos.get(video_id)
            return None if video is None else Video(**asdict(video))

    def update(self, video_id: str, **changes) -> None:
        """Set fields of one video (its state, error, times)."""
        with self._lock:
            video = self._videos.get(video_id)
            if video is not None:
                for key, value in changes.items():
                    setattr(video, key, value)
                self.version += 1

    def media_url(self, video: Video) -> str:
        """The page's URL of a video's file."""
        return f"/media/{video.folder}" + MediaFolder.url(video.name)[len("/media"):]

    def file(self, folder: int, name: str) -> Path | None:
        """The file `name` of folder `folder`, only when it is inside that folder (the
        annotation tool's checks: no `..`, no absolute path, no symlink out)."""
        if not 0 <= folder < len(self.folders):
            return None
        return self.folders[folder].find(name)


def signature(path: Path) -> tuple:
    """(size, mtime in ns) of a file; () when it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return ()
    return (info.st_size, info.st_mtime_ns)


# Problems found by a scan (a later scan that no longer finds them queues the video again).
_SCAN_PROBLEMS = frozenset({"a symbolic link that loops", "a symbolic link to nothing",
                            "a folder, not a video file", "cannot be read (permission denied)",
                            "not a regular file (a FIFO, socket or device)",
                            "the file is gone (deleted or moved)"})  # fmt: skip
