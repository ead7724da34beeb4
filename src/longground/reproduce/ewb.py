"""ExtremeWhenBench Tables 1, 5, 6 and 7, rebuilt on any benchmark with the single protocol.

The Video-LLM row is the monolithic method (the paper's Qwen3.5-9B runs at N = 768, its native
frame budget, in Tables 2, 6 and 7); the retrieval row is the frame-retrieval baseline with the
configured encoder in place of CLIP ViT-L/14-336, always answering (`force`).
"""

from __future__ import annotations

import json

import numpy as np

from ..sweep import (
    build_sweep_methods,
    parse_windows,
    prepare_out,
    run_sweep,
    score_sweep,
)
from ..sweep.layout import clip_text
from .runs import Context, read_traces
from .table import DASH, Part, TableResult, fraction

VLM = {"n_frames": "768"}
RETRIEVAL = {"force": "true"}
TITLE = "ExtremeWhenBench"

T1_HEADER = ("Model", "Charades", "Ours", "Ratio")
T1_PAPER = (
    ("Qwen3.5-9B", "0.579", "0.110", "5.3×"),
    ("InternVL3.5-8B", "0.359", "0.003", "120×"),
    ("LLaVA-OneVision-7B", "0.226", "0.003", "75×"),
    ("LLaVA-NextVideo-7B", "0.089", "0.001", "89×"),
    ("GPT-5.4 (64f)", "0.299", "0.013", "23×"),
    ("Gemini-2.5-flash (1k f)", "0.308", "0.053", "5.8×"),
    ("Gemini-3.5-flash (auto-fps)", "0.466", "0.115", "4.1×"),
    ("CLIP ViT-L/14-336", "0.332", "0.269", "1.2×"),
)
T5_CHARADES = ("4", "16", "64", "128", "256")
T5_OURS = ("128", "256", "512", "1024", "2048")
T5_PAPER_CHARADES = (
    ("Qwen3.5-9B", ".299", ".514", ".579", ".575", ".557", "N=64"),
    ("InternVL3.5", ".298", ".359", ".335", ".336", ".004†", "N=16"),
    ("LLaVA-OV-7B", ".234", ".206", "OOM", "—", "—", "N=8"),
    ("LLaVA-NextV", ".089", ".075", ".072", "0", "—", "N=4"),
)
T5_PAPER_OURS = (
    ("Qwen3.5-9B", ".022", ".033", ".047", ".068", ".110", "N=2048"),
    ("InternVL3.5", ".003", "0", "—", "—", "—", "sat."),
    ("LLaVA-OV-7B", "0", "—", "—", "—", "—", "sat."),
)
T6_HEADER = ("Hybrid setting", "VLM ctx", "Recall", "mIoU")
T6_ROWS = (
    ("top-1 ±2.5 min", {"k": "1", "half_width_s": "150", "nms_s": "60"}),
    ("top-3 ±1 min (NMS 60 s)", {"k": "3", "half_width_s": "60", "nms_s": "60"}),
    ("top-10 ±1 min", {"k": "10", "half_width_s": "60", "nms_s": "60"}),
)
T6_PAPER = (
    ("CLIP top-1 ±2.5 min", "5 m", "62.8", "0.302"),
    ("CLIP top-3 ±1 min (NMS 60 s)", "6 m", "81.6", "0.354"),
    ("CLIP top-10 ±1 min", "20 m", "96.7", "0.295"),
)
T7_WINDOWS = (("15s", "±15 s"), ("30s", "±0.5 min"), ("2.5m", "±2.5 min"), ("5m", "±5 min"),
              ("10m", "±10 min"), ("20m", "±20 min"), ("full", "Full"))  # fmt: skip
T7_PAPER_HEADER = ("Window", "Clip", "Qwen", "Gemini-3.5", "CLIP")
T7_PAPER = (
    ("±15 s", "30 s", "0.572", "0.578", "0.534"),
    ("±0.5 min", "1 min", "0.541", "0.542", "0.458"),
    ("±2.5 min", "5 min", "0.466", "0.402", "0.387"),
    ("±5 min", "10 min", "0.381", "0.413", "0.358"),
    ("±10 min", "20 min", "0.265", "0.409", "0.331"),
    ("±20 min", "40 min", "0.098", "0.320", "0.300"),
    ("Full", "76 min", "0.053", "0.115", "0.269"),
)


def _miou(ctx: Context, method: str, params: dict[str, str]) -> float:
    return ctx.score(ctx.answers(method, params, single=True), "single")["miou"]


def _table1_column(ctx: Context) -> dict[str, float]:
    return {"monolithic": _miou(ctx, "monolithic", VLM), "retrieval": _miou(ctx, "retrieval",
            RETRIEVAL)}  # fmt: skip


def table1(ctx: Context) -> TableResult:
    """Table 1: mIoU on Charades-STA against ours. The benchmark fills the Charades column
    when it is read as Charades-STA, else Ours; `--reference BENCH` fills the other one, and
    then the Ratio (Charades / Ours)."""
    columns = {ctx.bench_format == "charades": _table1_column(ctx)}
    if ctx.reference is not None:
        columns[ctx.reference.bench_format == "charades"] = _table1_column(ctx.reference)
    charades, ours = columns.get(True), columns.get(False)

    def row(label: str, key: str) -> tuple[str, ...]:
        a, b = (None if c is None else c[key] for c in (charades, ours))
        ratio = f"{a / b:.1f}×" if a is not None and b else DASH
        return (label, fraction(a), fraction(b), ratio)

    rows = (row(ctx.model, "monolithic"), row(ctx.encoder_label, "retrieval"))
    part = Part("mIoU, single protocol", T1_HEADER, rows, T1_PAPER if ctx.published else None)
    notes = ()
    if charades is None or ours is None:
        filled = "Charades" if charades is not None else "Ours"
        notes = (f"this benchmark is read as {ctx.bench_format!r}, so it fills the {filled} "
                 "column; --reference BENCH fills the other one and the Ratio",)  # fmt: skip
    values = {"charades": charades, "ours": ours}
    return TableResult("ewb-table1", f"{TITLE} Table 1", (part,), values, notes)


def _sweep(ctx: Context, name: str, methods: dict[str, dict], windows: str, frames: list[int]):
    """A `longground sweep` inside `DIR/sweeps/NAME` (resumable); returns its scored rows."""
    chosen = parse_windows(windows)
    built, variants = build_sweep_methods(
        list(methods), frames, lambda m, extra: ctx.config_for(m, {**methods[m], **extra}, True)
    )
    settings = {
        "benchmark": str(ctx.bench.resolve()),
        "methods": list(methods),
        "windows": [w.label for w in chosen],
        "configs": {m: json.loads(json.dumps(ctx.config_for(m, p, True).fingerprint(m),
                                             default=str)) for m, p in methods.items()},
    }  # fmt: skip
    settings.update({"frames": frames} if frames else {})
    out = ctx.out / "sweeps" / name
    prepare_out(out, settings, overwrite=False)
    files = run_sweep(ctx.samples, built, chosen, out, ctx.roots)
    return score_sweep(ctx.samples, files, chosen, variants)


def table5(ctx: Context) -> TableResult:
    """Table 5: the monolithic Video-LLM's mIoU against the frame count N, full video."""
    charades = ctx.bench_format == "charades"
    counts = ctx.frames or [int(n) for n in (T5_CHARADES if charades else T5_OURS)]
    rows = _sweep(ctx, "ewb-table5", {"monolithic": {}}, "full", counts)
    by_n = {r["n_frames"]: r["miou"] for r in rows}
    best = max(counts, key=lambda n: (by_n[n], -n))
    ours = ((ctx.model, *(fraction(by_n[n]) for n in counts), f"N={best}"),)
    header = ("N", *map(str, counts), "best")
    paper_counts = T5_CHARADES if charades else T5_OURS
    published = None
    if ctx.published and tuple(map(str, counts)) == paper_counts:
        published = T5_PAPER_CHARADES if charades else T5_PAPER_OURS
    caption = ("Charades-STA" if charades else "Ours") + " mIoU"
    values = {"miou_by_n": {str(n): by_n[n] for n in counts}, "best_n": best}
    return TableResult("ewb-table5", f"{TITLE} Table 5", (Part(caption, header, ours, published),),
                       values)  # fmt: skip


def _covered(windows: list, gt: np.ndarray) -> bool:
    """Whether a GT interval lies inside one of the windows."""
    return any(s <= a and b <= e for s, e in windows for a, b in gt)


def table6(ctx: Context) -> TableResult:
    """Table 6: the hybrid at three retrieval breadths: context, recall of the top-K
    windows, mIoU."""
    positives = {s.qid: s for s in ctx.samples if len(s.gt)}
    rows, values = [], {}
    for label, params in T6_ROWS:
        path = ctx.answers("hybrid", params, single=True, keep=("windows", "union"))
        lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
        traces = dict(zip([r["qid"] for r in lines], read_traces(path), strict=True))
        mine = [traces.get(q, {}) for q in positives]
        ctx_s = [sum(e - s for s, e in t.get("union") or []) for t in mine]
        recall = [_covered(t.get("windows") or [], positives[q].gt.spans) for q, t in
                  zip(positives, mine, strict=True)]  # fmt: skip
        miou = _miou(ctx, "hybrid", params)
        values[label] = {"ctx_s": float(np.mean(ctx_s or [0])), "recall": float(np.mean(recall or
                         [0])), "miou": miou}  # fmt: skip
        row = (f"{ctx.encoder_label} {label}", f"{values[label]['ctx_s'] / 60:.1f} m",
               f"{100 * values[label]['recall']:.1f}", fraction(miou))  # fmt: skip
        rows.append(row)
    part = Part("Retrieve-then-ground, per K", T6_HEADER, tuple(rows),
                T6_PAPER if ctx.published else None)  # fmt: skip
    return TableResult("ewb-table6", f"{TITLE} Table 6", (part,), values)


def table7(ctx: Context) -> TableResult:
    """Table 7: mIoU on GT-centred clips of growing length, Video-LLM against retrieval."""
    windows = ",".join(w for w, _ in T7_WINDOWS)
    rows = _sweep(ctx, "ewb-table7", {"monolithic": VLM, "retrieval": RETRIEVAL}, windows, [])
    by = {(r["method"], r["window"]): r for r in rows}
    ours = []
    for window, label in T7_WINDOWS:
        mono, retr = by[("monolithic", window)], by[("retrieval", window)]
        ours.append((label, clip_text(mono["mean_crop_s"]), fraction(mono["miou"]),
                     fraction(retr["miou"])))  # fmt: skip
    header = ("Window", "Clip", ctx.model, ctx.encoder_label)
    values = {f"{m}/{w}": r["miou"] for (m, w), r in by.items()}
    parts = [Part("Window-clipping sweep (this run)", header, tuple(ours))]
    if ctx.published:
        parts.append(Part("Window-clipping sweep (published)", T7_PAPER_HEADER, (), T7_PAPER))
    return TableResult("ewb-table7", f"{TITLE} Table 7", tuple(parts), values)
