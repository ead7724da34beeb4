"""Running a producer ahead in a thread, so decoding overlaps encoding."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_DONE = object()


def prefetch(
    items: Iterable[T], depth: int = 2, weigh: Callable[[T], int] | None = None
) -> Iterator[T]:
    """Yield `items` while a background thread already produces the next ones.

    Worth it when producing (decoding, which FFmpeg does without the GIL) and consuming
    (a model forward pass) each leave a core idle. An exception in the producer is raised
    here; when the consumer stops early, the producer stops after its current item.

    Args:
        items: what the thread produces.
        depth: how far ahead the thread may run: the number of items waiting, or with
            `weigh` their total weight (an item heavier than that still passes when nothing
            else waits).
        weigh: an item's weight, e.g. the frames it holds, so that light items (few frames
            to encode) let the producer run further ahead in the same memory.

    >>> list(prefetch(iter(range(5))))
    [0, 1, 2, 3, 4]
    >>> list(prefetch(iter([[1, 2, 3], [4], []]), depth=2, weigh=len))
    [[1, 2, 3], [4], []]
    """
    slots = _Slots(depth)
    weight = weigh or (lambda _: 1)

    def produce() -> None:
        try:
            for item in items:
                if not slots.put((item, None), weight(item)):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            slots.put((_DONE, exc), 0)
            return
        slots.put((_DONE, None), 0)

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
        slots.close()
        worker.join()


class _Slots:
    """A queue bounded by the total weight of its entries, which the consumer can close."""

    def __init__(self, capacity: int):
        self._capacity = capacity
        self._entries: deque = deque()
        self._load = 0
        self._closed = False
        self._changed = threading.Condition()

    def put(self, entry, weight: int) -> bool:
        """Queue `entry` once there is room (or nothing waits); False when closed first."""
        with self._changed:
            while self._entries and self._load + weight > self._capacity and not self._closed:
                self._changed.wait()
            if self._closed:
                return False
            self._entries.append((entry, weight))
            self._load += weight
            self._changed.notify_all()
            return True

    def get(self):
        with self._changed:
            while not self._entries:
                self._changed.wait()
            entry, weight = self._entries.popleft()
            self._load -= weight
            self._changed.notify_all()
            return entry

    def close(self) -> None:
        """The consumer has gone: a waiting or later `put` returns False."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
