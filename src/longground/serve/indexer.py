"""The background indexer: scans the folders, indexes each queued video in turn, and scans
again every `rescan_s` seconds, so files added while the server runs are picked up.

A video that cannot be indexed gets its one-line reason and the others go on; nothing a
video does can stop the thread (any exception becomes that video's error line).
"""

from __future__ import annotations

import threading
import time
import warnings

from .library import Library
from .search import Searcher

#: Seconds between the two looks at a new file that must find it unchanged before it is
#: indexed (scans come this often while a file waits).
SETTLE_S = 1.0


class Indexer:
    """Indexes the library's queued videos with `searcher.prepare`, one at a time.

    Args:
        library: the videos and their states.
        searcher: the method, which indexes a video in `prepare`.
        rescan_s: seconds between scans of the folders.
    """

    def __init__(self, library: Library, searcher: Searcher, rescan_s: float = 5.0):
        self.library, self.searcher, self.rescan_s = library, searcher, rescan_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="longground-indexer", daemon=True)

    def start(self) -> Indexer:
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            for video in self.library.refresh():
                if self._stop.is_set():
                    return
                self.index_one(video.id)
            waiting = any(v.state == "queued" for v in self.library.videos())
            self._stop.wait(min(SETTLE_S, self.rescan_s) if waiting else self.rescan_s)

    def index_one(self, video_id: str) -> None:
        """Index one video, recording its state, duration, time taken or error."""
        from .library import signature

        video = self.library.get(video_id)
        if video is None or video.state != "queued":
            return
        started = time.time()
        self.library.update(video_id, state="indexing", started=started, error=None)
        before = signature(video.path)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a truncated file's warning is not a failure
                duration_s = self.searcher.prepare(video.path)
        except Exception as exc:  # noqa: BLE001 - one bad video must not stop the others
            reason = _reason(exc).removeprefix(f"{video.path}: ")  # the page names the video
            self.library.update(video_id, state="error", error=GONE if _gone(video) else reason,
                                signature=before)  # fmt: skip  (a changed file is tried again)
            return
        if _gone(video):
            self.library.update(video_id, state="error", error=GONE)
            return
        self.library.update(video_id, state="ready", duration_s=duration_s, signature=before,
                            indexed_s=round(time.time() - started, 2))  # fmt: skip


GONE = "the file is gone (deleted while it was indexed)"


def _gone(video) -> bool:
    return not video.path.exists() and not video.path.is_symlink()


def _reason(exc: Exception) -> str:
    """One line for the page: a `UserError`'s message, or the kind of failure."""
    from ..errors import UserError

    if isinstance(exc, UserError):
        return str(exc).splitlines()[0]
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot be read ({exc.strerror})"
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'failed'}"
