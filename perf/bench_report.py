"""Speed of `longground report` on 2 methods x 10,000 queries, against `eval` alone.

Writes a generated benchmark (1-3 GT intervals per query, every 5th negative) and two
methods' predictions, times `build_report` (loading, scoring both protocols' numbers,
every figure as PNG and PDF, the page) and, as the baseline, `evaluate_files` on the same
files for both methods. Target (issue 14): the report under 30 s.

    python perf/bench_report.py [--queries 10000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from report_data import write_bench  # noqa: E402

from longground.eval import evaluate_files  # noqa: E402
from longground.report import build_report  # noqa: E402


def timed(func) -> tuple[float, float]:
    """Wall and CPU seconds of `func()` (CPU time is what a shared machine leaves)."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        gt, preds = write_bench(Path(folder), args.queries)
        base_wall, base_cpu = timed(
            lambda: [
                evaluate_files(gt, p, by=["attribute", "domain", "duration_x_position"])
                for p in preds
            ]
        )
        wall, cpu = timed(lambda: build_report(gt, preds, Path(folder) / "report"))
        n_files = len(list((Path(folder) / "report" / "figures").iterdir()))
    print(f"queries: {args.queries} x {len(preds)} methods, {n_files} figure files")
    print(f"eval alone (baseline): {base_wall:6.2f} s wall, {base_cpu:6.2f} s CPU")
    print(
        f"report:                {wall:6.2f} s wall, {cpu:6.2f} s CPU "
        f"({wall / base_wall:.1f}x the baseline)"
    )
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f} (wall times stretch with load)")
    print(f"target < 30 s wall: {'met' if wall < 30 else 'MISSED'}")


if __name__ == "__main__":
    main()
