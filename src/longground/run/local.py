"""Run jobs on this machine: in the current process, or in a pool of worker processes.

A backend turns a list of `VideoJob`s into a stream of records, yielded one per finished
query as soon as it is finished, so the single writer in the driver can save it at once.
After an interrupt, `drain()` hands over records that arrived but were not yet yielded, and
`close()` stops the workers.

The pool uses the "spawn" start method: each worker is a fresh interpreter that builds the
method once, then answers the whole videos the driver sends it until none are left. Besides
records, the stream carries a `WorkerLost` for each worker that died mid-run (its unanswered
queries are redone by the others).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from ..errors import UserError
from .dispatch import Dispatcher, NoWorkersLeft, WorkerLost
from .execute import ground_job
from .method_spec import MethodSpec
from .scheduler import VideoJob


class Backend(Protocol):
    """Where the queries run. See the module docstring."""

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any] | WorkerLost]: ...

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
    """`workers` spawned processes, each with its own method, given whole videos one at a time.

    Each worker has a pipe of its own in each direction, so a worker killed in the middle of a
    message (SIGKILL, the out-of-memory killer) harms only its own channel: the driver sees the
    pipe close or the process end, keeps the answers that arrived, and queues the rest of that
    worker's video for the survivors (`dispatch.Dispatcher`).
    """

    def __init__(self, spec: MethodSpec, workers: int):
        if workers < 1:
            raise UserError(f"--workers must be at least 1, not {workers}")
        self.spec = spec
        self.workers = workers
        self._workers: dict[int, _Worker] = {}
        self._dispatcher = Dispatcher([])

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any] | WorkerLost]:
        n_procs = max(1, min(self.workers, len(jobs)))
        threads = max(1, (os.cpu_count() or 1) // n_procs)
        self._dispatcher = Dispatcher(jobs)
        self._workers = {i: _Worker.start(i, self.spec, threads) for i in range(n_procs)}
        for index in list(self._workers):
            self._assign(index)
        while not self._dispatcher.finished:
            ready = wait([w.results for w in self._workers.values()])
            for worker in [w for w in list(self._workers.values()) if w.results in ready]:
                yield from self._read(worker)

    def _assign(self, index: int) -> None:
        """Send worker `index` its next video; with none left it waits (a video may come back)."""
        job = self._dispatcher.take(index)
        if job is None:
            return
        try:
            self._workers[index].tasks.send(job)
        except OSError:  # it died; reading its pipe will tell
            pass

    def _read(self, worker: _Worker) -> Iterator[dict[str, Any] | WorkerLost]:
        try:
            kind, payload = worker.results.recv()
        except (EOFError, OSError):
            yield from self._lose(worker)
            return
        if kind == "user_error":
            raise UserError(payload)
        if kind == "crash":
            raise WorkerCrashed(f"a worker failed:\n{payload}")
        if self._dispatcher.accept(worker.index, payload):
            yield payload
        if not self._dispatcher.busy(worker.index):
            self._assign(worker.index)

    def _lose(self, worker: _Worker) -> Iterator[WorkerLost]:
        """`worker`'s pipe closed, so it died: queue the queries it held again."""
        del self._workers[worker.index]
        worker.process.join(timeout=10)
        worker.tasks.close()
        worker.results.close()
        requeued = self._dispatcher.lose(worker.index)
        reason = _exit_reason(worker.process.exitcode)
        if not self._workers and not self._dispatcher.finished:
            raise NoWorkersLeft("worker process", reason, self._dispatcher.open_queries())
        if not requeued:
            return  # it held no query: nothing is lost
        for index in list(self._workers):
            if not self._dispatcher.busy(index):
                self._assign(index)
        yield WorkerLost(f"worker {worker.index}", reason, len(requeued), len(self._workers))

    def drain(self) -> list[dict[str, Any]]:
        records = []
        for worker in list(self._workers.values()):
            while _poll(worker.results):
                try:
                    kind, payload = worker.results.recv()
                except (EOFError, OSError):
                    break
                if kind == "record" and self._dispatcher.accept(worker.index, payload):
                    records.append(payload)
        return records

    def close(self) -> None:
        for worker in self._workers.values():
            try:
                worker.tasks.send(None)  # the stop sign: an idle worker exits at once
            except OSError:
                pass
        for worker in self._workers.values():
            worker.process.join(timeout=0 if self._dispatcher.busy(worker.index) else 5)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=10)
            worker.tasks.close()
            worker.results.close()
        self._workers = {}


@dataclass(frozen=True)
class _Worker:
    """One pool process and the driver's ends of its two pipes."""

    index: int
    process: Any
    tasks: Connection
    results: Connection

    @classmethod
    def start(cls, index: int, spec: MethodSpec, threads: int) -> _Worker:
        ctx = mp.get_context("spawn")
        task_out, task_in = ctx.Pipe(duplex=False)
        result_out, result_in = ctx.Pipe(duplex=False)
        process = ctx.Process(
            target=_worker_main,
            args=(spec, task_out, result_in, threads),
            name=f"longground-worker-{index}",
        )
        process.start()
        task_out.close()  # the worker's ends: closed here, so its death closes the pipes
        result_in.close()
        return cls(index, process, task_in, result_out)


def _poll(connection: Connection) -> bool:
    try:
        return connection.poll()
    except (EOFError, OSError):
        return False


def _exit_reason(exitcode: int | None) -> str:
    """How a worker process ended, in words.

    >>> _exit_reason(-9), _exit_reason(1)
    ('killed by signal 9', 'exit code 1')
    """
    if exitcode is not None and exitcode < 0:
        return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _worker_main(spec: MethodSpec, tasks: Connection, results: Connection, threads: int) -> None:
    """One pool worker: build the method, then answer the videos it is sent until told to stop.

    It stops quietly when the driver is gone (its pipes break).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides how to stop
    # Share the cores between workers instead of every worker's BLAS taking all of them.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(name, str(threads))
    try:
        method = spec.build()
        while (job := tasks.recv()) is not None:
            for record in ground_job(method, job, spec.name):
                results.send(("record", record))
    except (EOFError, BrokenPipeError):
        return  # the driver was killed: stop after the query in hand
    except UserError as exc:
        results.send(("user_error", str(exc)))
    except BaseException:
        results.send(("crash", traceback.format_exc()))
