"""Graph edges and perception contexts.

Nodes are time-ordered segments. Node `i` links to every node within `k` positions (direct
edges at distance 1, indirect ones up to `k`), weighted by CoMET Eq. 15:

    w_ij = cos(z_i, z_j) * exp(-|i - j| / sigma)

so an edge is strong when two segments look alike *and* are close in sequence. Traversal only
follows edges with w > tau.
"""

from __future__ import annotations

from collections import deque

import numpy as np


def edge_weights(z: np.ndarray, sigma: float, k: int) -> np.ndarray:
    """Eq. 15 weights between all nodes at most `k` positions apart (0 elsewhere).

    Args:
        z: `(N, D)` segment embeddings, in time order.
        sigma: temporal-decay scale, in hops (> 0).
        k: largest hop distance that gets an edge (1: direct edges only).

    Returns:
        `(N, N)` symmetric float64 matrix with a zero diagonal.

    >>> w = edge_weights(np.array([[1.0, 0], [1, 0], [0, 1]]), sigma=1.0, k=1)
    >>> w.round(3).tolist()
    [[0.0, 0.368, 0.0], [0.368, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    if sigma <= 0:
        raise ValueError("sigma must be > 0")
    x = np.asarray(z, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1)
    norms[norms == 0] = 1.0
    x = x / norms[:, None]
    idx = np.arange(len(x))
    hops = np.abs(idx[:, None] - idx[None, :])
    w = (x @ x.T) * np.exp(-hops / sigma)
    w[(hops == 0) | (hops > k)] = 0.0
    return w


def k_hop_context(
    weights: np.ndarray, node: int, hops: int, tau: float, budget: int | None = None
) -> np.ndarray:
    """C(v) = {v} plus every node reachable from `v` in at most `hops` steps over edges w > tau.

    Nodes are reached breadth-first; among nodes at the same depth, stronger links come first.
    With a `budget`, only the first `budget` nodes in that order are kept (v always is), which
    bounds what one verification has to look at.

    Args:
        weights: `(N, N)` edge weights (see `edge_weights`).
        node: index of the candidate v.
        hops: K, the largest number of steps.
        tau: traversal threshold; edges with w <= tau are not followed.
        budget: most nodes in the context, or None for no limit.

    Returns:
        Sorted int64 indices, always containing `node`.

    >>> w = edge_weights(np.ones((5, 2)), sigma=10.0, k=1)
    >>> k_hop_context(w, 2, hops=1, tau=0.5).tolist(), k_hop_context(w, 2, 2, 0.5).tolist()
    ([1, 2, 3], [0, 1, 2, 3, 4])
    """
    w = np.asarray(weights, dtype=np.float64)
    depth = {node: 0}
    strength = {node: np.inf}
    queue = deque([node])
    while queue:
        u = queue.popleft()
        if depth[u] == hops:
            continue
        for v in np.flatnonzero(w[u] > tau):
            v = int(v)
            if v not in depth:
                depth[v] = depth[u] + 1
                strength[v] = w[u, v]
                queue.append(v)
    order = sorted(depth, key=lambda v: (depth[v], -strength[v], v))
    if budget is not None:
        order = order[: max(int(budget), 1)]
    return np.array(sorted(order), dtype=np.int64)
