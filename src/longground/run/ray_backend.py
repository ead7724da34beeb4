"""Run jobs on a Ray cluster: one actor per method copy, results streamed to the driver.

Each actor builds the method (and so its encoder) once, on a GPU of its own when the cluster
has GPUs. A whole video goes to one actor: the driver sends `start(job)`, then one
`next_record()` call per query; Ray runs an actor's calls in the order they were sent, so the
method's per-video state (the index) is shared by all of that video's queries. The driver
waits on every outstanding call with `ray.wait` and hands each record to the single writer as
soon as it lands; when an actor has answered its whole video it gets the next one.

Losing an actor (its process killed, its node gone) costs only the queries it had not
answered: the driver sees the failed calls, keeps the answers that landed, and queues the
rest as a smaller job for the next free actor (`dispatch.Dispatcher`). Actors are not
restarted (a restarted actor would have lost its video's state anyway); the run goes on with
the survivors and stops with `NoWorkersLeft`, a one-line error, when none is left.

`address` is what `ray.init(address=...)` takes: "auto" (the cluster this machine is part
of, e.g. after `ray start --head`), "ray://HOST:10001" (Ray Client), "HOST:6379", or
"local" to start a private Ray on this machine for the run. When Ray is already initialised
in this process the backend uses that connection and leaves it open (a `runtime_env` then
goes to the actors themselves).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from ..errors import UserError, require
from .dispatch import Dispatcher, NoWorkersLeft, WorkerLost
from .execute import ground_job
from .local import WorkerCrashed
from .method_spec import MethodSpec
from .scheduler import VideoJob


class _ActorLost(Exception):
    """An actor's call failed because the actor, its process or its node is gone."""

    def __init__(self, cause: Exception):
        super().__init__(str(cause))
        self.cause = cause


def _death_reason(exc: Exception) -> str:
    """Why an actor is gone, in a few words, from Ray's (long, multi-line) error.

    >>> _death_reason(RuntimeError("The actor is dead because its node has died."))
    'its node died'
    """
    text = str(exc)
    if "node has died" in text or "node died" in text:
        return "its node died"
    if "ObjectLost" in type(exc).__name__:
        return "its answer was lost with its node"
    return "its process died"


class MethodActor:
    """Holds one built method; answers one video's queries one call at a time.

    A `UserError` while building is kept and raised by each call, where the driver sees it
    as the original error (an exception in an actor's constructor reaches it only as text).
    """

    def __init__(self, spec: MethodSpec):
        self._spec = spec
        self._records: Iterator[dict[str, Any]] = iter(())
        self._method: Any = None
        self._build_error: UserError | None = None
        try:
            self._method = spec.build()
        except UserError as exc:
            self._build_error = exc

    def start(self, job: VideoJob) -> None:
        if self._build_error is None:
            self._records = ground_job(self._method, job, self._spec.name)

    def next_record(self) -> dict[str, Any]:
        if self._build_error is not None:
            raise self._build_error
        return next(self._records)


class RayBackend:
    """See the module docstring.

    Args:
        spec: the method to build in each actor.
        address: where the cluster is ("auto", "ray://host:10001", "host:port", "local").
        workers: number of actors; None: one per GPU of the cluster, else one per CPU.
        gpus_per_worker: GPUs each actor asks for; None: 1 when the cluster has GPUs, else 0.
        runtime_env: Ray runtime environment (working_dir, pip, env_vars) for the workers.
    """

    def __init__(
        self,
        spec: MethodSpec,
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

    def results(self, jobs: list[VideoJob]) -> Iterator[dict[str, Any] | WorkerLost]:
        ray = self._connect()
        gpus = self._gpus_per_actor()
        n_actors = max(1, min(self._actor_count(gpus), len(jobs)))
        options: dict[str, Any] = {"num_cpus": 1, "num_gpus": gpus}
        if self.runtime_env and not self._owns_connection:
            options["runtime_env"] = self.runtime_env  # the connection was made without it
        actor_class = ray.remote(MethodActor).options(**options)
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
                yield from self._lose(index, lost.cause)
                continue
            if dispatcher.accept(index, record):
                yield record
            if not dispatcher.busy(index):
                self._assign(index)

    def _assign(self, index: int) -> None:
        """Give actor `index` the next video, one `next_record` call per query."""
        job = self._dispatcher.take(index)
        if job is None:
            return
        actor = self._actors[index]
        actor.start.remote(job)
        for _ in job.queries:
            self._in_flight[actor.next_record.remote()] = index

    def _lose(self, index: int, exc: Exception) -> Iterator[dict[str, Any] | WorkerLost]:
        """Actor `index` (or its node) died: keep what it finished, queue the rest again.

        Raises:
            NoWorkersLeft: it was the last actor and queries are left.
        """
        ray = self._ray
        refs = [ref for ref, owner in self._in_flight.items() if owner == index]
        for ref in refs:
            del self._in_flight[ref]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0) if refs else ([], [])
        for ref in ready:  # answers that landed before the actor died
            try:
                record = ray.get(ref)
            except Exception:  # lost with the actor; the query goes back to the queue
                continue
            if self._dispatcher.accept(index, record):
                yield record
        ray.kill(self._actors.pop(index))
        requeued = self._dispatcher.lose(index)
        reason = _death_reason(exc)
        if not self._actors and not self._dispatcher.finished:
            raise NoWorkersLeft("Ray actor", reason, self._dispatcher.open_queries())
        yield WorkerLost(f"Ray actor {index}", reason, len(requeued), len(self._actors))
        for other in list(self._actors):
            if not self._dispatcher.busy(other):
                self._assign(other)

    def _connect(self) -> Any:
        ray = self._ray = require("ray", "ray")
        if ray.is_initialized():
            return ray
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
            raise UserError(
                f"cannot reach a Ray cluster at {self.address!r} ({first_line}); start one with "
                "`ray start --head`, or use --ray local"
            ) from None
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
            if isinstance(cause, UserError):
                raise UserError(str(cause).splitlines()[0]) from None
            raise WorkerCrashed(f"a Ray worker failed:\n{exc}") from None
        except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as exc:
            raise _ActorLost(exc) from None

    def drain(self) -> list[dict[str, Any]]:
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
        if self._ray is None:
            return
        for actor in self._actors.values():
            self._ray.kill(actor)
        self._actors, self._in_flight = {}, {}
        if self._owns_connection:
            self._ray.shutdown()
            self._owns_connection = False
