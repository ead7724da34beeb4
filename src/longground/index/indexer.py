"""Indexing one video after another with one loaded encoder, each video's outcome as a
record: the same for `longground index` on this machine and for its Ray workers.

A record is a plain dict (it travels from a Ray worker to the driver):
`{"qid": absolute path, "video": path as given, "node": host, "frames": N, "encoded": K,
"fps": rate, "encoder": id, "duration_s": s, "built": bool, "seconds": s}`, or
`{"qid", "video", "node", "error": one line}` for a video that could not be indexed.
"""

from __future__ import annotations

import socket
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cache.kinds import index_dir
from ..errors import UserError
from ..outputs import check_writable_folder


@dataclass(frozen=True)
class IndexJob:
    """What to index every video with (the settings of `longground index`)."""

    encoder: str
    fps: float
    cache_dir: Path | None = None
    device: str | None = None
    batch_size: int | None = None
    every_frame: bool = False
    keyframes_only: bool | None = None

    def store(self):
        """The `FeatureStore` these settings write to."""
        from .store import FeatureStore, default_gate

        gate = None if self.every_frame else default_gate()
        return FeatureStore(self.cache_dir, gate, keyframes_only=self.keyframes_only)


class Indexer:
    """One encoder, loaded once; `index(video)` builds a video's entry (or finds it built).

    Args:
        job: encoder, rate and cache.
        then: run after each video's entry is there (e.g. extracting evidence channels);
            its line, if any, goes into the record as `"then"`.
        progress: a frame progress bar per video (on a terminal only).
    """

    def __init__(
        self,
        job: IndexJob,
        then: Callable[[Path], str | None] | None = None,
        progress: bool = False,
    ):
        from ..encoders import load_encoder

        self.job, self.then, self.progress = job, then, progress
        self.encoder = load_encoder(job.encoder, job.device, job.batch_size)
        self.store = job.store()

    def index(self, video: Path) -> dict[str, Any]:
        """Build `video`'s entry unless it exists; the record (see the module docstring).

        A video that cannot be read, and an entry that cannot be written, give an error
        record; warnings (a damaged file) are raised as usual for the caller to show.
        """
        from .store import decode_side

        record: dict[str, Any] = {"qid": str(Path(video).absolute()), "video": str(video),
                                  "node": socket.gethostname()}  # fmt: skip
        model, fps = self.encoder, self.job.fps
        try:
            if not Path(video).is_file():
                raise UserError(f"{video}: no such file (on {record['node']})")
            cached = self.store.has(video, model.encoder_id, fps, decode_side(model))
            started = time.perf_counter()
            timeline = self.store.get_or_build(video, model, fps, progress=self.progress)
            seconds = time.perf_counter() - started
            if self.then is not None:
                record["then"] = self.then(video)
        except UserError as exc:
            return {**record, "error": str(exc)}
        except OSError as exc:  # an entry that cannot be written: this video only
            where = exc.filename or self.store.root
            return {**record, "error": f"{video}: cannot write {where}: {exc.strerror or exc}"}
        return {**record, "frames": len(timeline), "encoded": int(timeline.encoded.sum()),
                "fps": fps, "encoder": model.encoder_id, "short_side": decode_side(model),
                "duration_s": timeline.duration_s,
                "built": not cached, "seconds": seconds}  # fmt: skip


def summary_line(record: dict[str, Any], where: bool = False) -> str:
    """The line `longground index` prints for a record (with `where`, the node it ran on).

    >>> print(summary_line({"video": "a.mp4", "frames": 60, "encoded": 20, "fps": 1.0,
    ...       "encoder": "e", "duration_s": 60.0, "built": True, "seconds": 2.0}))
    ... # doctest: +NORMALIZE_WHITESPACE
    a.mp4: 60 frames at 1 fps with e, built in 2.0 s (30 frames/s, 30x realtime);
    40 unchanged, not encoded
    """
    node = f" on {record['node']}" if where else ""
    if "error" in record:
        named = not where or record["node"] in record["error"]
        return record["error"] + ("" if named else f" (on {record['node']})")
    what = f"{record['video']}: {record['frames']} frames at {record['fps']:g} fps with "
    what += record["encoder"]
    reused = record["frames"] - record["encoded"]
    note = f"; {reused} unchanged, not encoded" if reused else ""
    if not record["built"]:
        return f"{what}, already indexed{node}{note}"
    took_s = record["seconds"]
    rate = record["frames"] / took_s if took_s > 0 else float("inf")
    realtime = record["duration_s"] / took_s if took_s > 0 else float("inf")
    speed = f"({rate:.3g} frames/s, {realtime:.3g}x realtime)"
    return f"{what}, built in {took_s:.1f} s{node} {speed}{note}"


def check_cache_writable(cache_dir: Path | None) -> Path:
    """The timelines folder under the cache root, created if missing.

    Raises:
        UserError: it cannot be created or written in (on this machine).
    """
    folder = index_dir(cache_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"the cache folder {folder}: cannot be created ({exc.strerror})") from None
    check_writable_folder(folder, f"the cache folder {folder}", "folder")
    return folder


def quiet_index(indexer: Indexer, video: Path) -> dict[str, Any]:
    """`indexer.index(video)` with warnings kept out of the way (a worker's warnings would
    reach no one; the driver reports errors from the records)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return indexer.index(video)
