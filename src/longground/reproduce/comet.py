"""CoMET Tables 2, 5, 6 and 7, rebuilt on any benchmark.

The single-pass baseline is the monolithic method (128 uniform frames, the paper's setting);
CoMET-Agent is the agent method with its Video-LLM roles played by the configured model.
"""

from __future__ import annotations

import json

import numpy as np

from .runs import Context, read_traces
from .table import DASH, NA, Part, TableResult, percent

TITLE = "CoMET"
BASELINE = {"n_frames": "128"}

T2_HEADER = ("Method", "#Size", "MAE↓", "OBO↑", "Pear.↑", "mIoU↑", "R@0.5↑", "F1@0.5↑",
             "Rej.-F1↑", "FPR↓")  # fmt: skip
_CANNOT = ("Cannot Follow Instruction", *[DASH] * 7)
T2_PAPER = tuple(
    (name, size, *cells.split()) if isinstance(cells, str) else (name, size, *cells)
    for name, size, cells in (
        ("GPT-5", "–", "3.2 56.8 9.0 9.7 9.5 10.1 60.6 5.3"),
        ("Gemini 2.5 Pro", "–", "3.3 53.6 4.8 10.8 9.9 10.1 60.8 37.3"),
        ("Gemini 3 Flash", "–", "3.4 54.2 6.6 16.5 15.8 14.6 61.5 51.7"),
        ("LLaVA-Video", "7B", "3.5 55.3 2.4 0.7 0.3 0.4 48.9 58.5"),
        ("LLaVA-OV1.5", "7B", "3.7 47.7 3.9 0.3 0.2 0.2 9.3 2.6"),
        ("LongVILA-R1", "7B", "5.7 38.2 11.1 10.8 7.6 4.6 5.6 97.1"),
        ("MiMO-VL", "7B", "3.8 48.5 -1.3 0.3 0.1 0.1 8.8 3.8"),
        ("InternVL3.5", "8B", "3.6 52.3 3.2 1.9 1.7 1.1 64.7 16.8"),
        ("Eagle2.5", "8B", "3.9 48.8 1.0 2.1 0.9 0.7 39.9 14.6"),
        ("Qwen3-VL", "8.3B", "4.8 51.7 9.8 5.1 3.9 3.4 52.1 5.3"),
        ("Qwen3-VL", "30B", "3.6 51.5 3.4 3.3 3.0 3.1 47.2 5.9"),
        ("InternVL3.5", "38B", "4.0 48.3 13.4 2.6 1.8 1.3 40.3 9.1"),
        ("VideoMind", "7B", "4.4 14.8 -0.5 7.6 4.8 2.3 1.2 99.4"),
        ("Vgent (Qwen2.5-VL)", "7B", _CANNOT),
        ("T∗ (GPT-4o)", "–", _CANNOT),
        ("VideoARM (GPT-4.1&o3)", "–", "3.6 52.1 14.5 13.5 12.8 13.0 61.0 9.5"),
        ("TRACE", "7B", "3.2 60.9 1.0 4.0 3.3 3.8 2.5 98.8"),
        ("DisTime", "7B", "3.3 60.0 -0.6 2.7 0.5 0.5 12.1 93.5"),
        ("TimeLens", "7B", "3.3 60.7 0.0 6.2 5.0 5.4 0.0 100.0"),
        ("LITA", "13B", "3.7 58.4 0.2 1.8 0.4 0.4 1.7 99.1"),
        ("Ours (Qwen3-VL)", "8.6B", "3.9 54.5 11.0 9.2 8.5 8.8 57.4 8.0"),
        ("Ours (GPT-5)", "–", "2.8 61.4 13.7 17.5 17.6 16.2 66.5 6.4"),
        ("Ours (Gemini 3 Flash)", "–", "2.7 62.0 12.0 19.3 19.5 19.0 68.1 5.8"),
    )
)
T5_HEADER = ("Method", "Sup", "Charades-STA R@0.5↑", "Charades-STA mIoU↑",
             "ActivityNet-Captions R@0.5↑", "ActivityNet-Captions mIoU↑")  # fmt: skip
T5_PAPER = (
    ("VTimeLLM", "FS", "34.3", "34.6", "29.5", "31.4"),
    ("TRACE", "FS", "61.7", "–", "37.7", "39.0"),
    ("Momentor", "ZS", "26.6", "28.5", "23.0", "29.3"),
    ("ChatVTG", "ZS", "33.0", "34.9", "22.5", "27.2"),
    ("TimeChat", "ZS", "32.2", "–", "–", "–"),
    ("InternVideo2.5", "ZS", "43.3", "41.7", "–", "–"),
    ("TimeMarker", "ZS", "51.9", "48.4", "50.7", "49.5"),
    ("DisTime (Llava-OV)", "ZS", "52.0", "47.4", "34.3", "37.1"),
    ("HiTeA (Qwen2.5-VL)", "ZS", "48.5", "46.3", "31.1", "37.9"),
    ("CoMET-Agent (Qwen2.5-VL)", "ZS", "56.2", "50.1", "40.9", "41.6"),
)
T6_HEADER = ("Variant", "Pearson↑", "F1@0.5↑", "Rej.-F1↑")
T6_VARIANTS = (
    ("w/o Adaptive HP Configuration", {"profile": "medium"}),
    ("w/o Temporal Graph (flat segm.)", {"graph": "false"}),
    ("w/o Iterative Verification", {"iterative": "false"}),
    ("w/o Global Memory Bank", {"memory_bank": "false"}),
)
T6_PAPER = (
    ("Qwen3-VL 7B (baseline)", "4.8", "3.4", "52.1"),
    ("w/o Adaptive HP Configuration", "9.2", "7.5", "56.3"),
    ("w/o Temporal Graph (flat segm.)", "7.7", "6.5", "54.9"),
    ("w/o Iterative Verification", "6.2", "4.2", "52.1"),
    ("w/o Global Memory Bank", "6.0", "4.0", "53.8"),
    ("CoMET-Agent (Qwen3-VL 8B)", "11.0", "8.8", "57.4"),
)
T7A_HEADER = ("Method", "Time (s)↓")
T7A_PAPER = (
    ("with Qwen2.5-VL as backbone", ""),
    ("Vgent", "78.22"),
    ("CoMET-Agent (ours)", "27.5"),
    ("with GPT4o as backbone", ""),
    ("T∗", "178.3"),
    ("CoMET-Agent (ours)", "21.3"),
)
T7B_HEADER = ("Stage", "Time (s)")
T7_STAGES = (("Planner (Step 1)", "planner"), ("Graph Construction (Step 2)", "graph"),
             ("Iterative Verification (Step 3)", "verification"),
             ("Aggregator (Step 4)", "aggregator"), ("Total", "total"))  # fmt: skip
T7B_PAPER = (("Planner (Step 1)", "6.85"), ("Graph Construction (Step 2)", "6.25"),
             ("Iterative Verification (Step 3)", "12.92"), ("Aggregator (Step 4)", "1.52"),
             ("Total", "27.54"))  # fmt: skip


def _comet(ctx: Context, method: str, params: dict[str, str]) -> dict:
    return ctx.score(ctx.answers(method, params, single=False), "comet")


def pearson_cell(m: dict) -> str:
    """Pearson's r as CoMET prints it, or "n/a" when it is undefined (the metrics say 0.0).

    >>> pearson_cell({"pearson": 0.0, "pearson_undefined": True}), pearson_cell({"pearson": 0.11})
    ('n/a', '11.0')
    """
    return NA if m.get("pearson_undefined") else percent(m["pearson"])


def pearson_notes(values: dict[str, dict]) -> tuple[str, ...]:
    """A note for each row whose Pearson's r is "n/a", saying why."""
    return tuple(
        f"{label}: Pearson's r is n/a, undefined because "
        f"{m.get('pearson_reason', 'a count does not vary')} (a correlation needs both the "
        "predicted and the GT counts to vary)"
        for label, m in values.items()
        if m.get("pearson_undefined")
    )


def _t2_row(label: str, m: dict) -> tuple[str, ...]:
    mae = DASH if m["mae"] is None else f"{m['mae']:.1f}"
    keys = ("miou", "recall@0.5", "f1@0.5", "rej_f1", "fpr")
    return (label, "–", mae, percent(m["obo"]), pearson_cell(m), *(percent(m[k]) for k in keys))


def table2(ctx: Context) -> TableResult:
    """Table 2: counting, grounding and negative-query metrics, single pass against the
    agent on the same model."""
    base, agent = _comet(ctx, "monolithic", BASELINE), _comet(ctx, "agent", {})
    labels = {ctx.model: base, f"Ours ({ctx.model})": agent}
    rows = tuple(_t2_row(label, m) for label, m in labels.items())
    part = Part("Main results (comet protocol)", T2_HEADER, rows,
                T2_PAPER if ctx.published else None)  # fmt: skip
    return TableResult("comet-table2", f"{TITLE} Table 2", (part,),
                       {"monolithic": base, "agent": agent}, pearson_notes(labels))  # fmt: skip


def table5(ctx: Context) -> TableResult:
    """Table 5: the agent as a single-moment grounder (R@0.5, mIoU); the benchmark fills the
    ActivityNet-Captions columns when it is read as ActivityNet, else the Charades-STA ones."""
    m = ctx.score(ctx.answers("agent", {}, single=True), "single")
    cells = (percent(m["recall@0.5"]), percent(m["miou"]))
    activitynet = ctx.bench_format == "activitynet"
    row = (f"CoMET-Agent ({ctx.model})", "ZS",
           *((DASH, DASH, *cells) if activitynet else (*cells, DASH, DASH)))  # fmt: skip
    notes = ()
    if ctx.bench_format not in ("charades", "activitynet"):
        notes = (f"the benchmark is read as {ctx.bench_format!r}; its numbers are shown in the "
                 "Charades-STA columns",)  # fmt: skip
    part = Part("Single-moment grounding", T5_HEADER, (row,), T5_PAPER if ctx.published else None)
    return TableResult("comet-table5", f"{TITLE} Table 5", (part,), {"agent": m}, notes)


def table6(ctx: Context) -> TableResult:
    """Table 6: the agent with one component switched off at a time."""
    runs = [(f"{ctx.model} (baseline)", "monolithic", BASELINE)]
    runs += [(label, "agent", params) for label, params in T6_VARIANTS]
    runs.append((f"CoMET-Agent ({ctx.model})", "agent", {}))
    rows, values = [], {}
    for label, method, params in runs:
        m = values[label] = _comet(ctx, method, params)
        rows.append((label, pearson_cell(m), percent(m["f1@0.5"]), percent(m["rej_f1"])))
    part = Part("Ablations (comet protocol)", T6_HEADER, tuple(rows),
                T6_PAPER if ctx.published else None)  # fmt: skip
    return TableResult("comet-table6", f"{TITLE} Table 6", (part,), values, pearson_notes(values))


def table7(ctx: Context) -> TableResult:
    """Table 7: the agent's time per query, and per step (means over the answered queries)."""
    path = ctx.answers("agent", {}, single=False, keep=("stage_times_s",))
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    per_query = [r["timings"]["ground_s"] for r in lines if "error" not in r]
    stages = [t.get("stage_times_s") or {} for t in read_traces(path)]
    mean = {key: float(np.mean([s.get(key, 0.0) for s in stages] or [0.0]))
            for _, key in T7_STAGES}  # fmt: skip
    query_s = float(np.mean(per_query)) if per_query else None
    a_rows = ((f"CoMET-Agent ({ctx.model})", DASH if query_s is None else f"{query_s:.2f}"),)
    b_rows = tuple((label, f"{mean[key]:.2f}") for label, key in T7_STAGES)
    parts = (
        Part("(a) Comparison with the agent baseline", T7A_HEADER, a_rows,
             T7A_PAPER if ctx.published else None),
        Part("(b) Step-by-step profiling", T7B_HEADER, b_rows,
             T7B_PAPER if ctx.published else None),
    )  # fmt: skip
    notes = ("times are wall-clock seconds of this run; answers read back from the response "
             "cache cost almost nothing, so time a run with a fresh --cache-dir",)  # fmt: skip
    return TableResult("comet-table7", f"{TITLE} Table 7", parts,
                       {"per_query_s": query_s, "stages_s": mean}, notes)  # fmt: skip
