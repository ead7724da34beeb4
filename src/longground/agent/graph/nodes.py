"""The two-level temporal graph: event nodes (coarse) and action nodes inside kept events.

`Nodes` is one level: parallel arrays over time-ordered segments, plus the Eq. 15 edge weights
between them. Building a level from segment boundaries is pure array work; decoding and flow
happen elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .edges import edge_weights

#: Columns of `Nodes.moves` and `ActionSplit.moves`: the camera's pan (fraction of the frame
#: width) and zoom (relative scale change), the approach of what moves towards the frame's
#: centre line and the RMS flow (fractions of the frame width; `flow.field_stats`), and the
#: move of what differs from the event's backdrop (fraction of the frame width, positive to
#: the right; `flow.centroid_track`), all per second.
MOVE_COLUMNS = ("pan_per_s", "zoom_per_s", "approach_per_s", "flow_per_s", "track_per_s")


def unknown_moves(k: int) -> np.ndarray:
    """`(k, 5)` NaN: moves not measured."""
    return np.full((k, len(MOVE_COLUMNS)), np.nan)


@dataclass(frozen=True, eq=False)
class Nodes:
    """One level of the graph.

    Attributes:
        spans_s: `(K, 2)` float64 `[start_s, end_s]`, in time order.
        frames: `(K, 2)` int64 `[start, stop)` ranges of timeline samples inside each span
            (at least one sample each).
        z: `(K, D)` float32 L2-normalised mean embedding of each node's samples.
        parent: `(K,)` int64 index of the enclosing event node (-1 on the event level).
        motion: `(K,)` float64 mean flow magnitude (fraction of frame width per sample
            step); NaN where unknown.
        weights: `(K, K)` float64 Eq. 15 edge weights.
        drift: `(K,)` float64 mean horizontal flow (same units, positive to the right); NaN
            where unknown.
        moves: `(K, 5)` float64 camera and object moves per second, columns `MOVE_COLUMNS`
            (see `flow.field_stats`); NaN where unknown.
    """

    spans_s: np.ndarray
    frames: np.ndarray
    z: np.ndarray
    parent: np.ndarray
    motion: np.ndarray
    weights: np.ndarray = field(repr=False)
    drift: np.ndarray | None = None
    moves: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.drift is None:
            object.__setattr__(self, "drift", np.full(len(self.spans_s), np.nan))
        if self.moves is None:
            object.__setattr__(self, "moves", unknown_moves(len(self.spans_s)))

    def __len__(self) -> int:
        return len(self.spans_s)

    def to_records(self) -> list[dict]:
        """Plain dicts (for traces): index, start_s, end_s, parent, motion, drift and the
        `MOVE_COLUMNS`."""
        known = lambda x: None if np.isnan(x) else float(x)  # noqa: E731
        return [
            {
                "index": i,
                "start_s": float(s),
                "end_s": float(e),
                "parent": int(p),
                "motion": known(m),
                "drift": known(d),
                **{name: known(x) for name, x in zip(MOVE_COLUMNS, mv, strict=True)},
            }
            for i, ((s, e), p, m, d, mv) in enumerate(
                zip(self.spans_s, self.parent, self.motion, self.drift, self.moves, strict=True)
            )
        ]


def frames_in_spans(spans_s: np.ndarray, times_s: np.ndarray) -> np.ndarray:
    """Timeline samples inside each span: `[start, stop)` with `start <= t < end`.

    A span holding no sample gets the one nearest its middle, so every node has a feature.

    Args:
        spans_s: `(K, 2)` spans in seconds.
        times_s: `(T,)` ascending sample times, T >= 1.

    Returns:
        `(K, 2)` int64 ranges.

    >>> frames_in_spans(np.array([[0.0, 2.5], [2.5, 2.6]]), np.arange(5.0)).tolist()
    [[0, 3], [3, 4]]
    """
    t = np.asarray(times_s, dtype=np.float64)
    spans = np.asarray(spans_s, dtype=np.float64).reshape(-1, 2)
    start = np.searchsorted(t, spans[:, 0], side="left")
    stop = np.searchsorted(t, spans[:, 1], side="left")
    empty = stop <= start
    if empty.any():
        mid = spans[empty].mean(axis=1)
        nearest = np.clip(np.searchsorted(t, mid), 1, len(t) - 1)
        nearest -= (mid - t[nearest - 1]) < (t[nearest] - mid)
        nearest = np.clip(nearest, 0, len(t) - 1)
        start[empty], stop[empty] = nearest, nearest + 1
    return np.stack([start, stop], axis=1).astype(np.int64)


def mean_embeddings(embedding: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """L2-normalised mean of `embedding` over each `[start, stop)` range: `(K, D)` float32.

    >>> mean_embeddings(np.array([[1.0, 0], [0, 1], [0, 1]]), np.array([[0, 2], [1, 3]])).round(3)
    array([[0.707, 0.707],
           [0.   , 1.   ]], dtype=float32)
    """
    emb = np.asarray(embedding)
    f = np.asarray(frames, dtype=np.int64).reshape(-1, 2)
    means = np.zeros((len(f), emb.shape[1]))
    for i, (start, stop) in enumerate(f):  # per range: no (T, D) float64 cumulative sum
        if stop > start:  # (3 copies of a 70-minute appearance timeline were 130 MB)
            means[i] = emb[start:stop].mean(axis=0, dtype=np.float64)
    norms = np.linalg.norm(means, axis=1, keepdims=True)
    return (means / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def make_nodes(
    spans_s: np.ndarray,
    times_s: np.ndarray,
    embedding: np.ndarray,
    sigma: float,
    k: int,
    parent: np.ndarray | None = None,
    motion: np.ndarray | None = None,
    drift: np.ndarray | None = None,
    moves: np.ndarray | None = None,
) -> Nodes:
    """A graph level from its spans: sample ranges, mean embeddings and Eq. 15 edges.

    Args:
        spans_s: `(K, 2)` time-ordered spans in seconds.
        times_s: `(T,)` timeline sample times.
        embedding: `(T, D)` timeline embeddings (the encoder's "embedding" feature).
        sigma: temporal-decay scale of the edges.
        k: largest hop distance with an edge.
        parent: `(K,)` enclosing event per node, default -1.
        motion: `(K,)` mean flow magnitude per node, default NaN.
        drift: `(K,)` mean horizontal flow per node, default NaN.
        moves: `(K, 5)` camera and object moves per node (`MOVE_COLUMNS`), default NaN.

    Returns:
        `Nodes`.

    >>> n = make_nodes(np.array([[0.0, 2], [2, 4]]), np.arange(4.0), np.eye(4)[:, :2] + 1, 2.0, 1)
    >>> n.frames.tolist(), n.weights.shape
    ([[0, 2], [2, 4]], (2, 2))
    """
    spans = np.asarray(spans_s, dtype=np.float64).reshape(-1, 2)
    frames = frames_in_spans(spans, times_s)
    z = mean_embeddings(embedding, frames)
    k_nodes = len(spans)
    return Nodes(
        spans_s=spans,
        frames=frames,
        z=z,
        parent=np.full(k_nodes, -1, np.int64) if parent is None else np.asarray(parent, np.int64),
        motion=np.full(k_nodes, np.nan) if motion is None else np.asarray(motion, np.float64),
        weights=edge_weights(z, sigma, k) if k_nodes else np.zeros((0, 0)),
        drift=None if drift is None else np.asarray(drift, np.float64),
        moves=None
        if moves is None
        else np.asarray(moves, np.float64).reshape(k_nodes, len(MOVE_COLUMNS)),
    )


@dataclass(frozen=True, eq=False)
class ActionSplit:
    """How one event divides into action nodes: cut times and the motion of each piece.

    Attributes:
        cuts_s: `(C,)` ascending cut times strictly inside the event.
        motion: `(C + 1,)` mean flow magnitude of each piece.
        drift: `(C + 1,)` mean horizontal flow of each piece (positive: to the right).
        moves: `(C + 1, 5)` camera and object moves of each piece (`MOVE_COLUMNS`).
    """

    cuts_s: np.ndarray
    motion: np.ndarray
    drift: np.ndarray | None = None
    moves: np.ndarray | None = None

    def spans(self, start_s: float, end_s: float) -> np.ndarray:
        """The pieces as `(C + 1, 2)` spans of the event `[start_s, end_s]`.

        >>> ActionSplit(np.array([4.0]), np.array([0.1, 0.2])).spans(0.0, 10.0).tolist()
        [[0.0, 4.0], [4.0, 10.0]]
        """
        edges = np.r_[start_s, self.cuts_s, end_s]
        return np.stack([edges[:-1], edges[1:]], axis=1)


def action_level(
    events: Nodes,
    kept: np.ndarray,
    splits: dict[int, ActionSplit],
    times_s: np.ndarray,
    embedding: np.ndarray,
    sigma: float,
    k: int,
) -> Nodes:
    """The action level: the pieces of every kept event, in time order, linked by Eq. 15.

    Args:
        events: the event level.
        kept: indices of the events the filter kept.
        splits: each kept event's `ActionSplit`.
        times_s, embedding: the timeline (see `make_nodes`).
        sigma, k: edge settings.

    Returns:
        `Nodes` whose `parent` names the event of each action.
    """
    spans, parents, motion = [np.zeros((0, 2))], [np.zeros(0, np.int64)], [np.zeros(0)]
    drift, moves = [np.zeros(0)], [unknown_moves(0)]
    for e in sorted(int(i) for i in kept):
        split = splits[e]
        pieces = split.spans(*events.spans_s[e])
        spans.append(pieces)
        parents.append(np.full(len(pieces), e, np.int64))
        motion.append(np.asarray(split.motion, np.float64))
        unknown = np.full(len(pieces), np.nan)
        drift.append(unknown if split.drift is None else np.asarray(split.drift, np.float64))
        moves.append(
            unknown_moves(len(pieces))
            if split.moves is None
            else np.asarray(split.moves, np.float64).reshape(len(pieces), len(MOVE_COLUMNS))
        )
    return make_nodes(
        np.vstack(spans),
        times_s,
        embedding,
        sigma,
        k,
        np.concatenate(parents),
        np.concatenate(motion),
        np.concatenate(drift),
        np.concatenate(moves),
    )
