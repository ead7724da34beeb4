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
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

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


@dataclass(frozen=True)
class IndexJob:
    """What to index every video with (the settings of `longground index`)."""

    encoder: str
    fps: float
    cache_dir: Path | None = None
    device: str | None = None
    batch_size: int | None = None


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
            per video, spread by Ray.

    Returns:
        `{video: one-line error}` for the videos that could not be indexed.
    """
    todo = [video for video in videos if video.is_file() and not _indexed(video, job)]
    if not todo:
        return {}
    workers = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    if ray is not None:
        return _on_ray(todo, job, ray)
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
    import warnings

    from ..encoders import load_encoder
    from .store import FeatureStore

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # repeated when the video is searched
            encoder = load_encoder(job.encoder, job.device, job.batch_size)
            FeatureStore(job.cache_dir).get_or_build(video, encoder, job.fps, progress=False)
    except UserError as exc:
        return str(exc)
    return None


def _indexed(video: Path, job: IndexJob) -> bool:
    from ..encoders import load_encoder
    from .store import FeatureStore, decode_side

    encoder = load_encoder(job.encoder, job.device, job.batch_size)
    store = FeatureStore(job.cache_dir)
    try:
        return store.get(video, encoder.encoder_id, job.fps, decode_side(encoder)) is not None
    except UserError:
        return False  # a bad video: reported when it is built


def _on_ray(todo: list[Path], job: IndexJob, address: str) -> dict[Path, str]:
    """Each video a Ray task (retried up to 3 times when its worker dies)."""
    from ..errors import require

    ray = require("ray", "ray")
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, logging_level="WARNING")
        else:
            ray.init(address=address, logging_level="WARNING")
    remote = ray.remote(max_retries=3)(build_one)
    pending = {remote.remote(video, job): video for video in todo}
    errors = {}
    for ref, video in pending.items():
        error = ray.get(ref)
        if error is not None:
            errors[video] = error
    return errors


def _suffixes() -> str:
    return ", ".join(sorted(VIDEO_SUFFIXES)[:6]) + ", ..."
