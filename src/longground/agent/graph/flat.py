"""The "w/o Temporal Graph" ablation of CoMET Table 6: flat uniform segments, no edges.

The graph's two levels (shots, then motion-homogeneous actions) and its Eq. 15 edges are
replaced by one level of equal-length segments, each its own candidate, linked to nothing, so
a perception context is the segment alone.
"""

from __future__ import annotations

import numpy as np

from .nodes import Nodes, make_nodes


def flat_spans(window_s: tuple[float, float], segment_s: float) -> np.ndarray:
    """`(K, 2)` back-to-back spans of `segment_s` seconds covering `window_s`; the last one
    ends at the window's end.

    >>> flat_spans((0.0, 25.0), 10.0).tolist()
    [[0.0, 10.0], [10.0, 20.0], [20.0, 25.0]]
    """
    start_s, end_s = float(window_s[0]), float(window_s[1])
    starts = start_s + segment_s * np.arange(max(int(np.ceil((end_s - start_s) / segment_s)), 1))
    return np.stack([starts, np.minimum(starts + segment_s, end_s)], axis=1)


def flat_nodes(
    times_s: np.ndarray, embedding: np.ndarray, window_s: tuple[float, float], segment_s: float
) -> Nodes:
    """The flat level over `window_s`: uniform segments with all edge weights zero.

    Args:
        times_s: `(T,)` timeline sample times in seconds.
        embedding: `(T, D)` per-sample features the node embeddings are averaged from.
        window_s: the plan's window in seconds.
        segment_s: segment length in seconds.

    >>> n = flat_nodes(np.arange(30.0), np.ones((30, 2)), (0.0, 30.0), 10.0)
    >>> len(n), float(np.abs(n.weights).sum())
    (3, 0.0)
    """
    return make_nodes(flat_spans(window_s, segment_s), times_s, embedding, sigma=1.0, k=0)


def flat_candidates(
    segments: Nodes, kept: np.ndarray, times_s: np.ndarray, embedding: np.ndarray
) -> Nodes:
    """The kept flat segments as candidates; each is its own parent event, with no edges."""
    keep = np.flatnonzero(kept)
    return make_nodes(segments.spans_s[keep], times_s, embedding, 1.0, 0, parent=keep)
