"""Running a producer one step ahead in a thread, so decoding overlaps encoding."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_DONE = object()


def prefetch(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """Yield `items` while a background thread already produces the next `depth` of them.

    Worth it when producing (decoding, which FFmpeg does without the GIL) and consuming
    (a model forward pass) each leave a core idle. An exception in the producer is raised
    here; when the consumer stops early, the producer stops after its current item.

    >>> list(prefetch(iter(range(5))))
    [0, 1, 2, 3, 4]
    """
    slots: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if not _put(slots, (item, None), stop):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            _put(slots, (_DONE, exc), stop)
            return
        _put(slots, (_DONE, None), stop)

    worker = threading.Thread(target=produce, name="longground-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item, error = slots.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        worker.join()


def _put(slots: queue.Queue, entry, stop: threading.Event) -> bool:
    """Queue `entry` unless the consumer has gone; False when it has."""
    while not stop.is_set():
        try:
            slots.put(entry, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False
