"""A pool of Ray actors: each builds its worker once and runs whole jobs, one record per item,
streamed to the driver as each lands; losing an actor costs only its unanswered items.

What the actors do comes from a `WorkSpec`: `build()` makes the worker (a grounding method
with its encoder for `run`, an encoder for indexing), `records(worker, job)` yields one
record (a dict with the item's `"qid"`) per item of a job. The driver sends `start(job)`,
then one `next_record()` call per item; Ray runs an actor's calls in the order they were
sent, so the worker's per-job state is shared by the job's items. The driver waits on every
outstanding call with `ray.wait` and hands each record on as soon as it lands; when an actor
has answered its whole job it gets the next one (`dispatch.Dispatcher`).

Losing an actor (its process killed, its node gone) costs only the items it had not
answered: the driver keeps the records that landed and queues the rest as a smaller job for
the next free actor. Actors are not restarted; the pool goes on with the survivors and stops
with `NoWorkersLeft`, a one-line error, when none is left.

`address` is what `ray.init(address=...)` takes: "auto", "ray://HOST:10001" (Ray Client),
"HOST:6379", or "local" to start a private Ray on this machine. A `HOST:PORT` that nothing
answers on is refused at once (`ray.init` itself would retry for minutes). When Ray is
already initialised in this process the pool uses that connection and leaves it open (a
`runtime_env` then goes to the actors themselves).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from typing import Any, Protocol

from ..errors import UserError, require
from .dispatch import ANSWERS_LEFT, Dispatcher, NoWorkersLeft, WorkerLost

#: Seconds to wait for a TCP answer from `HOST:PORT` before `ray.init` is tried.
CONNECT_TIMEOUT_S = 5.0


class WorkSpec(Protocol):
    """What each actor builds once, and how it turns a job into records."""

    def build(self) -> Any: ...

    def records(self, worker: Any, job: Any) -> Iterator[dict[str, Any]]: ...


class BuildFailed(UserError):
    """The worker could not be built on this actor's node (a `WorkSpec.build` error that
    another node may not have, e.g. a cache folder it cannot write)."""


class _ActorLost(Exception):
    """An actor's call failed because the actor, its process or its node is gone."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def death_reason(exc: Exception) -> str:
    """Why an actor is gone, in a few words, from Ray's (long, multi-line) error.

    >>> death_reason(RuntimeError("The actor is dead because its node has died."))
    'its node died'
    """
    text = str(exc)
    if "node has died" in text or "node died" in text:
        return "its node died"
    if "ObjectLost" in type(exc).__name__:
        return "its answer was lost with its node"
    return "its process died"


class PoolActor:
    """Holds one built worker; answers one job's items one call at a time.

    A `UserError` while building is kept and raised by each call, where the driver sees it
    as the original error (an exception in an actor's constructor reaches it only as text).
    """

    def __init__(self, spec: WorkSpec):
        self._spec = spec
        self._records: Iterator[dict[str, Any]] = iter(())
        self._worker: Any = None
        self._build_error: UserError | None = None
        try:
            self._worker = spec.build()
        except UserError as exc:
            self._build_error = exc

    def start(self, job: Any) -> None:
        if self._build_error is None:
            self._records = self._spec.records(self._worker, job)

    def next_record(self) -> dict[str, Any]:
        if self._build_error is not None:
            raise self._build_error
        return next(self._records)


class RayPool:
    """See the module docstring.

    Args:
        spec: what each actor builds and runs.
        address: where the cluster is ("auto", "ray://host:10001", "host:port", "local").
        workers: number of actors; None: one per GPU of the cluster, else one per CPU.
        gpus_per_worker: GPUs each actor asks for; None: 1 when the cluster has GPUs, else 0.
        runtime_env: Ray runtime environment (working_dir, pip, env_vars) for the workers.
    """

    #: How the lines name a worker, its lost items, and what is left when none is left.
    kind, items, left = "Ray actor", "unanswered queries", ANSWERS_LEFT
    #: Raised for an unexpected exception in an actor (a bug, not bad input).
    crash_error: type[Exception] = RuntimeError

    def __init__(
        self,
        spec: WorkSpec,
        address: str = "auto",
        *,
        workers: int | None = None,
        gpus_per_worker: float | None = None,
        runtime_env: dict[str, Any] | None = None,
    ):
        self.spec = spec
        self.address = address
        self.workers = workers
        self.gpus_per_worker = gpus_per_worker
        self.runtime_env = runtime_env
        self._ray: Any = None
        self._owns_connection = False
        self._actors: dict[int, Any] = {}
        self._in_flight: dict[Any, int] = {}
        self._dispatcher = Dispatcher([])

    def results(self, jobs: list[Any]) -> Iterator[dict[str, Any] | WorkerLost]:
        """Every job's records, as they land, and a `WorkerLost` for each actor lost."""
        ray = self._connect()
        gpus = self._gpus_per_actor()
        n_actors = max(1, min(self._actor_count(gpus), len(jobs)))
        options: dict[str, Any] = {"num_cpus": 1, "num_gpus": gpus}
        if self.runtime_env and not self._owns_connection:
            options["runtime_env"] = self.runtime_env  # the connection was made without it
        actor_class = ray.remote(PoolActor).options(**options)
        self._actors = {i: actor_class.remote(self.spec) for i in range(n_actors)}
        self._dispatcher = dispatcher = Dispatcher(jobs)
        for index in list(self._actors):
            self._assign(index)
        while self._in_flight:
            [ref], _ = ray.wait(list(self._in_flight), num_returns=1)
            index = self._in_flight.pop(ref)
            try:
                record = self._get(ref)
            except _ActorLost as lost:
                yield from self._lose(index, lost.reason)
                continue
            if dispatcher.accept(index, record):
                yield record
            if not dispatcher.busy(index):
                self._assign(index)

    def _assign(self, index: int) -> None:
        """Give actor `index` the next job, one `next_record` call per item."""
        job = self._dispatcher.take(index)
        if job is None:
            return
        actor = self._actors[index]
        actor.start.remote(job)
        for _ in job.queries:
            self._in_flight[actor.next_record.remote()] = index

    def _lose(self, index: int, reason: str) -> Iterator[dict[str, Any] | WorkerLost]:
        """Actor `index` (or its node) is gone: keep what it finished, queue the rest again.

        Raises:
            NoWorkersLeft: it was the last actor and items are left.
        """
        ray = self._ray
        refs = [ref for ref, owner in self._in_flight.items() if owner == index]
        for ref in refs:
            del self._in_flight[ref]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0) if refs else ([], [])
        for ref in ready:  # records that landed before the actor died
            try:
                record = ray.get(ref)
            except Exception:  # lost with the actor; the item goes back to the queue
                continue
            if self._dispatcher.accept(index, record):
                yield record
        ray.kill(self._actors.pop(index))
        requeued = self._dispatcher.lose(index)
        if not self._actors and not self._dispatcher.finished:
            open_items = self._dispatcher.open_queries()
            raise NoWorkersLeft(self.kind, reason, open_items, self.left)
        yield WorkerLost(f"{self.kind} {index}", reason, len(requeued), len(self._actors),
                         self.items)  # fmt: skip
        for other in list(self._actors):
            if not self._dispatcher.busy(other):
                self._assign(other)

    def _connect(self) -> Any:
        ray = self._ray = require("ray", "ray")
        if ray.is_initialized():
            return ray
        check_reachable(self.address)
        options: dict[str, Any] = {
            "runtime_env": self.runtime_env,
            "logging_level": logging.WARNING,
        }
        try:
            if self.address == "local":
                ray.init(include_dashboard=False, **options)
            else:
                ray.init(address=self.address, **options)
        except (ConnectionError, ValueError) as exc:
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc)
            raise unreachable(self.address, first_line) from None
        self._owns_connection = True
        return ray

    def _gpus_per_actor(self) -> float:
        if self.gpus_per_worker is not None:
            return self.gpus_per_worker
        return 1.0 if self._ray.cluster_resources().get("GPU", 0) >= 1 else 0.0

    def _actor_count(self, gpus: float) -> int:
        if self.workers is not None:
            return self.workers
        resources = self._ray.cluster_resources()
        if gpus > 0:
            return max(1, int(resources.get("GPU", 0) // gpus))
        return max(1, int(resources.get("CPU", 1)))

    def _get(self, ref: Any) -> dict[str, Any]:
        ray = self._ray
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BuildFailed):
                raise _ActorLost(str(cause).splitlines()[0]) from None
            if isinstance(cause, UserError):
                raise UserError(str(cause).splitlines()[0]) from None
            raise self.crash_error(f"a Ray worker failed:\n{exc}") from None
        except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as exc:
            raise _ActorLost(death_reason(exc)) from None

    def drain(self) -> list[dict[str, Any]]:
        """Records that landed but were not yet handed on (after an interrupt)."""
        if not self._in_flight:
            return []
        ray = self._ray
        ready, _ = ray.wait(list(self._in_flight), num_returns=len(self._in_flight), timeout=0)
        records = []
        for ref in ready:
            try:
                record = ray.get(ref)
            except Exception:  # a failed call has nothing to save
                continue
            if self._dispatcher.accept(self._in_flight[ref], record):
                records.append(record)
        return records

    def close(self) -> None:
        """Stop the actors, and Ray too when this pool started it."""
        if self._ray is None:
            return
        for actor in self._actors.values():
            self._ray.kill(actor)
        self._actors, self._in_flight = {}, {}
        if self._owns_connection:
            self._ray.shutdown()
            self._owns_connection = False


def unreachable(address: str, why: str) -> UserError:
    """The one line for a Ray address nothing answers on."""
    return UserError(
        f"cannot reach a Ray cluster at {address!r} ({why}); start one with "
        "`ray start --head`, or use --ray local"
    )


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse a `HOST:PORT` or `ray://HOST:PORT` address (also as `$RAY_ADDRESS` behind
    "auto") that no TCP server answers on within `timeout_s` ("local", and "auto" without
    `$RAY_ADDRESS`, are left to Ray, which answers those at once).

    Raises:
        UserError: nothing answers there, or the address has no valid port.

    >>> check_reachable("auto")
    >>> try:
    ...     check_reachable("127.0.0.1:1")
    ... except UserError as exc:
    ...     print(str(exc).split(";")[0])
    cannot reach a Ray cluster at '127.0.0.1:1' (connection refused)
    """
    if address == "auto" and os.environ.get("RAY_ADDRESS", "").strip() not in ("", "auto"):
        address = os.environ["RAY_ADDRESS"].strip()  # what "auto" will join
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--ray {address!r}: give auto, local, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except ConnectionRefusedError:
        raise unreachable(address, "connection refused") from None
    except TimeoutError:
        raise unreachable(address, f"no answer within {timeout_s:g} s") from None
    except OSError as exc:
        raise unreachable(address, exc.strerror or type(exc).__name__) from None
