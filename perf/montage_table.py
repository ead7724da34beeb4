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

from robustness_table import KEYS, row, run_table

from longground.formats import load_predictions, load_samples
from longground.synth.montage_queries import ATTRIBUTES

SHOWN = (("f1@0.5", "F1@0.5"), ("rej_f1", "Rej-F1"), ("mae", "MAE"))


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
    head = " | ".join(f"{label} {name}" for _, label in SHOWN for name in runs)
    lines = [f"| attribute | queries | {head} |", "|---|---|" + "---|" * (len(SHOWN) * len(runs))]
    for group in order:
        qids = {s.qid for s in groups[group]}
        cells = {n: row(groups[group], [p for p in ps if p.qid in qids]) for n, ps in preds.items()}
        shown = [cells[n][KEYS.index(key)] for key, _ in SHOWN for n in runs]
        lines.append(f"| {group} | {len(groups[group])} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    return run_table(argv, table, __doc__, "montage_table")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
