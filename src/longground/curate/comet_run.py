"""Running the CoMET pipeline end to end: stages, `benchmark.jsonl`, `summary.json`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..formats.canonical import sample_record
from ..formats.lines import write_jsonl
from ..llm.base import ChatClient
from ..moments import Moments
from ..run.journal import write_atomic
from ..samples import ATTRIBUTE_ORDER, Sample
from .comet import AnnotateStage, CometSettings, QueryStage, video_ids
from .dryrun import format_plan, plan_stage
from .frames import UniformFrames
from .stage import StageResult, run_stage

NEGATIVE_NOTE = "tagged negative, but the model found intervals: the tag was dropped"


def run_comet(
    videos: list[Path],
    out: Path,
    client: ChatClient,
    settings: CometSettings,
    *,
    overwrite: bool = False,
    concurrency: int = 1,
    retry_malformed: bool = False,
) -> dict[str, Any]:
    """Both stages, then `out/benchmark.jsonl` and `out/summary.json`; returns the summary.
    `retry_malformed` asks again only the calls whose earlier reply could not be read."""
    # Calls run in video order; one video per call in flight (plus one) is kept decoded.
    frames = UniformFrames(settings.n_frames, settings.short_side, keep=concurrency + 1)
    queries = run_stage(
        QueryStage(video_ids(videos), settings, frames),
        client, out, overwrite=overwrite, concurrency=concurrency,
        retry_malformed=retry_malformed,
    )  # fmt: skip
    accepted = [r for r in queries.ok if not r["rejected"]]
    annotations = run_stage(
        AnnotateStage(accepted, settings, frames),
        client, out, overwrite=overwrite, concurrency=concurrency,
        retry_malformed=retry_malformed,
    )  # fmt: skip
    lines = benchmark_lines(annotations.ok, settings.domain)
    write_jsonl(out / "benchmark.jsonl", lines)
    summary = _summary(queries, annotations, lines)
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    return summary


def benchmark_lines(records: list[dict], domain: str) -> list[dict]:
    """Canonical benchmark lines from the annotation records that parsed.

    >>> r = {"qid": "v-c0", "video": "/v.mp4", "duration_s": 60.0, "query": "q",
    ...      "intervals": [[1.0, 2.0]], "attributes": ["negative", "static"], "evidence": ["x"]}
    >>> line = benchmark_lines([r], "sports")[0]
    >>> line["attributes"], line["note"] == NEGATIVE_NOTE
    (['static'], True)
    """
    lines = []
    for r in records:
        attributes = set(r["attributes"])
        extra = {"evidence": r.get("evidence", [])}
        if "negative" in attributes and r["intervals"]:
            attributes.discard("negative")
            extra["note"] = NEGATIVE_NOTE
        gt = Moments.from_list(r["intervals"])
        sample = Sample(r["qid"], r["video"], float(r["duration_s"]), r["query"], gt,
                        frozenset(attributes), domain)  # fmt: skip
        lines.append(sample_record(sample, extra, ATTRIBUTE_ORDER))
    return lines


def _summary(queries: StageResult, annotations: StageResult, lines: list[dict]) -> dict:
    stages = {s.manifest["stage"]: s.manifest for s in (queries, annotations)}
    return {
        "stages": {
            name: {**m["counts"], **m["usage"], "requests": m["session"]["requests"]}
            for name, m in stages.items()
        },
        "rejected_spatial": sum(1 for r in queries.ok if r["rejected"]),
        "not_strict_hhmmss": sum(1 for r in annotations.ok if not r["strict_format"]),
        "benchmark": {
            "queries": len(lines),
            "positive": sum(1 for x in lines if x["intervals"]),
            "negative": sum(1 for x in lines if not x["intervals"]),
            "intervals": sum(len(x["intervals"]) for x in lines),
        },
        "cost_usd": sum(m["usage"]["cost_usd"] for m in stages.values()),
    }


def format_summary(summary: dict) -> str:
    """Per-stage counts and cost, then the benchmark's size, for people."""
    lines = []
    for name, s in summary["stages"].items():
        lines.append(
            f"{name}: {s['items']} items, {s['ok']} ok, {s['parse_failed']} malformed replies, "
            f"{s['input_failed']} input errors; {s['prompt_tokens']:,} + "
            f"{s['completion_tokens']:,} tokens, ${s['cost_usd']:.4f}"
        )
    b = summary["benchmark"]
    lines.append(
        f"rejected as spatial counting: {summary['rejected_spatial']}; "
        f"answers not in strict HH:MM:SS: {summary['not_strict_hhmmss']}"
    )
    lines.append(
        f"benchmark: {b['queries']} queries ({b['positive']} positive, {b['negative']} "
        f"negative), {b['intervals']} intervals; total cost ${summary['cost_usd']:.4f}"
    )
    return "\n".join(lines)


def dry_run_comet(videos: list[Path], settings: CometSettings, show_prompts: bool = True) -> str:
    """The query stage planned in full, the annotation stage as an upper bound."""
    frames = UniformFrames(settings.n_frames, settings.short_side)
    plan = plan_stage(QueryStage(video_ids(videos), settings, frames))
    per_call = plan.prompt_tokens // plan.calls if plan.calls else 0
    return "\n".join([
        format_plan(plan, show_prompts),
        f"stage annotations: at most {plan.calls} calls (one per accepted query), "
        f"~{per_call:,} prompt tokens each, <= {settings.annotate_tokens:,} completion tokens "
        "each",
        f"settings: {json.dumps(asdict(settings))}",
    ])  # fmt: skip
