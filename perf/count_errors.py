"""Count errors of one method on a benchmark, split into their causes (`eval.splits`):
per attribute and per video length, as markdown tables (docs/agent.md, "Counting").

    python perf/count_errors.py BENCH.jsonl PREDS.jsonl [PREDS2.jsonl ...]

Columns: queries, MAE and off-by-one accuracy of the count, mean signed error (predicted -
true), and the totals of splits, merges, misses and spurious predictions.
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from longground.eval.buckets import DURATION_LABELS, duration_bucket
from longground.eval.splits import count_errors
from longground.formats import load_predictions, load_samples
from longground.moments import Moments


def rows(samples, preds):
    """One `(attributes, length label, CountErrors, true count, predicted count)` per query."""
    by_qid = {p.qid: p for p in preds}
    lengths = duration_bucket(np.array([s.duration_s for s in samples]))
    for sample, length in zip(samples, lengths, strict=True):
        pred = by_qid.get(sample.qid)
        moments = pred.moments if pred is not None and pred.moments is not None else None
        spans = (moments or Moments.empty()).spans
        yield (
            sample.attributes,
            DURATION_LABELS[int(length)],
            count_errors(spans, sample.gt.spans),
            sample.gt.count,
            len(spans),
        )


def table(title: str, groups: dict[str, list]) -> str:
    lines = [
        f"| {title} | queries | MAE | off-by-one | mean error "
        "| splits | merges | misses | spurious |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in sorted(groups):
        g = groups[name]
        err = np.array([p - t for _, t, p in g], float)
        e = [c for c, _, _ in g]
        lines.append(
            f"| {name} | {len(g)} | {np.abs(err).mean():.2f} | {(np.abs(err) <= 1).mean():.2f} | "
            f"{err.mean():+.2f} | {sum(c.splits for c in e)} | {sum(c.merges for c in e)} | "
            f"{sum(c.misses for c in e)} | {sum(c.spurious for c in e)} |"
        )
    return "\n".join(lines)


def main(bench: str, *pred_files: str) -> None:
    samples = load_samples(bench)
    for path in pred_files:
        by_attr, by_len = defaultdict(list), defaultdict(list)
        for attrs, length, errors, true, found in rows(
            samples, load_predictions(path, None, samples)
        ):
            for a in [*attrs, "all"]:
                by_attr[a].append((errors, true, found))
            by_len[length].append((errors, true, found))
        print(f"\n{path}\n")
        print(table("attribute", by_attr))
        print()
        print(table("video length", by_len))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
