"""Searching a simulated library of up to 1,000 hours: query time, memory, ANN recall.

Generates feature rows the way the index stores them (no decoding): 1 sample per second,
of which `--unique` are computed rows (content-adaptive indexing keeps only those; measured
on the synthetic benchmark), 384-d unit vectors around 2,000 "concepts", float16. For each
library size it reports the stored bytes (and per hour), the resident memory, the exact
top-10 query time (mean of 20 queries), and, from `--ann-from` hours on, the usearch HNSW
build time, its query time and its recall@10 against exact search. Ratios are against the
1-hour library and against float32 rows of every sample (the earlier format).

    python perf/bench_library.py                       # 1, 10, 100, 1000 hours
    python perf/bench_library.py --hours 1 10 100      # quicker
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from longground.index.row_search import EXACT_MAX_ROWS, RowMatrix, recall_at_k

DIM, CONCEPTS, K, QUERIES = 384, 2000, 10, 20


def library(hours: float, unique: float, seed: int = 0) -> RowMatrix:
    """Computed rows of `hours` of video (one video per hour), float16, made in chunks."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((CONCEPTS, DIM)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    n = int(hours * 3600 * unique)
    rows = np.empty((n, DIM), np.float16)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        x = centers[rng.integers(0, CONCEPTS, m)] + 0.6 * rng.standard_normal((m, DIM)) / DIM**0.5
        rows[start : start + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    owner = (np.arange(n) / (3600 * unique)).astype(np.int32)
    return RowMatrix(rows, owner)


def queries(seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((QUERIES, DIM)).astype(np.float32)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(search, qs) -> tuple[float, list]:
    started = time.perf_counter()
    results = [search(q, K)[0] for q in qs]
    return (time.perf_counter() - started) / len(qs), results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, nargs="+", default=[1, 10, 100, 1000])
    parser.add_argument("--unique", type=float, default=0.25, help="computed rows per sample")
    parser.add_argument("--ann-from", type=float, default=10.0, help="hours from which to try ANN")
    parser.add_argument("--ann-to", type=float, default=1000.0, help="hours up to which to try ANN")
    parser.add_argument("--fast-ms", type=float, default=250.0,
                        help="exact search is fast while a query takes at most this")  # fmt: skip
    args = parser.parse_args()
    qs = queries()
    print(f"{DIM}-d float16 rows, {args.unique:.0%} of samples computed, top-{K}, "
          f"{QUERIES} queries per size")  # fmt: skip
    head = f"{'hours':>6} {'rows':>10} {'MB':>8} {'MB/h':>6} {'x f32 all':>9} {'RSS MB':>7} "
    print(head + f"{'exact ms':>9} {'x 1 h':>7} {'ann build s':>11} {'ann ms':>7} {'recall':>7}")
    base_ms, measured = None, []
    for hours in args.hours:
        matrix = library(hours, args.unique)
        exact_s, exact = timed(matrix.exact_top, qs)
        base_ms = base_ms or exact_s * 1e3
        mb = matrix.rows.nbytes / 1e6
        every_f32 = hours * 3600 * DIM * 4 / 1e6
        ann = "" if not args.ann_from <= hours <= args.ann_to else None
        if ann is None:
            started = time.perf_counter()
            matrix.build_ann()
            build_s = time.perf_counter() - started
            ann_s, approx = timed(matrix.ann_top, qs)
            recall = np.mean([recall_at_k(a, e) for a, e in zip(approx, exact, strict=True)])
            ann = f"{build_s:11.1f} {ann_s * 1e3:7.2f} {recall:7.3f}"
        print(f"{hours:6g} {len(matrix.rows):10,d} {mb:8.1f} {mb / hours:6.2f} "
              f"{mb / every_f32:9.3f} {peak_rss_mb():7.0f} {exact_s * 1e3:9.2f} "
              f"{exact_s * 1e3 / base_ms:7.1f} {ann}")  # fmt: skip
        measured.append((len(matrix.rows), exact_s * 1e3))
        del matrix
    crossover(measured, args.fast_ms)


def crossover(measured: list[tuple[int, float]], fast_ms: float) -> None:
    """Print the row count where exact search reaches `fast_ms` a query (a line through the
    origin fitted to the measured sizes; exact search is linear in the rows) against
    `EXACT_MAX_ROWS`, past which `find --top` and `RowMatrix.top_rows` use the ANN index."""
    rows, ms = (np.array(v, dtype=float) for v in zip(*measured, strict=True))
    per_row_ms = float(rows @ ms / (rows @ rows))
    at = fast_ms / per_row_ms
    print(f"exact search: {per_row_ms * 1e6:.1f} ms per million rows; reaches {fast_ms:g} ms a "
          f"query at {at:,.0f} rows ({at / EXACT_MAX_ROWS:.2f}x EXACT_MAX_ROWS = "
          f"{EXACT_MAX_ROWS:,})")  # fmt: skip


if __name__ == "__main__":
    main()
