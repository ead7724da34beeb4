"""The transcript shown under the annotation player: the speech channel's segments of a
video, read from the channels cache (`longground index`, or any `find` that routed a query
to a channel) or, when `extract` is on, extracted on first request and cached there.

One lock per video, so two tabs asking at once extract it once; transcripts are kept in
memory (an answer without one is asked again, so a later `longground index` shows up).
"""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

from ..errors import UserError


class Transcripts:
    """Transcripts of the videos the server shows.

    Args:
        cache_dir: the channels cache root (None: the default cache).
        extract: extract the speech channel of a video whose transcript is not cached
            (False: show only what is cached).
    """

    def __init__(self, cache_dir: str | Path | None = None, extract: bool = True):
        self.cache_dir, self.extract = cache_dir, extract
        self._answers: dict[Path, dict] = {}
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()

    def of(self, path: Path) -> dict:
        """`{"from": "cache" | "extracted" | "none", "note": str | None, "segments":
        [{"start_s", "end_s", "text"}, ...]}` for the video file at `path`."""
        with self._guard:
            lock = self._locks.setdefault(path, threading.Lock())
        with lock:
            if path in self._answers:
                return self._answers[path]
            answer = self._read(path)
            if answer["from"] != "none":
                self._answers[path] = answer
            return answer

    def _read(self, path: Path) -> dict:
        from ..channels import ChannelStore, installed

        if not installed("speech"):
            return _none("the speech channel's models are not installed: "
                         "pip install 'longground[channels]'")  # fmt: skip
        store = ChannelStore(self.cache_dir)
        try:
            cached = store.path_for(path, "speech", 1.0).exists()
            if not cached and not self.extract:
                return _none("no transcript in the cache (run: longground index VIDEO)")
            with warnings.catch_warnings(record=True):  # the note is returned instead
                warnings.simplefilter("always")
                evidence = store.get_or_build(path, ("speech",))
        except (UserError, OSError) as exc:
            return _none(str(exc))
        if "speech" in evidence.notes:
            return _none(evidence.notes["speech"])
        lines = evidence.get("speech").lines()
        segments = [{"start_s": a, "end_s": b, "text": text} for a, b, text in lines]
        return {"from": "cache" if cached else "extracted", "note": None, "segments": segments}


def _none(note: str) -> dict:
    return {"from": "none", "note": note, "segments": []}
