"""Bootstrap confidence intervals: resample queries with replacement, recompute the metrics."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .plain import plain

# Bound on resample indices held at once (B_chunk * Q), about 16 MB of int64.
MAX_INDICES = 2_000_000
#: Most resamples asked for at once: 1,000-10,000 is usual; more only takes longer.
MAX_BOOTSTRAP = 100_000


def bootstrap_ci(
    statistic: Callable[[np.ndarray], dict[str, np.ndarray]],
    n_queries: int,
    keys: Sequence[str],
    n_resamples: int,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, list[float] | None]:
    """Percentile bootstrap intervals for the metrics `keys`.

    Args:
        statistic: maps `(B, Q)` query indices to a dict of `(B,)` metric arrays.
        n_queries: Q, the number of queries to resample.
        keys: metrics to report intervals for.
        n_resamples: number of resamples B (>= 1).
        seed: seed of the random generator, so intervals are reproducible.
        level: central coverage of the interval.

    Returns:
        `{key: [low, high]}`, or None for a metric undefined in every resample.

    >>> values = np.arange(100, dtype=float)
    >>> ci = bootstrap_ci(lambda idx: {"mean": values[idx].mean(axis=-1)}, 100, ["mean"], 200)
    >>> 40 < ci["mean"][0] < 49.5 < ci["mean"][1] < 59
    True
    """
    rng = np.random.default_rng(seed)
    chunk = max(1, MAX_INDICES // max(n_queries, 1))
    samples: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    for start in range(0, n_resamples, chunk):
        idx = rng.integers(0, n_queries, size=(min(chunk, n_resamples - start), n_queries))
        metrics = statistic(idx)
        for key in keys:
            samples[key].append(np.asarray(metrics[key], dtype=np.float64))
    tail = (1.0 - level) / 2.0 * 100.0
    out = {}
    for key in keys:
        values = np.concatenate(samples[key])
        values = values[~np.isnan(values)]
        if len(values) == 0:
            out[key] = None
            continue
        low, high = np.percentile(values, [tail, 100.0 - tail])
        out[key] = [plain(low), plain(high)]
    return out
