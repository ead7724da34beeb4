"""Searching the library: the `Searcher` interface (the same method `find` builds, or a fake
in tests), one answer per (video, query, file version) kept in memory, and the ranked hits
the page shows.

Every method keeps per-video state between calls and is not made to be called from two
threads at once, so answers are computed one at a time; an answer computed once is shared
by every request that asks for it, which is what keeps 50 people searching the same
library fast.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import UserError
from ..export.found import channel_in
from ..methods import Grounding
from ..timecode import format_time
from .library import Library, Video, signature

#: Answers kept in memory (one per video and query).
KEEP_ANSWERS = 20_000


class Searcher(Protocol):
    """What the server needs of a grounding method."""

    method: str

    def prepare(self, video: Path) -> float:
        """Index `video` (the slow part, done in the background); its duration in seconds.

        Raises:
            UserError: the file cannot be read as a video.
        """

    def search(self, video: Path, query: str) -> Grounding:
        """The moments of `video` that match `query`, in time order."""


@dataclass
class MethodSearcher:
    """A grounding method as `find` builds and calls it.

    Args:
        grounder: the method (`methods.build_method`).
        method: its name.
        ground: `(video, query) -> Grounding` as `find` answers one video.
    """

    grounder: object
    method: str
    ground: Callable[[Path, str], Grounding]

    def prepare(self, video: Path) -> float:
        from ..methods.base import IndexedGrounder
        from ..video import probe

        duration_s = float(probe(video).duration_s)
        if isinstance(self.grounder, IndexedGrounder):
            grounder = self.grounder
            grounder.store.get_or_build(video, grounder.encoder, grounder.config.fps,
                                        progress=False)  # fmt: skip
        return duration_s

    def search(self, video: Path, query: str) -> Grounding:
        return self.ground(video, query)


class Answers:
    """Each video's answer to each query, computed once (one at a time) and kept.

    Args:
        searcher: the method.
        keep: how many answers to keep (the least recently used go first).
    """

    def __init__(self, searcher: Searcher, keep: int = KEEP_ANSWERS):
        self.searcher = searcher
        self.keep = keep
        self._answers: OrderedDict[tuple, Grounding | str] = OrderedDict()
        self._lock = threading.Lock()  # guards the dict
        self._method = threading.Lock()  # one method call at a time

    def of(self, video: Video, query: str) -> Grounding | str:
        """The answer of `video` to `query`, or the one-line reason there is none."""
        key = (video.id, signature(video.path), query)
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        with self._method:
            with self._lock:  # another request may have computed it meanwhile
                if key in self._answers:
                    return self._answers[key]
            try:
                answer = self.searcher.search(video.path, query)
                if answer.failed:
                    answer = f"the model's answer could not be read ({answer.parse_error})"
            except UserError as exc:
                answer = str(exc).removeprefix(f"{video.path}: ")
            except Exception as exc:  # noqa: BLE001 - one video's failure is its error line
                answer = f"the method failed on this video ({type(exc).__name__}: {exc})"
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > self.keep:
                self._answers.popitem(last=False)
        return answer


@dataclass(frozen=True)
class Filters:
    """What the page narrows the hits to (None: everything)."""

    videos: frozenset[str] | None = None
    channel: str | None = None
    min_score: float | None = None

    def keep(self, video_id: str, channel: str | None, score: float | None) -> bool:
        if self.videos is not None and video_id not in self.videos:
            return False
        if self.channel is not None and channel != self.channel:
            return False
        return self.min_score is None or (score is not None and score >= self.min_score)


def search_library(library: Library, answers: Answers, query: str, filters: Filters) -> dict:
    """The page's answer to a search: every hit of the ready videos ranked by score (then
    video, then time), the count per video (zero included), and why any video has none.

    Returns:
        `{"query", "method", "hits": [...], "videos": [...], "pending": n, "total": n}`;
        each hit has an `id` ("VIDEO:K", K its place in the video's moments), its times in
        seconds and as `HH:MM:SS.s`, score, channel and URLs of its thumbnail and video.
    """
    hits, rows, pending = [], [], 0
    for video in library.videos():
        row = {"id": video.id, "name": video.name, "state": video.state, "count": 0,
               "shown": 0, "error": video.error}  # fmt: skip
        rows.append(row)
        if video.state != "ready":
            pending += video.state in ("queued", "indexing")
            continue
        answer = answers.of(video, query)
        if isinstance(answer, str):
            row["error"] = answer
            continue
        channel, moments = channel_in(answer.trace), answer.moments
        row["count"] = moments.count
        for k, (start_s, end_s) in enumerate(moments.spans):
            score = None if moments.scores is None else float(moments.scores[k])
            if not filters.keep(video.id, channel, score):
                continue
            row["shown"] += 1
            hits.append(_hit(library, video, k, float(start_s), float(end_s), score, channel))
    hits.sort(key=lambda h: (h["score"] is None, -(h["score"] or 0.0), h.pop("order"),
                             h["start_s"]))  # fmt: skip
    return {"query": query, "method": answers.searcher.method, "hits": hits, "videos": rows,
            "pending": pending, "total": sum(r["count"] for r in rows)}  # fmt: skip


def _hit(library: Library, video: Video, k: int, start_s: float, end_s: float,
         score: float | None, channel: str | None) -> dict:  # fmt: skip
    from urllib.parse import urlencode

    middle_s = (start_s + end_s) / 2
    return {
        "id": f"{video.id}:{k}", "video": video.id, "name": video.name,
        "start_s": start_s, "end_s": end_s, "start": format_time(start_s),
        "end": format_time(end_s), "score": score, "channel": channel,
        "thumb_url": "/api/thumb?" + urlencode({"video": video.id, "t": f"{middle_s:.3f}"}),
        "media_url": library.media_url(video), "order": (video.folder, video.name),
    }  # fmt: skip


def explain(answer: Grounding, method: str) -> str:
    """How the method reached its answer, one reason a line (`methods.explain`, what
    `find --explain` prints), led by the method's name.

    >>> from longground.moments import Moments
    >>> g = Grounding(Moments.empty(), trace={"route": {"channel": "speech", "needle": "hi"}})
    >>> explain(g, "agent").splitlines()[0]
    "agent: why: the speech channel, needle 'hi' (rule None)"
    """
    from ..methods.explain import explain as reasons

    lines = reasons(answer) if isinstance(answer.trace, dict) else []
    return "\n".join(f"{method}: {line}" for line in lines) or f"{method}: no reason recorded"
