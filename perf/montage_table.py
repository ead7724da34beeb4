"""Per-attribute tables of methods on a real-footage montage benchmark (`synth --montage`):
F1@0.5, Rej-F1 and count MAE for each attribute (object, scene, person, text, action, speech,
sequential, synchronous, negative, near-miss), scored as `longground eval --protocol comet`
does (through `robustness_table.row`).

    python perf/montage_table.py BENCH.jsonl NAME=PREDS.jsonl [NAME=PREDS.jsonl ...]

F1@0.5 and Rej-F1 in percent; "-" where a slice has no query the measure counts (F1 on a
slice of negatives only, Rej-F1 on a slice without negatives).
"""

from __future__ import annotations

import sys
from collections import defaultdict

from robustness_table import run_table, slice_table

from longground.formats import load_predictions, load_samples
from longground.synth.montage_queries import ATTRIBUTES


def table(bench: str, runs: dict[str, str]) -> str:
    """The markdown table: one row per attribute (and `all`), three columns per run."""
    samples = load_samples(bench)
    preds = {name: load_predictions(path, None, samples) for name, path in runs.items()}
    groups: dict[str, list] = defaultdict(list)
    for s in samples:
        groups["all"].append(s)
        for a in s.attributes:
            groups[a].append(s)
    order = [
        "all",
        *(a for a in ATTRIBUTES if a in groups),
        *sorted(set(groups) - {"all", *ATTRIBUTES}),
    ]
    return slice_table("attribute", {g: groups[g] for g in order}, preds)


def main(argv: list[str]) -> int:
    return run_table(argv, table, __doc__, "montage_table")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
