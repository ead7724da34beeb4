"""Spreading jobs over workers: which worker holds which job and what a lost one costs
(`dispatch`), and a pool of Ray actors built on it (`ray_pool`), shared by `run --ray` and
`index --ray`."""

from .dispatch import Dispatcher, NoWorkersLeft, WorkerLost
from .ray_pool import BuildFailed, RayPool, WorkSpec

__all__ = ["BuildFailed", "Dispatcher", "NoWorkersLeft", "RayPool", "WorkSpec", "WorkerLost"]
