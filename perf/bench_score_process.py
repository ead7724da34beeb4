"""Scoring as a whole process: `longground eval GT PRED` against a pure-Python reference.

Writes a benchmark and a predictions file (JSON Lines; default 30,000 queries with 0-50
GT and 0-50 predicted intervals each, some queries negative), then times, each in a fresh
process:

- reference: the standard-library `json` module reading both files line by line, checking
  each record in Python, and the naive per-pair loops of `longground.eval.reference` (what a
  plain pure-Python scorer does);
- longground: `python -m longground eval GT PRED --protocol comet --json`.

Both print the same metrics, which are compared. Target (issue 24): longground >= 10x faster
than the reference, whole process (start-up, parsing, validation, scoring).

With `--repeat N` each side runs N times, taking turns, and the fastest run of each counts
(wall and CPU separately): on a shared machine other work only ever adds time. The load
average is printed at the start and the end.

    python perf/bench_score_process.py                 # 30,000 queries
    python perf/bench_score_process.py --repeat 3      # best of 3 on a busy machine
    python perf/bench_score_process.py --queries 5000  # quick
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_RATIO = 10.0
KEYS = ("mae", "obo", "miou", "recall", "f1", "rej_rate", "pos_cov", "rej_f1", "fpr")


def write_files(folder: Path, n_queries: int, max_intervals: int, seed: int) -> tuple[Path, Path]:
    """Benchmark and predictions as JSON Lines: GT intervals and predictions near them."""
    rng = np.random.default_rng(seed)
    gt_path, pred_path = folder / "gt.jsonl", folder / "pred.jsonl"
    with open(gt_path, "w") as gt_out, open(pred_path, "w") as pred_out:
        for i in range(n_queries):
            duration_s = float(rng.uniform(300, 7200))
            k_gt = int(rng.integers(0, max_intervals + 1)) if rng.random() > 0.1 else 0
            starts = rng.uniform(0, duration_s - 60, k_gt)
            gt = np.round(np.stack([starts, starts + rng.uniform(2, 60, k_gt)], axis=1), 2)
            k_pred = int(rng.integers(0, max_intervals + 1))
            anchor = gt[rng.integers(0, k_gt, k_pred)] if k_gt else rng.uniform(0, 1, (k_pred, 2))
            pred = np.clip(anchor + rng.normal(0, 3, (k_pred, 2)), 0, duration_s)
            pred = np.round(np.sort(pred, axis=1), 2)
            record = {"qid": f"q{i}", "video": f"v{i % 97}.mp4", "duration": round(duration_s, 2),
                      "query": "a query", "intervals": gt.tolist()}  # fmt: skip
            gt_out.write(json.dumps(record) + "\n")
            pred_out.write(json.dumps({"qid": f"q{i}", "intervals": pred.tolist()}) + "\n")
    return gt_path, pred_path


def reference_main(gt_path: str, pred_path: str) -> None:
    """The pure-Python scorer (run in its own process): json, checks, naive loops."""
    from longground.eval import reference

    def spans(value, where: str) -> list[tuple[float, float]]:
        out = []
        for pair in value:
            if not isinstance(pair, list) or len(pair) != 2:
                raise SystemExit(f"{where}: an interval is not [start, end]")
            start, end = (float(x) for x in pair)
            if not (math.isfinite(start) and math.isfinite(end) and 0 <= start <= end):
                raise SystemExit(f"{where}: bad interval {pair}")
            out.append((start, end))
        return out

    gts = {}
    with open(gt_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            record = json.loads(line)
            if not isinstance(record.get("qid"), str) or not isinstance(record.get("query"), str):
                raise SystemExit(f"{gt_path}:{number}: qid and query must be strings")
            gts[record["qid"]] = spans(record["intervals"], f"{gt_path}:{number}")
    preds = {}
    with open(pred_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            record = json.loads(line)
            preds[record["qid"]] = spans(record["intervals"], f"{pred_path}:{number}")
    qids = list(gts)
    metrics = reference.comet([gts[q] for q in qids], [preds.get(q, []) for q in qids], 0.5)
    print(json.dumps({k: metrics[k] for k in KEYS if k in metrics}))


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of a command (a fresh process) and its stdout; on a shared
    machine the CPU seconds are the steadier figure."""
    started, cpu = time.perf_counter(), _children_cpu_s()
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy())
    took, cpu_s = time.perf_counter() - started, _children_cpu_s() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return took, cpu_s, done.stdout


def best(runs: list[tuple[float, float, str]]) -> tuple[float, float, str]:
    """The shortest wall time and the least CPU time of `runs` (each may come from another
    run), with the first run's output."""
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]


def longground_metrics(stdout: str) -> dict:
    """The overall metrics from `longground eval --json`."""
    data = json.loads(stdout)
    renamed = {"recall": "recall@0.5", "f1": "f1@0.5"}  # `--json` names them with theta
    return {k: data[renamed.get(k, k)] for k in KEYS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=30_000)
    parser.add_argument("--max-intervals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each side; best counts")
    parser.add_argument("--reference", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reference:
        reference_main(*args.reference)
        return
    with tempfile.TemporaryDirectory() as tmp:
        gt, pred = write_files(Path(tmp), args.queries, args.max_intervals, args.seed)
        size_mb = (gt.stat().st_size + pred.stat().st_size) / 1e6
        print(f"{args.queries:,} queries, up to {args.max_intervals} intervals each, "
              f"{size_mb:.1f} MB of JSON Lines; load average {os.getloadavg()[0]:.1f}")  # fmt: skip
        ref_command = [sys.executable, __file__, "--reference", str(gt), str(pred)]
        command = [sys.executable, "-m", "longground", "eval", str(gt), str(pred),
                   "--protocol", "comet", "--json"]  # fmt: skip
        ref_runs, lg_runs = [], []
        for _ in range(max(1, args.repeat)):
            ref_runs.append(timed(ref_command))
            lg_runs.append(timed(command))
    (ref_s, ref_cpu, ref_out), (lg_s, lg_cpu, lg_out) = best(ref_runs), best(lg_runs)
    reference, ours = json.loads(ref_out), longground_metrics(lg_out)
    differ = [k for k in reference if not math.isclose(reference[k], ours.get(k, math.nan),
                                                       rel_tol=1e-9, abs_tol=1e-12)]  # fmt: skip
    if len({run[2] for run in lg_runs}) > 1:
        differ.append("longground's output differs between runs")
    print(f"load average {os.getloadavg()[0]:.1f} at the end; best of {len(lg_runs)} run(s)")
    print(
        f"reference (json + Python checks + per-pair loops): {ref_s:6.2f} s, cpu {ref_cpu:6.2f} s"
    )
    print(f"longground eval (whole process):                   {lg_s:6.2f} s, cpu {lg_cpu:6.2f} s")
    print(f"speed-up in CPU seconds: {ref_cpu / lg_cpu:.1f}x")
    print("metrics agree" if not differ else f"METRICS DIFFER: {differ}")
    ratio = ref_s / lg_s
    verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
    print(f"speed-up: {ratio:.2f}x the reference; target >= {TARGET_RATIO:g}x {verdict}")


if __name__ == "__main__":
    main()
