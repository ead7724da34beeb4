"""Work layout: the benchmark's open queries grouped by video, one job per video.

A job goes to one worker whole, so the worker's method indexes that video once and every
query on it reuses the index. Jobs with more queries come first, so the long ones start early
and workers finish together.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..samples import Sample

VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".avi", ".mov", ".m4v", ".ts")


@dataclass(frozen=True)
class Query:
    """One open query: its id and its text."""

    qid: str
    text: str


@dataclass(frozen=True)
class VideoJob:
    """All open queries on one video.

    Attributes:
        video: the video as the benchmark names it.
        path: the file found for it, or None when none was found.
        queries: the queries, in benchmark order.
    """

    video: str
    path: Path | None
    queries: tuple[Query, ...]


def plan_jobs(
    samples: Sequence[Sample], done: Iterable[str] = (), video_roots: Sequence[Path] = ()
) -> list[VideoJob]:
    """Group the samples not in `done` by video, biggest group first (ties: benchmark order).

    Raises:
        UserError: the benchmark repeats a qid.

    >>> from longground.moments import Moments
    >>> s = [Sample(q, v, 60.0, "a dog", Moments.empty()) for q, v in
    ...      [("q1", "a.mp4"), ("q2", "b.mp4"), ("q3", "b.mp4"), ("q4", "a.mp4"), ("q5", "b.mp4")]]
    >>> [(j.video, [q.qid for q in j.queries]) for j in plan_jobs(s, done={"q4"})]
    [('b.mp4', ['q2', 'q3', 'q5']), ('a.mp4', ['q1'])]
    """
    done = set(done)
    seen: set[str] = set()
    groups: dict[str, list[Query]] = {}
    for sample in samples:
        if sample.qid in seen:
            raise UserError(f"the benchmark has qid {sample.qid!r} more than once")
        seen.add(sample.qid)
        if sample.qid not in done:
            groups.setdefault(sample.video, []).append(Query(sample.qid, sample.query))
    jobs = [
        VideoJob(video, resolve_video(video, video_roots), tuple(queries))
        for video, queries in groups.items()
    ]
    return sorted(jobs, key=lambda job: -len(job.queries))


def resolve_video(video: str, roots: Sequence[Path] = ()) -> Path | None:
    """The file for a benchmark's video name, as an absolute path, or None.

    An absolute path is taken as it is; a relative one is tried under each root in turn, then
    the working directory. A name without a suffix also matches `NAME.mp4`, `NAME.mkv`, ...

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "clip7.mkv").write_bytes(b"")
    >>> resolve_video("clip7", [root]).name, resolve_video("missing", [root])
    ('clip7.mkv', None)
    """
    path = Path(video).expanduser()
    bases = [path] if path.is_absolute() else [Path(r) / path for r in roots] + [path]
    for base in bases:
        candidates = [base]
        if not base.suffix:
            candidates += [base.with_name(base.name + suffix) for suffix in VIDEO_SUFFIXES]
        for candidate in candidates:
            if candidate.is_file():
                return candidate.absolute()  # workers elsewhere (Ray) have another cwd
    return None


def count_queries(jobs: Iterable[VideoJob]) -> int:
    """Queries across `jobs`."""
    return sum(len(job.queries) for job in jobs)
