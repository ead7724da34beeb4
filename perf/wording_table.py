"""Scores per wording of a benchmark written with `synth --wordings K`: one row per wording
(0 is the generator's own, 1.. the other wordings of the same queries), F1@0.5, Rej-F1 and
count MAE as `longground eval --protocol comet` gives them, and the share of near-miss
negatives left unanswered (rejected), for each run.

    python perf/wording_table.py BENCH.jsonl NAME=PREDS.jsonl [NAME=PREDS.jsonl ...]

Every wording asks the same thing with the same truth, so a method that reads queries as
people phrase them scores the same on each row.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from robustness_table import run_table, slice_table

from longground.formats import load_predictions, load_samples


def wordings(bench: str) -> dict[str, int]:
    """qid -> wording number (0 where the line has none)."""
    with open(bench, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return {d["qid"]: int(d.get("wording", 0)) for d in lines}


def rejected(samples, preds) -> str:
    """near misses rejected %

    Percent of the near-miss negatives answered with no moment."""
    near = {s.qid for s in samples if "near-miss" in s.attributes}
    if not near:
        return "-"
    empty = sum(1 for p in preds if p.qid in near and (p.moments is None or not p.moments.count))
    return f"{100 * empty / len(near):.0f}"


def table(bench: str, runs: dict[str, str]) -> str:
    samples = load_samples(bench)
    preds = {name: load_predictions(path, None, samples) for name, path in runs.items()}
    groups: dict[int, list] = defaultdict(list)
    number = wordings(bench)
    for s in samples:
        groups[number[s.qid]].append(s)
    return slice_table("wording", {w: groups[w] for w in sorted(groups)}, preds, rejected)


def main(argv: list[str]) -> int:
    return run_table(argv, table, __doc__, "wording_table")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
