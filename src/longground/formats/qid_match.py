"""Finding a benchmark qid for a prediction that names its query instead (peer tools'
files: lighthouse writes `{"query", "vid", "pred_relevant_windows"}`, lmms-eval logs the
dataset row it asked about).

A prediction is matched by its video and query text, compared loosely (case, white space,
final punctuation and the video's folder and extension do not matter), or by its query text
alone when no video is given and exactly one benchmark query has that text. When the
benchmark asks the same query of the same video twice, repeated predictions take those qids
in benchmark order.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Iterable
from pathlib import PurePath

VIDEO_KEYS = ("vid", "video", "video_id", "video_name", "video_path", "videoID")
QUERY_KEYS = ("query", "caption", "sentence", "question", "description")


def query_key(text: str) -> str:
    """A query as compared: lower case, single spaces, no final punctuation.

    >>> query_key("  Person turns a light ON. ")
    'person turns a light on'
    """
    return re.sub(r"\s+", " ", text).strip().rstrip(".!?").strip().lower()


def video_key(name: str) -> str:
    """A video as compared: its file name without folder or extension, lower case.

    >>> video_key("Charades_v1_480/3MSZA.mp4"), video_key("3MSZA")
    ('3msza', '3msza')
    """
    return PurePath(str(name).strip()).stem.lower()


def first_text(record: dict, keys: tuple[str, ...]) -> str | None:
    """The first of `keys` in `record` that holds non-blank text."""
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


class QidMatcher:
    """Benchmark qids by (video, query) and by query alone.

    >>> m = QidMatcher([("q1", "a.mp4", "a dog"), ("q2", "a.mp4", "a dog"), ("q3", "b", "a cat")])
    >>> m.match("A", "A dog."), m.match("a", "a dog"), m.match("a", "a dog"), m.match(None, "a cat")
    ('q1', 'q2', None, 'q3')
    """

    def __init__(self, entries: Iterable[tuple[str, str, str]]):
        self._by_pair: dict[tuple[str, str], deque[str]] = defaultdict(deque)
        self._by_query: dict[str, list[str]] = defaultdict(list)
        for qid, video, query in entries:
            self._by_pair[(video_key(video), query_key(query))].append(qid)
            self._by_query[query_key(query)].append(qid)
        self._used: set[str] = set()

    @classmethod
    def from_samples(cls, samples) -> QidMatcher:
        """A matcher over `Sample`s."""
        return cls((s.qid, s.video, s.query) for s in samples)

    def match(self, video: str | None, query: str | None) -> str | None:
        """The next unused qid with this video and query (or this query alone, when it is
        unique in the benchmark and no video is given); None when there is none."""
        if query is None:
            return None
        if video is not None:
            waiting = self._by_pair.get((video_key(video), query_key(query)))
            qid = waiting.popleft() if waiting else None
        else:
            found = self._by_query.get(query_key(query), [])
            qid = found[0] if len(found) == 1 and found[0] not in self._used else None
        if qid is not None:
            self._used.add(qid)
        return qid

    def match_record(self, record: dict) -> str | None:
        """`match` on a record's video and query fields (`VIDEO_KEYS`, `QUERY_KEYS`)."""
        return self.match(first_text(record, VIDEO_KEYS), first_text(record, QUERY_KEYS))
