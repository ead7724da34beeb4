"""A library of videos: the files under folders, and indexing the ones not yet indexed, in
parallel processes or on Ray.

Indexing is resumable: each build checkpoints its progress (`FeatureStore`), so an
interrupted library index continues where every video stopped, and finished videos are
skipped.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..errors import UserError
from .indexer import IndexJob

__all__ = ["VIDEO_SUFFIXES", "IndexJob", "build_one", "find_videos", "index_missing"]

#: File suffixes taken for videos when a folder is searched (case-insensitive).
VIDEO_SUFFIXES = frozenset(
    ".mp4 .m4v .mov .mkv .webm .avi .ts .mts .m2ts .mpg .mpeg .flv .wmv .3gp .ogv".split()
)


def find_videos(paths: Iterable[str | Path]) -> list[Path]:
    """The videos that `paths` name: files as given, folders searched recursively for files
    with a video suffix (sorted, hidden files and folders skipped).

    Raises:
        UserError: a folder without any video in it.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for name in ("b.mp4", "sub/a.MKV", "notes.txt", ".hidden/c.mp4"):
    ...     (root / name).parent.mkdir(parents=True, exist_ok=True); (root / name).touch()
    >>> [p.relative_to(root).as_posix() for p in find_videos([root])]
    ['b.mp4', 'sub/a.MKV']
    """
    out: list[Path] = []
    for path in map(Path, paths):
        if not path.is_dir():
            out.append(path)
            continue
        found = sorted(
            p for p in path.rglob("*")
            if p.suffix.lower() in VIDEO_SUFFIXES and p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )  # fmt: skip
        if not found:
            raise UserError(f"{path}: no video files in this folder (looked for {_suffixes()})")
        out.extend(found)
    return out


def index_missing(
    videos: list[Path], job: IndexJob, workers: int | None = None, ray: str | None = None
) -> dict[Path, str]:
    """Index the videos that have no entry yet, several at a time.

    Args:
        videos: the library.
        job: encoder, rate and cache.
        workers: processes; default one per core, at most one per missing video. 1 builds
            in this process.
        ray: a Ray address ("auto", "local", "HOST:PORT") to build there instead, one task
            per video on the actor pool of `index.distributed`.

    Returns:
        `{video: one-line error}` for the videos that could not be indexed.
    """
    todo = _not_indexed([video for video in videos if video.is_file()], job)
    if not todo:
        return {}
    if ray is not None:
        from .distributed import index_on_ray

        return index_on_ray(todo, job, ray, workers=workers)
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    if workers == 1:
        return {v: error for v in todo if (error := build_one(v, job)) is not None}
    # spawn, not fork: a fork of a process whose torch or ONNX Runtime threads hold locks
    # can hang forever in the child
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        errors = pool.map(build_one, todo, [job] * len(todo))
        return {v: error for v, error in zip(todo, errors, strict=True) if error is not None}


def build_one(video: Path, job: IndexJob) -> str | None:
    """Build one video's entry; its one-line error, or None."""
    from .indexer import Indexer, quiet_index

    return quiet_index(Indexer(job), video).get("error")


def _not_indexed(videos: list[Path], job: IndexJob) -> list[Path]:
    """The videos without an entry for `job`, judged from the entries' manifests (a video
    that cannot be read counts as not indexed: its error is reported when it is built)."""
    if not videos:
        return []
    from ..encoders import load_encoder
    from .store import decode_side

    encoder = load_encoder(job.encoder, job.device, job.batch_size)
    store = job.store()
    todo = []
    for video in videos:
        try:
            found = store.has(video, encoder.encoder_id, job.fps, decode_side(encoder))
        except UserError:
            found = False
        if not found:
            todo.append(video)
    return todo


def _suffixes() -> str:
    return ", ".join(sorted(VIDEO_SUFFIXES)[:6]) + ", ..."
