"""The robustness table of docs/agent.md: methods on one rendering of the synthetic benchmark,
overall, per attribute and per object, comet protocol, plus which objects went unfound.

    python perf/robustness_table.py BENCH.jsonl NAME=PREDS.jsonl [NAME=PREDS.jsonl ...]

Columns: queries, F1@0.5, PosCov, Rej-F1, MAE, off-by-one (percent except MAE). A query
counts for every catalogue object its text names. "Unfound" lists, per method, the objects
shown in a video (some positive query about them has truth there) for which no positive query
naming them got a prediction overlapping its truth. "Answered negatives" counts, per method,
the negative queries that got any moment, with the moments they got in all.
"""

from __future__ import annotations

import sys
from collections import defaultdict

from longground.eval.evaluate import evaluate
from longground.formats import load_predictions, load_samples
from longground.moments import tiou_matrix
from longground.synth.catalog import CATEGORIES

KEYS = ("f1@0.5", "pos_cov", "rej_f1", "mae", "obo")


def objects_named(query: str) -> list[str]:
    """Catalogue objects whose name or any phrase appears in the query."""
    text = query.lower()
    found = []
    for c in CATEGORIES.values():
        words = {c.noun, *(p.split(" ", 1)[-1] for p in c.phrases)}
        if any(w in text for w in words):
            found.append(c.name)
    return found


def row(samples, preds) -> list:
    m = evaluate(samples, preds).metrics
    cells = []
    for k in KEYS:
        v = m.get(k)
        cells.append("-" if v is None else (f"{v:.2f}" if k == "mae" else f"{100 * v:.1f}"))
    return cells


SHOWN = (("f1@0.5", "F1@0.5"), ("rej_f1", "Rej-F1"), ("mae", "MAE"))


def slice_table(kind: str, groups: dict, preds: dict, extra=None) -> str:
    """Markdown: one row per group of samples (in `groups`' order), F1@0.5, Rej-F1 and MAE of
    each run in `preds` (name -> predictions), then `extra(samples, predictions) -> cell`
    per run under the column `extra.__doc__`'s first line, if given."""
    columns = [label for _, label in SHOWN] + ([extra.__doc__.splitlines()[0]] if extra else [])
    head = " | ".join(f"{label} {name}" for label in columns for name in preds)
    lines = [f"| {kind} | queries | {head} |", "|---|---|" + "---|" * (len(columns) * len(preds))]
    for label, group in groups.items():
        qids = {s.qid for s in group}
        kept = {n: [p for p in ps if p.qid in qids] for n, ps in preds.items()}
        cells = {n: row(group, kept[n]) for n in preds}
        shown = [cells[n][KEYS.index(key)] for key, _ in SHOWN for n in preds]
        shown += [extra(group, kept[n]) for n in preds] if extra else []
        lines.append(f"| {label} | {len(group)} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def run_table(argv: list[str], table, doc: str, name: str) -> int:
    """`main` of a per-slice table script: `BENCH NAME=PREDS ...` printed as `table(bench,
    runs)`; the usage on bad arguments, one line on an unusable file (exit 2)."""
    from longground.errors import UserError

    if len(argv) < 2 or not all("=" in a for a in argv[1:]):
        print(doc, file=sys.stderr)
        return 2
    try:
        print(table(argv[0], dict(a.split("=", 1) for a in argv[1:])))
    except (UserError, OSError, ValueError) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    return 0


def unfound(samples, preds) -> list[str]:
    by_qid = {p.qid: p for p in preds}
    shown, hit = set(), set()
    for s in samples:
        if not s.gt.count:
            continue
        for obj in objects_named(s.query):
            shown.add((s.video, obj))
            p = by_qid.get(s.qid)
            if p is not None and p.moments is not None and p.moments.count:
                if tiou_matrix(p.moments.spans, s.gt.spans).max() > 0:
                    hit.add((s.video, obj))
    return sorted(f"{obj} ({v.rsplit('/', 1)[-1]})" for v, obj in shown - hit)


def answered_negatives(samples, preds) -> str:
    """'k of n negatives answered (m moments)' for one method."""
    by_qid = {p.qid: p for p in preds}
    negatives = [s for s in samples if not s.gt.count]
    counts = [
        by_qid[s.qid].moments.count
        for s in negatives
        if s.qid in by_qid and by_qid[s.qid].moments is not None
    ]
    answered = sum(1 for c in counts if c)
    return f"{answered} of {len(negatives)} negatives answered ({sum(counts)} moments)"


def main(bench: str, *named: str) -> None:
    samples = load_samples(bench)
    runs = {n.split("=", 1)[0]: load_predictions(n.split("=", 1)[1], None, samples) for n in named}
    groups: dict[str, list] = defaultdict(list)
    for s in samples:
        groups["all"].append(s)
        for a in sorted(s.attributes):
            groups[f"attr: {a}"].append(s)
        for o in objects_named(s.query):
            groups[f"object: {o}"].append(s)
    header = " | ".join(
        f"{k} {n}" for k in ("F1@0.5", "PosCov", "Rej-F1", "MAE", "OBO") for n in runs
    )
    print(f"| slice | queries | {header} |")
    print("|---|---|" + "---|" * (len(KEYS) * len(runs)))
    for name in sorted(groups, key=lambda g: (g != "all", g)):
        qs = groups[name]
        qids = {s.qid for s in qs}
        cells = [row(qs, [p for p in preds if p.qid in qids]) for preds in runs.values()]
        merged = [cells[r][k] for k in range(len(KEYS)) for r in range(len(runs))]
        print(f"| {name} | {len(qs)} | " + " | ".join(merged) + " |")
    for n, preds in runs.items():
        print(f"\nunfound ({n}): {', '.join(unfound(samples, preds)) or 'none'}")
    for n, preds in runs.items():
        print(f"\nanswered negatives ({n}): {answered_negatives(samples, preds)}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
