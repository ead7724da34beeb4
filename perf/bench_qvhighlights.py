"""Speed of `--protocol qvhighlights` against the per-query loop of `eval.reference`.

Scores Moment-DETR's sample predictions on the shipped QVHighlights val split (1,550
queries) both ways, checks that every metric agrees, and prints the wall times and the ratio.
Both sides start from the decoded JSON records; "vectorised" includes validating and
packing them into arrays.

    python perf/bench_qvhighlights.py             # all 1,550 queries
    python perf/bench_qvhighlights.py --repeats 5
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from longground.eval import reference
from longground.eval.qvhighlights import score_qvhighlights
from longground.eval.qvhighlights_io import read_predictions, read_truth

DATA = Path(__file__).resolve().parents[1] / "data" / "qvhighlights"


def _leaves(tree, path=()):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, tree


def max_difference(fast: dict, slow: dict) -> float:
    """Largest absolute difference between two nested metric dicts with the same keys."""
    slow_leaves = dict(_leaves(slow))
    worst = 0.0
    for key, value in _leaves(fast):
        other = slow_leaves[key]
        if value is None or other is None or math.isnan(other):
            continue
        worst = max(worst, abs(value - other))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of the vectorised scorer")
    args = parser.parse_args()
    gt = [json.loads(line) for line in (DATA / "highlight_val_release.jsonl").open()]
    pred = [json.loads(line) for line in (DATA / "moment_detr_sample_val_preds.jsonl").open()]
    fast_s, score_s = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        truth = read_truth(gt)
        answers = read_predictions(pred, truth)
        loaded = time.perf_counter()
        fast = score_qvhighlights(truth, answers).metrics()
        fast_s.append(time.perf_counter() - start)
        score_s.append(time.perf_counter() - loaded)
    start = time.perf_counter()
    slow = reference.qvhighlights(gt, pred)
    slow_s = time.perf_counter() - start
    best = min(fast_s)
    print(f"queries: {len(gt)}")
    print(
        f"vectorised: {best:.3f} s (best of {args.repeats}; first {fast_s[0]:.3f} s), "
        f"of which scoring {min(score_s):.3f} s and checking/packing the records the rest"
    )
    print(f"per-query loop: {slow_s:.3f} s")
    print(f"speed-up: {slow_s / best:.1f}x")
    print(f"largest difference between the two: {max_difference(fast, slow):.2e}")


if __name__ == "__main__":
    main()
