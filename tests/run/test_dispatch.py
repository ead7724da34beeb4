"""The dispatcher against a simulated run where workers die at random moments."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from longground.run import Dispatcher
from longground.run.scheduler import Query, VideoJob


def jobs_of(sizes: list[int]) -> list[VideoJob]:
    return [
        VideoJob(f"v{v}.mp4", Path(f"v{v}.mp4"), tuple(Query(f"v{v}q{q}", "x") for q in range(n)))
        for v, n in enumerate(sizes)
    ]


class Simulation:
    """Workers that answer their video in order; the driver's `Dispatcher` in the middle."""

    def __init__(self, jobs: list[VideoJob], n_workers: int):
        self.dispatcher = Dispatcher(jobs)
        self.held: dict[int, list[Query]] = {}  # each live worker's unanswered queries, in order
        self.late: list[tuple[int, str]] = []  # answers of dead workers still on their way
        self.written: Counter[str] = Counter()
        for worker in range(n_workers):
            self.give(worker)

    def give(self, worker: int) -> None:
        job = self.dispatcher.take(worker)
        self.held[worker] = list(job.queries) if job else []

    def deliver(self, worker: int, qid: str) -> None:
        self.written[qid] += self.dispatcher.accept(worker, {"qid": qid})

    def answer(self, worker: int) -> None:
        if self.held[worker]:
            self.deliver(worker, self.held[worker].pop(0).qid)
        if not self.held[worker]:
            self.give(worker)

    def die(self, worker: int) -> None:
        if self.held[worker]:  # the answer in hand may still reach the driver
            self.late.append((worker, self.held[worker][0].qid))
        self.dispatcher.lose(worker)
        del self.held[worker]
        for other in sorted(self.held):
            if not self.held[other]:
                self.give(other)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=6),
    n_workers=st.integers(2, 4),
    steps=st.lists(st.tuples(st.integers(0, 3), st.sampled_from("aaaadl")), max_size=80),
)
def test_every_query_is_written_exactly_once_while_a_worker_lives(sizes, n_workers, steps):
    """Steps: a worker answers ("a"), dies ("d", never the last one), or a dead worker's
    answer arrives late, after its query was queued again ("l")."""
    jobs = jobs_of(sizes)
    run = Simulation(jobs, n_workers)
    for pick, action in steps:
        alive = sorted(run.held)
        worker = alive[pick % len(alive)]
        if action == "d" and len(alive) > 1:
            run.die(worker)
        elif action == "l" and run.late:
            run.deliver(*run.late.pop())
        else:
            run.answer(worker)
    while not run.dispatcher.finished:  # the survivors finish
        for worker in sorted(run.held):
            run.answer(worker)
    assert run.dispatcher.open_queries() == 0
    assert run.written == Counter(q.qid for job in jobs for q in job.queries)


def test_a_lost_worker_s_queries_go_first_to_the_next_free_worker():
    dispatcher = Dispatcher(jobs_of([3, 2]))
    assert dispatcher.take(0).video == "v0.mp4" and dispatcher.take(1).video == "v1.mp4"
    assert dispatcher.accept(0, {"qid": "v0q0"})
    assert [q.qid for q in dispatcher.lose(0)] == ["v0q1", "v0q2"]
    assert dispatcher.open_queries() == 4 and not dispatcher.finished
    assert dispatcher.accept(1, {"qid": "v1q0"}) and dispatcher.accept(1, {"qid": "v1q1"})
    again = dispatcher.take(1)
    assert (again.video, [q.qid for q in again.queries]) == ("v0.mp4", ["v0q1", "v0q2"])
    assert not dispatcher.accept(1, {"qid": "v0q0"})  # answered before: dropped
