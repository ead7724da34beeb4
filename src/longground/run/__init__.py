"""Resumable batch runs of a grounding method over a benchmark, locally or on Ray.

`run_benchmark(samples, MethodSpec(name, config), out, backend=make_backend(...))` answers every
query not yet in `out`, appending one canonical prediction line per finished query. The
command line is `longground run` (`longground.cli.run_cmd`); see `docs/running.md`.
"""

from .dispatch import Dispatcher, NoWorkersLeft, WorkerLost
from .journal import Journal, meta_path, scan
from .local import Backend, PoolBackend, SerialBackend, WorkerCrashed
from .method_spec import MethodSpec, resolve_factory
from .metrics import RunningMetrics
from .runner import RunInterrupted, RunSummary, make_backend, run_benchmark
from .scheduler import Query, VideoJob, plan_jobs, resolve_video

__all__ = [
    "Backend",
    "Dispatcher",
    "Journal",
    "MethodSpec",
    "NoWorkersLeft",
    "PoolBackend",
    "Query",
    "RunInterrupted",
    "RunSummary",
    "RunningMetrics",
    "SerialBackend",
    "VideoJob",
    "WorkerCrashed",
    "WorkerLost",
    "make_backend",
    "meta_path",
    "plan_jobs",
    "resolve_factory",
    "resolve_video",
    "run_benchmark",
    "scan",
]
