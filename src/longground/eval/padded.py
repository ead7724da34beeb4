"""Span tables and padded batches: many queries' intervals in one array, so metrics run
across queries at once.

`SpanTable` holds every query's spans back to back in one flat `(N, 2)` array. `pad` cuts out
a batch of queries as a `(Q, K, 2)` array padded with `[0, 0]` plus a `(Q, K)` validity mask.
A `[0, 0]` pad overlaps nothing, so its tIoU with any span is 0 and padding never needs
masking inside tIoU. `query_chunks` groups queries of similar size so padding stays small
and memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

# Bound on Q * P * G cells per chunk: 2**17 float64 cells is 1 MB per (Q, P, G) array, small
# enough to stay in cache while the metrics make several passes over it.
MAX_CELLS = 2**17
# Added to every union: 0 / TINY = 0 where both spans are empty, and it vanishes in rounding
# from any real length, so tIoU stays bit-identical to overlap / (len a + len b - overlap).
TINY = np.finfo(np.float64).tiny


@dataclass(frozen=True)
class Padded:
    """Intervals of Q queries, padded to a common width K.

    Args:
        spans: `(Q, K, 2)` float64 `[start_s, end_s]`; padding rows are `[0, 0]`.
        mask: `(Q, K)` bool, True where a row is a real interval.
    """

    spans: np.ndarray
    mask: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        """`(Q,)` number of real intervals per query."""
        return self.mask.sum(axis=1)


@dataclass(frozen=True)
class SpanTable:
    """Every query's spans, back to back.

    Args:
        flat: `(N + 1, 2)` float64 spans in seconds, query after query; the last row is the
            `[0, 0]` pad.
        starts: `(Q,)` int row of `flat` where each query's spans begin.
        lengths: `(Q,)` int number of spans of each query.

    >>> table = SpanTable.from_arrays([np.array([[0.0, 1.0], [2.0, 3.0]]), np.zeros((0, 2))])
    >>> table.lengths.tolist(), table.query_of_entry().tolist(), table.index_in_query().tolist()
    ([2, 0], [0, 0], [0, 1])
    """

    flat: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray

    @classmethod
    def from_arrays(cls, span_arrays: Sequence[np.ndarray]) -> SpanTable:
        """From Q arrays of shape `(K_q, 2)`."""
        lengths = np.fromiter((len(a) for a in span_arrays), np.int64, count=len(span_arrays))
        flat = np.concatenate([*span_arrays, np.zeros((1, 2))]).astype(np.float64, copy=False)
        return cls(flat.reshape(-1, 2), np.cumsum(lengths) - lengths, lengths)

    def truncated(self, k: int) -> SpanTable:
        """Only the first `k` spans of each query."""
        return SpanTable(self.flat, self.starts, np.minimum(self.lengths, k))

    def query_of_entry(self) -> np.ndarray:
        """`(E,)` query index of each span, queries in order (E = `lengths.sum()`)."""
        return np.repeat(np.arange(len(self.lengths)), self.lengths)

    def index_in_query(self) -> np.ndarray:
        """`(E,)` position of each span within its query, in the order of `query_of_entry`."""
        offsets = np.cumsum(self.lengths) - self.lengths
        return np.arange(int(self.lengths.sum())) - np.repeat(offsets, self.lengths)

    def entries(self) -> np.ndarray:
        """`(E, 2)` the spans themselves, in the order of `query_of_entry`."""
        n_entries = int(self.lengths.sum())
        if n_entries == len(self.flat) - 1:  # nothing truncated: the entries are `flat`
            return self.flat[:n_entries]
        return self.flat[np.repeat(self.starts, self.lengths) + self.index_in_query()]

    def pad(self, idx: np.ndarray, workspace: Workspace | None = None, key: str = "") -> Padded:
        """The queries `idx` as a padded batch of width `max(lengths[idx])`.

        With a `workspace`, the spans live in its array named `key` until the next call.
        """
        lengths = self.lengths[idx]
        width = int(lengths.max()) if len(idx) else 0
        columns = np.arange(width)[None, :]
        mask = columns < lengths[:, None]
        rows = np.where(mask, self.starts[idx][:, None] + columns, len(self.flat) - 1)
        out = None if workspace is None else workspace.array(key, (*rows.shape, 2))
        return Padded(np.take(self.flat, rows, axis=0, out=out, mode="clip"), mask)


def pad_spans(span_arrays: Sequence[np.ndarray]) -> Padded:
    """Stack per-query `(K_q, 2)` span arrays into one padded batch.

    >>> p = pad_spans([np.array([[0.0, 1.0], [2.0, 3.0]]), np.zeros((0, 2))])
    >>> p.spans.shape, p.mask.tolist()
    ((2, 2, 2), [[True, True], [False, False]])
    """
    return SpanTable.from_arrays(span_arrays).pad(np.arange(len(span_arrays)))


class Workspace:
    """Scratch arrays reused from chunk to chunk.

    Fresh multi-megabyte arrays cost a page fault per 4 KB on first touch, which for tIoU
    takes longer than the arithmetic; reusing the same memory avoids that.

    >>> ws = Workspace()
    >>> ws.array("x", (2, 3)).shape, ws.array("x", (1, 2)).base is ws.array("x", (4,)).base
    ((2, 3), True)
    """

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def array(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """An uninitialised float64 array of `shape`, sharing memory with earlier ones of
        the same `name` (so only the latest of them is valid)."""
        size = int(np.prod(shape))
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(max(size, 1))
        return buffer[:size].reshape(shape)


def batched_tiou(a: Padded, b: Padded, workspace: Workspace | None = None) -> np.ndarray:
    """tIoU between every interval of `a` and every interval of `b`, query by query.

    Same formula as `longground.moments.tiou_matrix`: overlap / (len a + len b - overlap),
    0 where that union is 0; 0 wherever either side is padding.

    Args:
        a: batch of Q queries with width N.
        b: batch of the same Q queries with width M.
        workspace: where to compute; the result then lives there until the next call.

    Returns:
        `(Q, N, M)` float64 array in [0, 1].

    >>> a = pad_spans([np.array([[0.0, 10.0]])])
    >>> b = pad_spans([np.array([[5.0, 15.0], [20.0, 30.0]])])
    >>> batched_tiou(a, b).round(3).tolist()
    [[[0.333, 0.0]]]
    """
    workspace = workspace or Workspace()
    shape = (a.spans.shape[0], a.spans.shape[1], b.spans.shape[1])
    inter, scratch = workspace.array("tiou", shape), workspace.array("tiou_scratch", shape)
    a_start, a_end = a.spans[:, :, None, 0], a.spans[:, :, None, 1]
    b_start, b_end = b.spans[:, None, :, 0], b.spans[:, None, :, 1]
    np.minimum(a_end, b_end, out=inter)
    inter -= np.maximum(a_start, b_start, out=scratch)
    np.maximum(inter, 0.0, out=inter)
    # TINY vanishes in any length above 1e-291 s, and keeps a zero union from dividing by 0.
    union = np.add((a_end - a_start) + TINY, b_end - b_start, out=scratch)
    union -= inter
    return np.divide(inter, union, out=inter)


def query_chunks(
    n_pred: np.ndarray, n_gt: np.ndarray, max_cells: int | None = None
) -> Iterator[np.ndarray]:
    """Split query indices into chunks whose padded `(q, P, G)` arrays stay under `max_cells`.

    Queries are sorted by prediction count, then GT count, so each chunk pads little; each
    chunk's indices come back in increasing order.

    Args:
        n_pred: `(Q,)` predicted intervals per query.
        n_gt: `(Q,)` GT intervals per query.
        max_cells: largest `q * P * G` allowed in one chunk (a single query may exceed it);
            default `MAX_CELLS`.

    Yields:
        `(q,)` int arrays of query indices; together they cover every query once.

    >>> [c.tolist() for c in query_chunks(np.array([3, 1, 2]), np.array([1, 1, 1]), 4)]
    [[1, 2], [0]]
    """
    max_cells = MAX_CELLS if max_cells is None else max_cells
    order = np.lexsort((n_gt, n_pred))
    p_sorted = np.maximum(n_pred[order], 1).astype(np.int64)
    g_sorted = np.maximum(n_gt[order], 1).astype(np.int64)
    start, total = 0, len(order)
    while start < total:
        # Every chunk of size s costs at least s * P[start] * G[start] cells: bounds the window.
        window = max(1, max_cells // int(p_sorted[start] * g_sorted[start]))
        stop = min(total, start + window)
        sizes = np.arange(1, stop - start + 1)
        cells = sizes * p_sorted[start:stop] * np.maximum.accumulate(g_sorted[start:stop])
        size = max(1, int(np.searchsorted(cells, max_cells, side="right")))
        yield np.sort(order[start : start + size])
        start += size
