"""Indexing a library on a Ray cluster: one task per video, on the actor pool `run --ray`
uses (`cluster.ray_pool.RayPool`), writing the same cache entries as a local run.

Each actor loads the encoder once and indexes the videos it is given, one at a time, into
the cache folder (which every node must reach at the same path: a shared folder; see
docs/running.md). The driver collects each video's record the moment it lands. What a lost
node costs: the video it was indexing goes back to the queue and the next free actor
continues it from its last checkpoint (`FeatureStore` saves one every minute); finished
entries are on the shared folder already. A video is never indexed by two actors at once
(the dispatcher gives it out once, and the entry's build lock holds across processes), and
a record that reaches the driver twice is taken once. An actor whose node cannot write the
cache folder drops out with one line and its video goes to another; a video a node cannot
read is that video's error line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cluster.dispatch import WorkerLost
from ..cluster.ray_pool import BuildFailed, RayPool
from ..errors import UserError
from .indexer import Indexer, IndexJob, check_cache_writable, quiet_index


@dataclass(frozen=True)
class ToIndex:
    """One video to index; `qid` is its absolute path (what a record names)."""

    qid: str


@dataclass(frozen=True)
class VideoTask:
    """A job for the pool: one video (`queries` holds it once)."""

    video: str
    queries: tuple[ToIndex, ...]


@dataclass(frozen=True)
class IndexWork:
    """What each actor builds (an `Indexer`, after checking it can write the cache) and
    runs (each video of a task)."""

    job: IndexJob
    then: Callable[[Path], str | None] | None = None

    def build(self) -> Indexer:
        try:
            check_cache_writable(self.job.cache_dir)
        except UserError as exc:
            import socket

            raise BuildFailed(f"{exc} on {socket.gethostname()}") from None
        return Indexer(self.job, self.then)

    def records(self, indexer: Indexer, task: VideoTask) -> Iterator[dict[str, Any]]:
        for item in task.queries:
            yield quiet_index(indexer, Path(item.qid))


class IndexPool(RayPool):
    """The actor pool, with lines that speak of videos."""

    items = "videos being indexed"
    left = "{n} videos are not indexed yet; every finished entry is kept"


def tasks(videos: list[Path]) -> list[VideoTask]:
    """One task per video, largest file first (so the long ones start early), each video
    once (by absolute path)."""
    unique = {str(Path(video).absolute()): Path(video) for video in videos}
    order = sorted(unique, key=lambda path: -_size(Path(path)))
    return [VideoTask(path, (ToIndex(path),)) for path in order]


def index_on_ray(
    videos: list[Path],
    job: IndexJob,
    address: str,
    *,
    workers: int | None = None,
    then: Callable[[Path], str | None] | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    on_lost: Callable[[WorkerLost], None] | None = None,
) -> dict[Path, str]:
    """Index `videos` on the Ray cluster at `address`, one actor per CPU (or `workers`).

    Args:
        videos: the videos (paths every node reads at the same place).
        job: encoder, rate, cache folder (every node must reach it).
        address: "auto", "local", "HOST:PORT" or "ray://HOST:PORT".
        workers: actors; default one per CPU of the cluster.
        then: run on the worker after each video's entry (see `Indexer`).
        on_record: called with each video's record as it lands.
        on_lost: called for each actor lost mid-run (its video is indexed by another).

    Returns:
        `{video: one-line error}` for the videos that could not be indexed.

    Raises:
        UserError: the cluster cannot be reached, or every actor was lost
            (`NoWorkersLeft`: what finished is kept; the same call resumes).
    """
    given = {str(Path(video).absolute()): Path(video) for video in videos}
    pool = IndexPool(IndexWork(job, then), address, workers=workers)
    errors: dict[Path, str] = {}
    try:
        for item in pool.results(tasks(videos)):
            if isinstance(item, WorkerLost):
                if on_lost is not None:
                    on_lost(item)
                continue
            if "error" in item:
                errors[given[item["qid"]]] = item["error"]
            if on_record is not None:
                on_record(item)
    finally:
        pool.close()
    return errors


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
