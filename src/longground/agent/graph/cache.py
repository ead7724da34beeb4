"""Cache of graph pieces per video, in process and on disk.

The graph is query-independent except for which events the filter keeps, so two things are
stored per video (one file per video fingerprint and encoder id; inside it, entries are keyed by
the settings that shaped them, sampling rates included):

- event boundaries, per (window, profile settings);
- each event's action split (cut times and motion), per (event span, action settings), filled
  in lazily as queries keep different events.

On disk this is one JSON file per video key, next to the feature store's entries; writes are
atomic (temporary file, then rename), and an unreadable file is ignored and rewritten. One
cache may serve queries in several threads at once (a lock guards its documents).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ...atomic import atomic_open
from ...cache.kinds import agent_graph_name
from .nodes import MOVE_COLUMNS, ActionSplit, unknown_moves


def _key(parts: tuple) -> str:
    return "|".join(f"{p:.6g}" if isinstance(p, float) else str(p) for p in parts)


class GraphCache:
    """Event bounds and action splits per video.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> cache = GraphCache(root)
    >>> cache.put_events("vid", ("long", 0.82), np.array([[0, 4], [4, 9]]))
    >>> GraphCache(root).events("vid", ("long", 0.82)).tolist()
    [[0, 4], [4, 9]]
    """

    def __init__(self, root: Path | None):
        self.root = None if root is None else Path(root)
        self._docs: dict[str, dict[str, Any]] = {}
        self._lock = threading.RLock()

    def _path(self, video_key: str) -> Path | None:
        return None if self.root is None else self.root / agent_graph_name(video_key)

    def _doc(self, video_key: str) -> dict[str, Any]:
        if video_key not in self._docs:
            doc: dict[str, Any] = {"events": {}, "actions": {}}
            path = self._path(video_key)
            if path is not None and path.exists():
                try:
                    loaded = json.loads(path.read_text())
                    if isinstance(loaded, dict) and {"events", "actions"} <= set(loaded):
                        doc = loaded
                except (OSError, ValueError):
                    pass
            self._docs[video_key] = doc
        return self._docs[video_key]

    def _save(self, video_key: str) -> None:
        path = self._path(video_key)
        if path is None:
            return
        with atomic_open(path) as handle:
            json.dump(self._docs[video_key], handle)

    def events(self, video_key: str, settings: tuple) -> np.ndarray | None:
        """Cached `(K, 2)` event frame ranges, or None."""
        with self._lock:
            found = self._doc(video_key)["events"].get(_key(settings))
        return None if found is None else np.asarray(found, dtype=np.int64).reshape(-1, 2)

    def put_events(self, video_key: str, settings: tuple, bounds: np.ndarray) -> None:
        with self._lock:
            self._doc(video_key)["events"][_key(settings)] = np.asarray(bounds).tolist()
            self._save(video_key)

    def splits(self, video_key: str, settings: tuple) -> dict[tuple[float, float], ActionSplit]:
        """Cached action splits under these action settings, by event span."""
        with self._lock:
            table = dict(self._doc(video_key)["actions"].get(_key(settings), {}))
        out = {}
        for span, item in table.items():
            start, end = (float(x) for x in span.split(":"))
            cuts, motion = np.asarray(item["cuts_s"], float), np.asarray(item["motion"], float)
            drift = np.asarray(item.get("drift", [np.nan] * len(motion)), float)
            moves = np.asarray(item.get("moves", unknown_moves(len(motion))), float)
            shape_ok = moves.shape == (len(motion), len(MOVE_COLUMNS))
            if shape_ok and len(motion) == len(drift) == len(cuts) + 1:  # else: recompute it
                out[(start, end)] = ActionSplit(cuts, motion, drift, moves)
        return out

    def put_splits(
        self, video_key: str, settings: tuple, splits: dict[tuple[float, float], ActionSplit]
    ) -> None:
        if not splits:
            return
        with self._lock:
            self._put_splits(video_key, settings, splits)

    def _put_splits(
        self, video_key: str, settings: tuple, splits: dict[tuple[float, float], ActionSplit]
    ) -> None:
        table = self._doc(video_key)["actions"].setdefault(_key(settings), {})
        for (start, end), split in splits.items():
            table[f"{start!r}:{end!r}"] = {
                "cuts_s": np.asarray(split.cuts_s).tolist(),
                "motion": np.asarray(split.motion).tolist(),
                "drift": np.asarray(
                    split.drift if split.drift is not None else np.full(len(split.motion), np.nan)
                ).tolist(),
                "moves": np.asarray(
                    split.moves if split.moves is not None else unknown_moves(len(split.motion))
                ).tolist(),
            }
        self._save(video_key)
