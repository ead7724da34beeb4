"""Run jobs on this machine: in the current process, or in a pool of worker processes.

A backend turns a list of `VideoJob`s into a stream of records, yielded one per finished
query as soon as it is finished, so the single writer in the driver can save it at once.
After an interrupt, `drain()` hands over records that arrived but were not yet yielded, and
`close()` stops the workers.

The pool uses the "spawn" start method: each worker is a fresh interpreter that builds the
method once, then takes whole videos from a shared queue until none are left.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
import traceback
from collections.abc import Iterator
from typing import Any, Protocol

from ..errors import UserError
from .execute import ground_job
from .method_spec import MethodSpec
from .scheduler import VideoJob, count_queries

POLL_S = 0.5


class Backend(Protocol):
    """Where the queries run. See the module docstring."""

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any]]: ...

    def drain(self) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


class WorkerCrashed(RuntimeError):
    """A worker failed with an unexpected exception (a bug, not bad input)."""


class SerialBackend:
    """Everything in the calling process with one method instance."""

    def __init__(self, spec: MethodSpec):
        self.spec = spec

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any]]:
        method = self.spec.build()
        for job in jobs:
            yield from ground_job(method, job, self.spec.name)

    def drain(self) -> list[dict[str, Any]]:
        return []

    def close(self) -> None:
        pass


class PoolBackend:
    """`workers` spawned processes, each with its own method, pulling whole videos."""

    def __init__(self, spec: MethodSpec, workers: int):
        if workers < 1:
            raise UserError(f"--workers must be at least 1, not {workers}")
        self.spec = spec
        self.workers = workers
        self._procs: list[Any] = []
        self._tasks: Any = None
        self._results: Any = None

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any]]:
        ctx = mp.get_context("spawn")
        tasks = self._tasks = ctx.Queue()
        self._results = ctx.Queue()
        n_procs = max(1, min(self.workers, len(jobs)))
        for job in jobs:
            tasks.put(job)
        for _ in range(n_procs):
            tasks.put(None)
        threads = max(1, (os.cpu_count() or 1) // n_procs)
        self._procs = [
            ctx.Process(
                target=_worker_main,
                args=(self.spec, tasks, self._results, threads),
                name=f"longground-worker-{i}",
            )
            for i in range(n_procs)
        ]
        for proc in self._procs:
            proc.start()
        remaining = count_queries(jobs)
        while remaining:
            kind, payload = self._next_message()
            if kind == "record":
                remaining -= 1
                yield payload
            elif kind == "user_error":
                raise UserError(payload)
            else:
                raise WorkerCrashed(f"a worker failed:\n{payload}")

    def _next_message(self) -> tuple[str, Any]:
        while True:
            try:
                return self._results.get(timeout=POLL_S)
            except queue.Empty:
                dead = [p for p in self._procs if p.exitcode not in (None, 0)]
                if dead:
                    raise WorkerCrashed(
                        f"worker {dead[0].name} died (exit code {dead[0].exitcode}); "
                        "finished queries are saved, run again to resume"
                    ) from None

    def drain(self) -> list[dict[str, Any]]:
        records = []
        while self._results is not None:
            try:
                kind, payload = self._results.get_nowait()
            except (queue.Empty, OSError, EOFError):
                break
            if kind == "record":
                records.append(payload)
        return records

    def close(self) -> None:
        if self._tasks is not None:
            # Jobs no worker will take must not keep this process waiting at exit.
            self._tasks.cancel_join_thread()
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self._procs:
            proc.join(timeout=10)
        self._procs = []


def _worker_main(spec: MethodSpec, tasks: Any, results: Any, threads: int) -> None:
    """One pool worker: build the method, then answer whole videos until the sentinel."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides how to stop
    # Share the cores between workers instead of every worker's BLAS taking all of them.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, str(threads))
    parent = mp.parent_process()
    try:
        method = spec.build()
        while (job := tasks.get()) is not None:
            for record in ground_job(method, job, spec.name):
                if parent is not None and not parent.is_alive():
                    results.cancel_join_thread()  # nobody reads; exit without waiting
                    return  # the driver was killed: stop after the query in hand
                results.put(("record", record))
    except UserError as exc:
        results.put(("user_error", str(exc)))
    except BaseException:
        results.put(("crash", traceback.format_exc()))
