"""Which worker holds which video, and what goes back to the queue when a worker is lost:
`longground.cluster.dispatch`, shared with Ray indexing, re-exported for the backends."""

from ..cluster.dispatch import Dispatcher, NoWorkersLeft, WorkerLost

__all__ = ["Dispatcher", "NoWorkersLeft", "WorkerLost"]
