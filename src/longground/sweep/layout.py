"""The sweep's results in the layout of ExtremeWhenBench's tables: Table 7 (one row per
window, one mIoU column per method, best per row in bold) and Table 5 (one row per method, one
mIoU column per frame count N, then the best N), plus the frame-count plot (Fig. 3)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .windows import Window


def clip_text(seconds: float) -> str:
    """A crop length as the paper prints it.

    >>> clip_text(30.0), clip_text(60.0), clip_text(150.0), clip_text(4560.0)
    ('30 s', '1 min', '2.5 min', '76 min')
    """
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min".replace(".0 min", " min")


def _miou(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _bold_best(cells: list[float | None]) -> list[str]:
    known = [c for c in cells if c is not None]
    best = max(known) if known else None
    return [f"**{_miou(c)}**" if c is not None and c == best else _miou(c) for c in cells]


def window_table(rows: Sequence[dict], windows: Sequence[Window]) -> str:
    """EWB Table 7's layout: `| Window | Clip | <method> ... |`, mIoU as a fraction.

    Clip is the mean crop length over the queries (the paper's is 2w, or the mean video
    length for Full).
    """
    names = list(dict.fromkeys(r["method"] for r in rows))
    by = {(r["method"], r["window"]): r for r in rows}
    lines = ["| Window | Clip | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for w in windows:
        found = [by.get((n, w.label)) for n in names]
        crop = next((r["mean_crop_s"] for r in found if r is not None), 0.0)
        label = "Full" if w.half_width_s is None else f"±{w.label}"
        cells = _bold_best([None if r is None else r["miou"] for r in found])
        lines.append(f"| {label} | {clip_text(crop)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def frames_table(rows: Sequence[dict], windows: Sequence[Window]) -> str:
    """EWB Table 5's layout: `| Model | N=... | best |`, one row per method (and window, when
    several were swept), mIoU as a fraction."""
    counts = sorted({int(r["n_frames"]) for r in rows if r["n_frames"] is not None})
    keys = list(dict.fromkeys((r["base_method"], r["window"]) for r in rows))
    by = {(r["base_method"], r["window"], r["n_frames"]): r["miou"] for r in rows}
    header = "| Model | " + " | ".join(f"N={n}" for n in counts) + " | best |"
    lines = [header, "|---|" + "---|" * (len(counts) + 1)]
    for method, window in keys:
        values = [by.get((method, window, n)) for n in counts]
        known = [(v, n) for v, n in zip(values, counts, strict=True) if v is not None]
        best = f"N={max(known, key=lambda vn: (vn[0], -vn[1]))[1]}" if known else "—"
        name = method if len(windows) == 1 else f"{method} (±{window})"
        lines.append(f"| {name} | " + " | ".join(map(_miou, values)) + f" | {best} |")
    return "\n".join(lines)


def plot_frames(rows: Sequence[dict], windows: Sequence[Window], out: Path) -> None:
    """`out/miou_vs_frames.png` and `.pdf`: mIoU against N (log scale), one line per method."""
    from ..report.figure import ReportFigure, new_figure

    fig, axes = new_figure(6.0, 3.6)
    ax = axes[0][0]
    for method, window in dict.fromkeys((r["base_method"], r["window"]) for r in rows):
        mine = sorted(
            (r["n_frames"], r["miou"] or 0.0)
            for r in rows
            if (r["base_method"], r["window"]) == (method, window) and r["n_frames"] is not None
        )
        label = method if len(windows) == 1 else f"{method} (±{window})"
        ax.plot([n for n, _ in mine], [100 * v for _, v in mine], marker="o", label=label)
    counts = sorted({int(r["n_frames"]) for r in rows if r["n_frames"] is not None})
    ax.set_xscale("log", base=2)
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("frames N sent to the model")
    ax.set_ylabel("mIoU (%)")
    ax.set_ylim(bottom=0.0, top=max(1.0, 105 * max([r["miou"] or 0 for r in rows] + [0])))
    ax.legend()
    ReportFigure("miou_vs_frames", "mIoU against frame count", "", "", fig).save(Path(out))
