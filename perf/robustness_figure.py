"""The robustness table of docs/agent.md as a picture: the agent's F1@0.5, PosCov, Rej-F1, MAE
and off-by-one per rendering against issue 25's targets, before and after a change.

    python perf/robustness_figure.py --out docs/img/robustness.png \
        r1=r1/benchmark.jsonl,r1_after.jsonl[,r1_before.jsonl] r3=... [...]

One panel per measure, one group of bars per rendering (the earlier run light, the later one
dark), the target as a dashed line; a rendering with objects no positive query found
(`robustness_table.unfound`, later run) is starred and its objects are named under the
panels. Writes the PNG and a PDF beside it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from robustness_table import unfound

from longground.errors import UserError
from longground.eval.evaluate import evaluate
from longground.formats import load_predictions, load_samples

#: (metric key, panel title, target, whether higher is better, percent)
MEASURES = (
    ("f1@0.5", "F1@0.5", 75.0, True, True),
    ("pos_cov", "PosCov", 95.0, True, True),
    ("rej_f1", "Rej-F1", 85.0, True, True),
    ("mae", "count MAE", 1.5, False, False),
    ("obo", "off-by-one", 75.0, True, True),
)


def measures(bench: str, preds_path: str) -> tuple[dict[str, float], list[str]]:
    """The five measures of one run (percent, MAE as is) and the objects it left unfound."""
    samples = load_samples(bench)
    preds = load_predictions(preds_path, None, samples)
    m = evaluate(samples, preds).metrics
    values = {k: m[k] * (100.0 if pct else 1.0) for k, _, _, _, pct in MEASURES}
    return values, unfound(samples, preds)


def draw(runs: dict[str, list], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(runs)
    fig, axes = plt.subplots(1, len(MEASURES), figsize=(3.0 * len(MEASURES), 3.6))
    for ax, (key, title, target, higher, _) in zip(axes, MEASURES):
        for i, name in enumerate(names):
            after, before = runs[name][0], runs[name][1]
            if before is not None:
                ax.bar(i - 0.2, before[0][key], 0.4, color="#b8c7e0")
            ok = after[0][key] >= target if higher else after[0][key] <= target
            ax.bar(i + (0.2 if before is not None else 0.0), after[0][key], 0.4,
                   color="#2b5797" if ok else "#c0392b")  # fmt: skip
        ax.axhline(target, color="black", linestyle="--", linewidth=1)
        ax.set_title(f"{title} ({'>=' if higher else '<='} {target:g})", fontsize=10)
        ax.set_xticks(range(len(names)), [n + "*" * bool(runs[n][0][1]) for n in names])
        ax.tick_params(axis="y", labelsize=8)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=c) for c in ("#b8c7e0", "#2b5797", "#c0392b")
    ]
    fig.legend(handles, ["before", "after, target met", "after, target missed"],
               loc="lower left", ncol=3, fontsize=9, frameon=False)  # fmt: skip
    missing = "; ".join(f"{n}: {', '.join(runs[n][0][1])}" for n in names if runs[n][0][1])
    if missing:
        fig.text(0.99, 0.02, f"* objects unfound: {missing}", ha="right", fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    fig.savefig(out.with_suffix(".pdf"))
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="PNG to write (and a PDF)")
    parser.add_argument("runs", nargs="+", help="NAME=BENCH,AFTER[,BEFORE]")
    args = parser.parse_args()
    if args.out.suffix.lower() != ".png":
        parser.error(f"--out {args.out}: give a .png path (the PDF is written beside it)")
    specs = {}
    for item in args.runs:
        name, _, paths = item.partition("=")
        files = paths.split(",")
        if not name or len(files) not in (2, 3) or not all(files):
            parser.error(f"{item!r}: expected NAME=BENCH,AFTER[,BEFORE]")
        if {args.out, args.out.with_suffix(".pdf")} & {Path(f) for f in files}:
            parser.error(f"--out {args.out} would overwrite an input of {name}")
        specs[name] = files
    try:
        runs = {
            name: [measures(bench, after), measures(bench, before[0]) if before else None]
            for name, (bench, after, *before) in specs.items()
        }
        draw(runs, args.out)
    except (UserError, OSError) as exc:
        parser.exit(2, f"robustness_figure: error: {exc}\n")
    print(f"wrote {args.out} and {args.out.with_suffix('.pdf')}")


if __name__ == "__main__":
    main()
