"""Speed of `longground.eval.evaluate` against a straightforward pure-Python scorer.

Scores N generated queries (default 100,000) with 0-20 GT and 0-20 predicted intervals each
under the `comet` protocol, checks that both implementations agree, and prints the wall times
and the speed ratio. Targets (issue 2): the vectorised run under 10 s on a 2-core machine and
at least 20x faster than the per-pair loop.

Then scores the same queries from files, once as JSON Lines and once as JSON arrays (benchmark
and predictions), and prints both times and their ratio. Target (issue 11): the arrays within
2x of JSON Lines (the array reader used to be quadratic: 100k records never finished).

    python perf/bench_eval.py                      # 100k queries, naive on all of them
    python perf/bench_eval.py --naive-queries 20000  # naive on a subset, scaled up
    python perf/bench_eval.py --file-queries 0       # skip the file figures
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from longground import Moments, Prediction, Sample
from longground.eval import evaluate, evaluate_files, reference

KEYS = ("mae", "obo", "pearson", "miou", "recall", "f1", "rej_rate", "pos_cov", "rej_f1", "fpr")


def generate(n_queries: int, max_intervals: int, seed: int) -> tuple[list, list]:
    """Per-query span arrays: GT (some queries negative) and predictions near them."""
    rng = np.random.default_rng(seed)
    durations_s = rng.uniform(300, 7200, n_queries)
    n_gt = rng.integers(0, max_intervals + 1, n_queries)
    n_pred = rng.integers(0, max_intervals + 1, n_queries)
    gts, preds = [], []
    for duration_s, k_gt, k_pred in zip(durations_s, n_gt, n_pred, strict=True):
        starts = rng.uniform(0, duration_s, k_gt)
        gt = np.stack([starts, starts + rng.uniform(2, 60, k_gt)], axis=1)
        # Half the predictions jitter a GT interval, the rest land anywhere.
        anchor = (
            gt[rng.integers(0, k_gt, k_pred)] if k_gt else rng.uniform(0, duration_s, (k_pred, 2))
        )
        jitter = rng.normal(0, 8, (k_pred, 2)) * (rng.random((k_pred, 1)) < 0.5)
        random = rng.uniform(0, duration_s, (k_pred, 1)) + np.array([0.0, 30.0])
        pred = np.where(rng.random((k_pred, 1)) < 0.5, anchor + jitter, random)
        pred[:, 1] = np.maximum(pred[:, 1], pred[:, 0])
        gts.append(gt.reshape(-1, 2))
        preds.append(pred.reshape(-1, 2))
    return gts, preds


class Timer:
    """Wall-clock and CPU seconds of this process (CPU time is what contention leaves)."""

    def __enter__(self) -> Timer:
        self.wall_s, self.cpu_s = -time.perf_counter(), -time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall_s += time.perf_counter()
        self.cpu_s += time.process_time()


def time_vectorised(gts: list, preds: list, theta: float, repeats: int) -> tuple[list, dict]:
    """Timers of `repeats` runs of `evaluate` (the first one cold) and its metrics."""
    samples = [Sample(f"q{i}", "v.mp4", 3600.0, "query", Moments(g)) for i, g in enumerate(gts)]
    answers = [Prediction(f"q{i}", Moments(p)) for i, p in enumerate(preds)]
    timers = []
    for _ in range(repeats):
        with Timer() as timer:
            result = evaluate(samples, answers, protocol="comet", theta=theta)
        timers.append(timer)
    return timers, result.metrics


def time_naive(gts: list, preds: list, theta: float) -> tuple[Timer, dict]:
    """Timer of the pure-Python reference scorer and its metrics."""
    gt_lists = [[tuple(span) for span in g.tolist()] for g in gts]
    pred_lists = [[tuple(span) for span in p.tolist()] for p in preds]
    with Timer() as timer:
        metrics = reference.comet(gt_lists, pred_lists, theta)
    return timer, metrics


def agree(vectorised: dict, naive: dict, theta: float) -> list[str]:
    """Names of metrics on which the two implementations differ."""
    renamed = {"recall": f"recall@{theta:g}", "f1": f"f1@{theta:g}"}
    return [
        key
        for key in KEYS
        if not math.isclose(
            vectorised[renamed.get(key, key)], naive[key], rel_tol=1e-9, abs_tol=1e-12
        )
    ]


def write_files(folder: Path, gts: list, preds: list) -> dict[str, tuple[Path, Path]]:
    """The queries as canonical benchmark and prediction files, JSONL and indented arrays."""
    samples = [
        {"qid": f"q{i}", "video": f"v{i % 97}.mp4", "duration": 7200.0, "query": "a query",
         "intervals": g.tolist()}
        for i, g in enumerate(gts)
    ]  # fmt: skip
    answers = [{"qid": f"q{i}", "intervals": p.tolist()} for i, p in enumerate(preds)]
    files = {}
    for kind, suffix in (("jsonl", ".jsonl"), ("array", ".json")):
        paths = folder / f"gt{suffix}", folder / f"pred{suffix}"
        for path, rows in zip(paths, (samples, answers), strict=True):
            text = (
                "".join(json.dumps(r) + "\n" for r in rows)
                if kind == "jsonl"
                else json.dumps(rows, indent=1)
            )
            path.write_text(text)
        files[kind] = paths
    return files


def time_files(gts: list, preds: list, theta: float) -> None:
    """`evaluate_files` on the same queries as JSONL and as JSON arrays; both times, the ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), gts, preds)
        timers, metrics = {}, {}
        for kind, (gt, pred) in files.items():
            with Timer() as timers[kind]:
                metrics[kind] = evaluate_files(gt, pred, protocol="comet", theta=theta).metrics
    if metrics["jsonl"] != metrics["array"]:
        print("FILE RESULTS DIFFER between JSONL and JSON arrays")
    jsonl, array = timers["jsonl"], timers["array"]
    print(
        f"evaluate_files, {len(gts):,} records per file: JSONL {jsonl.wall_s:.2f} s wall "
        f"({jsonl.cpu_s:.2f} s CPU), JSON array {array.wall_s:.2f} s wall ({array.cpu_s:.2f} s CPU)"
    )
    ratio, cpu_ratio = array.wall_s / jsonl.wall_s, array.cpu_s / jsonl.cpu_s
    print(
        f"array / JSONL: {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU; "
        f"target <= 2x {'met' if cpu_ratio <= 2 else 'MISSED'} (CPU)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--max-intervals", type=int, default=20)
    parser.add_argument(
        "--naive-queries",
        type=int,
        default=None,
        help="time the naive scorer on this many queries and scale linearly",
    )
    parser.add_argument("--theta", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3, help="runs of the vectorised scorer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--file-queries",
        type=int,
        default=100_000,
        help="records per file for the JSONL-against-array figure (0 skips it)",
    )
    args = parser.parse_args()

    gts, preds = generate(args.queries, args.max_intervals, args.seed)
    pairs = sum(len(g) * len(p) for g, p in zip(gts, preds, strict=True))
    print(
        f"{args.queries:,} queries, {sum(map(len, gts)):,} GT and "
        f"{sum(map(len, preds)):,} predicted intervals, {pairs:,} (GT, prediction) pairs"
    )

    timers, fast = time_vectorised(gts, preds, args.theta, args.repeats)
    first, best = timers[0], min(timers, key=lambda t: t.wall_s)
    print(
        f"vectorised evaluate: {first.wall_s:.2f} s wall ({first.cpu_s:.2f} s CPU) first run, "
        f"{best.wall_s:.2f} s wall ({best.cpu_s:.2f} s CPU) best of {len(timers)}"
    )

    n_naive = min(args.naive_queries or args.queries, args.queries)
    naive_timer, naive = time_naive(gts[:n_naive], preds[:n_naive], args.theta)
    scale = args.queries / n_naive
    naive_wall_s, naive_cpu_s = naive_timer.wall_s * scale, naive_timer.cpu_s * scale
    scaled = "" if n_naive == args.queries else f" (timed on {n_naive:,} queries, scaled)"
    print(f"naive per-pair loops: {naive_wall_s:.2f} s wall ({naive_cpu_s:.2f} s CPU){scaled}")

    if n_naive == args.queries:
        differing = agree(fast, naive, args.theta)
        print("results agree" if not differing else f"RESULTS DIFFER on {differing}")
    ratio, cpu_ratio = naive_wall_s / first.wall_s, naive_cpu_s / first.cpu_s
    print(f"speed ratio (first run): {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU")
    print(
        f"targets: >= 20x {'met' if ratio >= 20 else 'MISSED'}; "
        f"< 10 s {'met' if first.wall_s < 10 else 'MISSED'}"
    )
    if args.file_queries:
        n_files = min(args.file_queries, args.queries)
        time_files(gts[:n_files], preds[:n_files], args.theta)


if __name__ == "__main__":
    main()
