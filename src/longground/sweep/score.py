"""Scoring the sweep with the single protocol: a table and the mIoU-vs-window plot (EWB Fig. 4)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..eval import evaluate
from ..samples import Sample
from .windows import Window

KEYS = ("miou", "recall@0.3", "recall@0.5", "recall@0.7")


def score_sweep(
    samples: Sequence[Sample],
    files: Mapping[str, Mapping[str, Path]],
    windows: Sequence[Window],
    variants: Mapping[str, tuple[str, int | None]] | None = None,
) -> list[dict]:
    """One row per (method, window): the single protocol's metrics over the positive queries,
    plus the mean crop length in seconds.

    Args:
        variants: for a `--frames` sweep, each answer set's `(method, n_frames)` by its name.

    Returns:
        Rows `{"method", "base_method", "n_frames", "window", "half_width_s", "mean_crop_s",
        "n_queries", "miou", "recall@0.3", "recall@0.5", "recall@0.7", "missing",
        "parse_failures"}`.
    """
    from ..formats import load_predictions

    positives = [s for s in samples if len(s.gt)]
    by_qid = {s.qid: s for s in positives}
    rows = []
    for name, paths in files.items():
        for window in windows:
            predictions = load_predictions(paths[window.label], samples=by_qid)
            metrics = evaluate(positives, predictions, protocol="single").metrics
            crops = [window.crop(s.gt.spans, s.duration_s) for s in positives]
            base, n_frames = (variants or {}).get(name, (name, None))
            row = {
                "method": name,
                "base_method": base,
                "n_frames": n_frames,
                "window": window.label,
                "half_width_s": window.half_width_s,
                "mean_crop_s": float(np.mean([e - s for s, e in crops])),
            }
            row.update({k: metrics[k] for k in ("n_queries", *KEYS, "missing", "parse_failures")})
            rows.append(row)
    return rows


def format_table(rows: Sequence[dict]) -> str:
    """A Markdown table of `score_sweep`'s rows (metrics in percent)."""
    lines = [
        "| method | window | mean crop (s) | mIoU | R1@0.3 | R1@0.5 | R1@0.7 | failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [f"{100 * r[k]:.2f}" if r[k] is not None else "-" for k in KEYS]
        failed = r["missing"] + r["parse_failures"]
        lines.append(
            f"| {r['method']} | {r['window']} | {r['mean_crop_s']:.1f} | "
            + " | ".join(cells)
            + f" | {failed} |"
        )
    return "\n".join(lines)


def plot_sweep(rows: Sequence[dict], windows: Sequence[Window], out: Path) -> None:
    """`out/miou_vs_window.png` and `.pdf`: mIoU against the window, one line per method."""
    from ..report.figure import ReportFigure, new_figure

    fig, axes = new_figure(6.0, 3.6)
    ax, x = axes[0][0], np.arange(len(windows))
    for name in dict.fromkeys(r["method"] for r in rows):
        by_window = {r["window"]: r["miou"] for r in rows if r["method"] == name}
        ax.plot(x, [100 * (by_window[w.label] or 0.0) for w in windows], marker="o", label=name)
    ax.set_xticks(x, [w.label for w in windows])
    ax.set_xlabel("window w (crop = [c - w, c + w] around the GT midpoint c)")
    ax.set_ylabel("mIoU (%)")
    ax.legend()
    ReportFigure("miou_vs_window", "mIoU against window", "", "", fig).save(Path(out))


def write_results(rows: Sequence[dict], windows: Sequence[Window], out: Path) -> str:
    """Write `results.json`, `table.md` (the paper's layout, then every metric) and the plots
    into `out`; returns the tables.

    A frame-count sweep gets EWB Table 5's layout and `miou_vs_frames.png/.pdf`; a sweep of
    several windows gets Table 7's layout and `miou_vs_window.png/.pdf`.
    """
    from .layout import frames_table, plot_frames, window_table

    swept_frames = any(r["n_frames"] is not None for r in rows)
    parts = []
    if swept_frames:
        parts.append(frames_table(rows, windows))
    if len(windows) > 1 or not swept_frames:
        parts.append(window_table(rows, windows))
    table = "\n\n".join([*parts, format_table(rows)])
    with atomic_open(Path(out) / "results.json") as handle:
        json.dump({"rows": list(rows)}, handle, indent=1)
    with atomic_open(Path(out) / "table.md") as handle:
        handle.write(table + "\n")
    if len(windows) > 1 or not swept_frames:
        plot_sweep(rows, windows, out)
    if swept_frames:
        plot_frames(rows, windows, out)
    return table
