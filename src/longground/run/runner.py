"""Run one method over a whole benchmark into a resumable predictions file.

The driver is the single writer: whichever backend runs the queries, every finished record
comes back here and is appended (one line, flushed, fsynced) before the next is read. That
is what makes a crash lose at most the queries in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..samples import Sample
from .dispatch import WorkerLost
from .journal import Journal
from .local import Backend, PoolBackend, SerialBackend
from .method_spec import MethodSpec
from .metrics import RunningMetrics
from .scheduler import count_queries, plan_jobs


@dataclass
class RunSummary:
    """How a run went.

    Attributes:
        out: the predictions file.
        total: queries in the benchmark.
        resumed: benchmark queries already in the file when the run started.
        written: queries answered and written by this run.
        errors: benchmark queries whose record carries an "error" (from any run).
        parse_failed: benchmark queries whose model answer could not be read (from any run).
        elapsed_s: wall time of this run, seconds.
        metrics: running scores over the whole file (see `RunningMetrics`), {} without GT.
        torn_dropped: a torn last line from a crash was cut away on opening.
        errors_retried: earlier error records removed so their queries ran again.
        workers_lost: workers that died mid-run (their unanswered queries were redone).
        requeued: queries queued again because the worker holding them died.
    """

    out: Path
    total: int
    resumed: int = 0
    written: int = 0
    errors: int = 0
    parse_failed: int = 0
    elapsed_s: float = 0.0
    metrics: dict[str, float | int] = field(default_factory=dict)
    torn_dropped: bool = False
    errors_retried: int = 0
    workers_lost: int = 0
    requeued: int = 0

    @property
    def complete(self) -> bool:
        return self.resumed + self.written >= self.total

    @property
    def answered(self) -> int:
        """Queries in the file with a usable answer (possibly "no moment")."""
        return self.resumed + self.written - self.errors - self.parse_failed

    @property
    def all_answered(self) -> bool:
        """Every benchmark query has a usable answer in the file."""
        return self.answered >= self.total

    @property
    def queries_per_s(self) -> float:
        return self.written / self.elapsed_s if self.elapsed_s > 0 else 0.0


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the run; everything finished is in the file. Carries the summary."""

    def __init__(self, summary: RunSummary):
        super().__init__(f"interrupted after {summary.resumed + summary.written} queries")
        self.summary = summary


def make_backend(
    spec: MethodSpec,
    workers: int | None = None,
    ray: str | None = None,
    **ray_options: Any,
) -> Backend:
    """In-process for one worker, a process pool for several, Ray when `ray` names a cluster.

    >>> from longground.methods.base import MethodConfig
    >>> type(make_backend(MethodSpec("retrieval", MethodConfig()), workers=2)).__name__
    'PoolBackend'
    """
    if ray is not None:
        from .ray_backend import RayBackend

        return RayBackend(spec, ray, workers=workers, **ray_options)
    if workers is None or workers == 1:
        return SerialBackend(spec)
    return PoolBackend(spec, workers)


def run_benchmark(
    samples: Sequence[Sample],
    spec: MethodSpec,
    out: Path,
    *,
    backend: Backend | None = None,
    overwrite: bool = False,
    retry_errors: bool = False,
    video_roots: Sequence[Path] = (),
    progress: bool = True,
    info: dict[str, Any] | None = None,
    on_worker_lost: Callable[[WorkerLost], None] | None = None,
) -> RunSummary:
    """Answer every sample not yet in `out` and append each answer as it finishes.

    Args:
        samples: the benchmark.
        spec: the method and its settings.
        out: predictions JSONL (its sidecar `out.meta.json` records `spec.fingerprint()`).
        backend: where queries run (`make_backend`); default: in this process.
        overwrite: discard whatever `out` holds.
        retry_errors: run again the queries whose earlier record has an "error".
        video_roots: folders in which relative video names are looked up.
        progress: show a progress bar (it only ever draws when stderr is a terminal).
        info: extra fields for the sidecar.
        on_worker_lost: called when a worker dies mid-run (its queries are redone by the
            others), e.g. to tell the user.

    Raises:
        UserError: `out` belongs to another configuration; the method cannot be built;
            every worker died (`NoWorkersLeft`).
        RunInterrupted: Ctrl-C; what finished is saved.
    """
    start = time.perf_counter()
    spec.factory()  # an unknown method fails here, before any worker starts
    backend = backend or SerialBackend(spec)
    journal = Journal.open(
        out, spec.fingerprint(), overwrite=overwrite, retry_errors=retry_errors, info=info
    )
    jobs = plan_jobs(samples, journal.done, video_roots)
    summary = RunSummary(
        Path(out),
        len(samples),
        resumed=len(samples) - count_queries(jobs),
        torn_dropped=journal.torn_dropped,
        errors_retried=journal.errors_dropped,
    )
    metrics = RunningMetrics(samples)
    for sample in samples:
        if sample.qid in journal.done:
            metrics.update(journal.done[sample.qid])
    bar = _progress_bar(count_queries(jobs), summary.resumed, progress)

    def postfix() -> str:
        """The running scores, and the workers lost so far (progress shows redone work)."""
        text = metrics.postfix()
        if summary.workers_lost:
            lost = f"lost {summary.workers_lost} workers, {summary.requeued} queries redone"
            text = f"{text}, {lost}" if text else lost
        return text

    bar.set_postfix_str(postfix(), refresh=False)

    def save(record: dict[str, Any]) -> None:
        journal.append(record)
        metrics.update(record)
        summary.written += 1
        bar.set_postfix_str(postfix(), refresh=False)
        bar.update(1)

    def lost(event: WorkerLost) -> None:
        summary.workers_lost += 1
        summary.requeued += event.requeued
        bar.set_postfix_str(postfix())
        if on_worker_lost is not None:
            on_worker_lost(event)

    try:
        for item in backend.results(jobs) if jobs else ():
            if isinstance(item, WorkerLost):
                lost(item)
            else:
                save(item)
    except KeyboardInterrupt:
        for record in backend.drain():
            save(record)
        _finish(summary, metrics, start)
        raise RunInterrupted(summary) from None
    finally:
        backend.close()
        journal.close()
        bar.close()
    return _finish(summary, metrics, start)


def _finish(summary: RunSummary, metrics: RunningMetrics, start: float) -> RunSummary:
    summary.elapsed_s = time.perf_counter() - start
    scores = metrics.summary()
    summary.errors = int(scores.pop("errors"))
    summary.parse_failed = int(scores.pop("parse_failed"))
    summary.metrics = scores if metrics.has_gt else {}
    return summary


def _progress_bar(remaining: int, resumed: int, progress: bool):
    from ..progress import progress_bar

    desc = f"queries ({resumed} resumed)" if resumed else "queries"
    return progress_bar(total=remaining, desc=desc, unit="q", enabled=progress)
