"""Which worker holds which job, and what goes back to the queue when a worker is lost.

The parallel backends of `run` (the local process pool and Ray) and Ray indexing
(`index.distributed`) hand whole jobs (a video and its items: queries, or the video to
index) to workers from the driver and ask a `Dispatcher` what to send next. When a worker
dies (a killed process, a lost Ray node), the queries of its video that have no answer yet
go back to the front of the queue as one smaller job, and the next free worker takes them:
the dead worker costs only its unanswered queries. An answer that reaches the driver twice
(a query redone after its first answer was already on its way) is accepted once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..errors import UserError


class Item(Protocol):
    """One unit of a job's work, answered by one record carrying its `qid`."""

    qid: str


class Job(Protocol):
    """A dataclass with a `queries` field: the items one worker answers in order. A job
    given out again after its worker was lost is `dataclasses.replace(job, queries=rest)`."""

    queries: Sequence[Item]


@dataclass(frozen=True)
class WorkerLost:
    """A worker died mid-run; its unanswered queries were queued again.

    Attributes:
        worker: the worker's name, e.g. "worker 1" or "Ray actor 1".
        reason: why, in one line (exit code, dead node).
        requeued: queries it held without an answer, now queued again.
        alive: workers still running.
        items: what was queued again, in words.
    """

    worker: str
    reason: str
    requeued: int
    alive: int
    items: str = "unanswered queries"

    def describe(self) -> str:
        """One line for the user.

        >>> WorkerLost("worker 1", "killed by signal 9", 4, 1).describe()
        'worker 1 lost (killed by signal 9); its 4 unanswered queries go to the 1 remaining worker'
        """
        workers = "worker" if self.alive == 1 else "workers"
        return (
            f"{self.worker} lost ({self.reason}); its {self.requeued} {self.items} go to "
            f"the {self.alive} remaining {workers}"
        )


#: What `NoWorkersLeft` says is left undone, for `n` unanswered queries of a run.
ANSWERS_LEFT = "{n} queries have no answer; the answers so far are saved"


class NoWorkersLeft(UserError):
    """Every worker died before every query had an answer; what finished is saved.

    >>> str(NoWorkersLeft("Ray actor", "its node died", 7)).split(";")[0]
    'every Ray actor was lost (the last: its node died)'
    """

    def __init__(self, kind: str, reason: str, unanswered: int, left: str = ANSWERS_LEFT):
        super().__init__(
            f"every {kind} was lost (the last: {reason}); {left.format(n=unanswered)}: run the "
            "same command again to resume"
        )


class Dispatcher:
    """The driver's view of the work: jobs not yet given out, and each worker's open queries.

    Args:
        jobs: the run's jobs, in the order to give them out.

    >>> from collections import namedtuple
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class VideoJob:
    ...     video: str
    ...     queries: tuple
    >>> Query = namedtuple("Query", "qid")
    >>> d = Dispatcher([VideoJob("a.mp4", (Query("q1"), Query("q2")))])
    >>> d.take(0).video, d.accept(0, {"qid": "q1"}), d.accept(1, {"qid": "q1"})
    ('a.mp4', True, False)
    >>> [q.qid for q in d.lose(0)], [q.qid for q in d.take(1).queries], d.finished
    (['q2'], ['q2'], False)
    """

    def __init__(self, jobs: list[Job]):
        self._pending: deque[Job] = deque(jobs)
        self._held: dict[Hashable, tuple[Job, dict[str, Item]]] = {}
        self._answered: set[str] = set()

    @property
    def finished(self) -> bool:
        """Every query has an answer."""
        return not self._pending and not any(open_ for _, open_ in self._held.values())

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def busy(self, worker: Hashable) -> bool:
        """`worker` holds queries without an answer."""
        return bool(self._held.get(worker, (None, {}))[1])

    def take(self, worker: Hashable) -> Job | None:
        """The next job for `worker` (which must not be busy), or None when none is left."""
        if not self._pending:
            self._held.pop(worker, None)
            return None
        job = self._pending.popleft()
        self._held[worker] = (job, {query.qid: query for query in job.queries})
        return job

    def accept(self, worker: Hashable, record: dict[str, Any]) -> bool:
        """Note `worker`'s answer; False when that query already had one (drop the record)."""
        qid = record["qid"]
        if worker in self._held:
            self._held[worker][1].pop(qid, None)
        if qid in self._answered:
            return False
        self._answered.add(qid)
        return True

    def lose(self, worker: Hashable) -> list[Item]:
        """`worker` is gone: queue its unanswered queries again (first in line); returns them."""
        job, open_ = self._held.pop(worker, (None, {}))
        rest = [query for query in open_.values() if query.qid not in self._answered]
        if job is not None and rest:
            self._pending.appendleft(replace(job, queries=tuple(rest)))
        return rest

    def open_queries(self) -> int:
        """Queries without an answer: queued, or held by a worker."""
        queued = sum(len(job.queries) for job in self._pending)
        return queued + sum(len(open_) for _, open_ in self._held.values())
