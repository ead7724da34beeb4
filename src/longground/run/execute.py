"""Answer one video's queries with a built method, yielding one canonical record per query.

Every backend (in-process, process pool, Ray actor) runs jobs through `ground_job`, so the
records are the same whichever backend ran them.

A record is a canonical prediction line (see `longground.formats.canonical`):
`{"qid", "intervals": [[s, e], ...], "scores"?, "raw_scores"?, "channel"?, "response"?,
"method", "timings": {...}}`.
A query that could not be answered has `"intervals": null` and an `"error"`; one whose model
answer did not parse (`Grounding.parse_error`) has `"intervals": null`, its
`"response"` and the `"parse_error"`. Scoring counts both as failures, never as "no moment".
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

from ..errors import UserError
from ..methods.base import Grounder, Grounding
from .scheduler import VideoJob


def ground_job(method: Grounder, job: VideoJob, method_name: str) -> Iterator[dict[str, Any]]:
    """Run every query of `job`, in order; a `UserError` becomes that query's error record.

    When the video itself is unreadable (`longground.video.BadVideo`), the remaining queries
    on it get the same error without trying again.

    >>> from pathlib import Path
    >>> from longground.run.scheduler import Query
    >>> job = VideoJob("gone.mp4", None, (Query("q1", "a dog"),))
    >>> next(ground_job(None, job, "retrieval"))["error"]
    'video not found: gone.mp4'
    """
    if job.path is None:
        for query in job.queries:
            yield error_record(query.qid, f"video not found: {job.video}", method_name, 0.0)
        return
    video_error: str | None = None
    for query in job.queries:
        if video_error is not None:
            yield error_record(query.qid, video_error, method_name, 0.0)
            continue
        start = time.perf_counter()
        try:
            grounding = method.ground(job.path, query.text)
        except UserError as exc:
            elapsed_s = time.perf_counter() - start
            if _is_video_error(exc):
                video_error = str(exc)
            yield error_record(query.qid, video_error or str(exc), method_name, elapsed_s)
            continue
        yield grounding_record(query.qid, grounding, method_name, time.perf_counter() - start)


def _is_video_error(exc: UserError) -> bool:
    from ..video import BadVideo

    return isinstance(exc, BadVideo)


def grounding_record(
    qid: str, grounding: Grounding, method_name: str, ground_s: float
) -> dict[str, Any]:
    """The canonical line for a method's answer.

    >>> from longground.moments import Moments
    >>> g = Grounding(Moments.from_list([[1, 2.5]], scores=[0.8]), raw="01:00-02:30")
    >>> grounding_record("q1", g, "retrieval", 0.25)
    {'qid': 'q1', 'intervals': [[1.0, 2.5]], 'scores': [0.8], 'response': '01:00-02:30', \
'method': 'retrieval', 'timings': {'ground_s': 0.25}}
    """
    record: dict[str, Any] = {"qid": qid}
    if grounding.parse_error is not None:
        record["intervals"] = None
        record["parse_error"] = grounding.parse_error
    else:
        record["intervals"] = grounding.moments.to_list()
        if grounding.moments.scores is not None:
            record["scores"] = [_finite(score) for score in grounding.moments.scores.tolist()]
        if grounding.raw_scores is not None:
            record["raw_scores"] = [_finite(score) for score in grounding.raw_scores]
    if grounding.channel is not None:
        record["channel"] = grounding.channel
    if grounding.raw is not None:
        record["response"] = grounding.raw
    record["method"] = method_name
    record["timings"] = {"ground_s": round(ground_s, 6)}
    return record


def error_record(qid: str, error: str, method_name: str, ground_s: float) -> dict[str, Any]:
    """The canonical line for a query that could not be answered.

    >>> error_record("q2", "clip.mp4: cannot decode", "retrieval", 0.0)["error"]
    'clip.mp4: cannot decode'
    """
    return {
        "qid": qid,
        "intervals": None,
        "error": error,
        "method": method_name,
        "timings": {"ground_s": round(ground_s, 6)},
    }


def _finite(score: float) -> float | None:
    """JSON has no NaN or infinity; such a score is written as null."""
    return score if math.isfinite(score) else None
