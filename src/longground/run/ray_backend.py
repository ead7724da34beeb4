"""Run jobs on a Ray cluster: one actor per method copy, results streamed to the driver.

Each actor builds the method (and so its encoder) once, on a GPU of its own when the cluster
has GPUs. A whole video goes to one actor, one call per query, so the method's per-video
state (the index) is shared by all of that video's queries. The actors, the streaming and
what a lost actor or node costs (only its unanswered queries, which go to the survivors) are
`longground.cluster.ray_pool.RayPool`, shared with Ray indexing (`longground index --ray`).

`address` is what `ray.init(address=...)` takes: "auto" (the cluster this machine is part
of, e.g. after `ray start --head`), "ray://HOST:10001" (Ray Client), "HOST:6379", or
"local" to start a private Ray on this machine for the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..cluster.ray_pool import RayPool
from .execute import ground_job
from .local import WorkerCrashed
from .method_spec import MethodSpec
from .scheduler import VideoJob


@dataclass(frozen=True)
class _Grounding:
    """The pool's work for `run`: build the method, answer a video's queries in order."""

    spec: MethodSpec

    def build(self) -> Any:
        return self.spec.build()

    def records(self, method: Any, job: VideoJob) -> Iterator[dict[str, Any]]:
        return ground_job(method, job, self.spec.name)


class RayBackend(RayPool):
    """See the module docstring; the arguments are `RayPool`'s, with the method's spec."""

    crash_error = WorkerCrashed

    def __init__(self, spec: MethodSpec, address: str = "auto", **options: Any):
        super().__init__(_Grounding(spec), address, **options)
