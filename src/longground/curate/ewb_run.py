"""`longground build ewb`: ExtremeWhenBench's P0-P6 (App. B) on your videos.

P0 captions (any `ImageTextEncoder`) -> P1 events from text -> P2 verdicts on 8x8 mosaics ->
P3 within-video dedup -> P4 questions (8-18 words, no cinematic words, ordinals) -> P5
pre-pass (25 s GT cutoff + text screen) and main pass (groups, grids, top 30% with score >= 7)
-> P6 retrieval coverage: covered items to `benchmark.jsonl`, the rest to `review.jsonl`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UserError
from ..formats.canonical import sample_record
from ..formats.lines import write_jsonl
from ..llm.base import ChatClient
from ..moments import Moments
from ..run.journal import write_atomic
from ..samples import Sample
from ..topk import EWB_WINDOWS
from .comet import video_ids
from .ewb_captions import CaptionStage, EncoderCaptioner, captions_by_video, run_captions
from .ewb_questions import PrefilterStage, QuestionStage, ScoreStage
from .ewb_rules import CINEMATIC_WORDS, covered, group_by_gap, keep_top
from .ewb_stages import DedupStage, GroupStage, VerifyStage, drop_duplicates, number_events
from .source import VIDEO_FILES
from .stage import StageResult, run_stage


@dataclass(frozen=True)
class EwbSettings:
    """The pipeline's settings; defaults are the paper's where it gives them."""

    fps: float = 1.0
    caption_batch: int = 1
    chunk_s: float = 600.0
    pad_s: float = 5.0
    banned: tuple[str, ...] = CINEMATIC_WORDS
    max_gt_s: float = 25.0
    group_max: int = 15
    group_gap_s: float = 300.0
    keep_share: float = 0.3
    min_score: float = 7.0
    encoder: str = "label-bridge"
    top_k: int = EWB_WINDOWS.k
    half_width_s: float = EWB_WINDOWS.half_width_s
    nms_s: float = EWB_WINDOWS.nms_s
    domain: str = ""
    cache_dir: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("fps", "chunk_s", "max_gt_s", "group_gap_s", "half_width_s"):
            value = getattr(self, name)
            if not 0 < value <= MAX_SECONDS:  # also refuses nan and inf
                raise UserError(f"{_option(name)} must be in (0, {MAX_SECONDS}], got {value}")
        if not 0 <= self.nms_s <= MAX_SECONDS:
            raise UserError(f"--nms-s must be in [0, {MAX_SECONDS}], got {self.nms_s}")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise UserError(f"--top-k must be in 1..{MAX_TOP_K}, got {self.top_k}")
        if not 1 <= self.caption_batch <= MAX_CAPTION_BATCH:
            raise UserError(
                f"--caption-batch must be in 1..{MAX_CAPTION_BATCH}, got {self.caption_batch}"
            )
        if not 0 < self.keep_share <= 1 or self.group_max < 1:
            raise UserError("keep share must be in (0, 1], group size at least 1")


MAX_SECONDS = 7 * 24 * 3600.0  # a week: longer than any video these pipelines read
MAX_TOP_K = 1000
MAX_CAPTION_BATCH = 64


def _option(name: str) -> str:
    """The command-line option of a setting, for messages.

    >>> _option("half_width_s")
    '--half-width-s'
    """
    return "--" + name.replace("_", "-")


def run_ewb(videos: list[Path], out: Path, client: ChatClient, captioner: EncoderCaptioner | None,
            settings: EwbSettings, *, overwrite: bool = False,
            concurrency: int = 1, retry_malformed: bool = False) -> dict[str, Any]:  # fmt: skip
    """Every stage in turn (each resumable), then the two output files and `summary.json`.
    `captioner` None captions P0 with the chat model instead of an encoder."""

    def stage(s):
        result = run_stage(s, client, out, overwrite=overwrite, concurrency=concurrency,
                           retry_malformed=retry_malformed)  # fmt: skip
        results[s.name] = result
        return result

    results: dict[str, StageResult] = {}
    ids = video_ids(videos)
    if captioner is None:  # P0 with the chat model, as in the paper
        p0 = stage(CaptionStage(ids, settings.fps, settings.caption_batch))
        captions = captions_by_video(p0.records, ids)
    else:
        captions = run_captions(ids, out, captioner, fps=settings.fps, overwrite=overwrite)
    counts: dict[str, Any] = {"p0_captions": {
        "videos": len(captions), "failed": sum(c.input_failed for c in captions)}}  # fmt: skip
    kept = _mine_events(stage, [c.values() for c in captions if c.ok], settings, counts)
    chosen = _questions(stage, kept, settings, counts)
    benchmark, review = _coverage(chosen, settings)
    write_jsonl(out / "benchmark.jsonl", benchmark)
    write_jsonl(out / "review.jsonl", review)
    counts["p6_coverage"] = {"in": len(chosen), "benchmark": len(benchmark), "review": len(review)}
    summary = _summary(counts, results)
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    return summary


def _mine_events(stage, captioned: list[dict], settings: EwbSettings, counts: dict) -> list[dict]:
    """P1-P3: the events that survive verification and dedup."""
    p1 = stage(GroupStage(captioned, settings.chunk_s))
    p2 = stage(VerifyStage(number_events(p1.ok), settings.pad_s))
    events = _verified(p2)
    by_video = _by_video(events)
    p3 = stage(DedupStage(by_video))
    pairs = {r["qid"]: r["pairs"] for r in p3.ok}
    kept = [e for vid, evs in by_video.items() for e in drop_duplicates(evs, pairs.get(vid, []))]
    counts.update({
        "p1_events": {"events": len(number_events(p1.ok))},
        "p2_verify": {"verdicts": dict(Counter(r["verdict"] for r in p2.ok)),
                      "events_out": len(events)},
        "p3_dedup": {"in": len(events), "kept": len(kept)},
    })  # fmt: skip
    return kept


def _questions(stage, kept: list[dict], settings: EwbSettings, counts: dict) -> list[dict]:
    """P4-P5: questions that pass the rules, the cutoff, the pre-pass and the scoring."""
    p4 = stage(QuestionStage(kept, settings.banned))
    items = [r for r in p4.ok if not r["rejected"]]
    short = [q for q in items if q["end_s"] - q["start_s"] <= settings.max_gt_s]
    pre = stage(PrefilterStage(_by_video(short)))
    drops = {r["qid"]: r["drop"] for r in pre.ok}
    screened = [q for vid, qs in _by_video(short).items() for i, q in enumerate(qs)
                if str(i + 1) not in drops.get(vid, {})]  # fmt: skip
    groups = _groups(screened, settings)
    chosen, histogram = _choose(groups, stage(ScoreStage(groups)), settings)
    counts.update({
        "p4_questions": {"in": len(kept), "kept": len(items),
                         "rejected_by_rule": sum(1 for r in p4.ok if r["rejected"])},
        "p5_prefilter": {"in": len(items), "over_gt_cutoff": len(items) - len(short),
                         "dropped_by_model": len(short) - len(screened), "kept": len(screened)},
        "p5_score": {"groups": len(groups), "kept": len(chosen), "score_histogram": histogram},
    })  # fmt: skip
    return chosen


def _by_video(items: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for item in items:
        out.setdefault(item["video_id"], []).append(item)
    return out


def _verified(p2: StageResult) -> list[dict]:
    """P2's output events; a split's two parts get ids `ID.1`, `ID.2`."""
    out = []
    for r in p2.ok:
        base = {k: r[k] for k in ("video", "video_id", "duration_s")}
        many = len(r["events"]) > 1
        for j, e in enumerate(r["events"], start=1):
            out.append({**base, **e, "id": f"{r['qid']}.{j}" if many else r["qid"],
                        "verdict": r["verdict"]})  # fmt: skip
    return out


def _groups(items: list[dict], settings: EwbSettings) -> list[tuple[str, list[dict]]]:
    groups = []
    for vid, qs in _by_video(items).items():
        starts = np.array([q["start_s"] for q in qs])
        for n, idx in enumerate(group_by_gap(starts, settings.group_max, settings.group_gap_s)):
            groups.append((f"{vid}-g{n}", [qs[i] for i in idx]))
    return groups


def _choose(groups, p5: StageResult, settings: EwbSettings) -> tuple[list[dict], dict]:
    scored = {r["qid"]: r["scores"] for r in p5.ok}
    chosen, histogram = [], Counter()
    for key, items in groups:
        scores = [scored.get(key, {}).get(q["id"], 0.0) for q in items]
        for i in keep_top(scores, settings.keep_share, settings.min_score):
            chosen.append({**items[i], "score": scores[i]})
            histogram[str(int(scores[i]))] += 1
    return chosen, dict(sorted(histogram.items(), key=lambda kv: int(kv[0])))


def _coverage(chosen: list[dict], settings: EwbSettings) -> tuple[list[dict], list[dict]]:
    """P6: split items by whether the retrieval method's top-k windows hold their GT."""
    from ..methods.base import MethodConfig
    from ..methods.curves import top_k_windows
    from ..methods.retrieval import frame_scores

    cache_dir = Path(settings.cache_dir) if settings.cache_dir else None
    config = MethodConfig(encoder=settings.encoder, fps=settings.fps, cache_dir=cache_dir)
    benchmark, review = [], []
    for q in chosen:
        times_s, scores, duration_s = frame_scores(Path(q["video"]), q["question"], config)
        windows = top_k_windows(np.asarray(times_s), np.asarray(scores), k=settings.top_k,
                                half_width_s=settings.half_width_s, nms_s=settings.nms_s,
                                duration_s=duration_s)  # fmt: skip
        gt = Moments.from_list([[q["start_s"], q["end_s"]]])
        sample = Sample(q["id"], q["video"], float(q["duration_s"]), q["question"], gt,
                        domain=settings.domain)  # fmt: skip
        line = sample_record(sample, {"event": q["event"], "score": q["score"]})
        if covered((q["start_s"], q["end_s"]), windows.spans):
            benchmark.append(line)
        else:
            review.append(
                {
                    **line,
                    "retrieval_windows": windows.to_list(),
                    "reason": f"GT not inside any top-{settings.top_k} retrieval window",
                }
            )
    return benchmark, review


def _summary(counts: dict, results: dict[str, StageResult]) -> dict:
    order = list(dict.fromkeys(["p0_captions", *results, "p6_coverage"]))
    counts = {name: counts[name] for name in order}
    for name, result in results.items():
        m = result.manifest
        counts[name].update({**{f"calls_{k}": v for k, v in m["counts"].items()}, **m["usage"],
                             "requests": m["session"]["requests"]})  # fmt: skip
    total = sum(r.manifest["usage"]["cost_usd"] for r in results.values())
    return {"stages": counts, "cost_usd": total}


def format_ewb_summary(summary: dict) -> str:
    """One line per stage: what came in and out, its calls, tokens and cost.

    >>> print(format_ewb_summary({"cost_usd": 0.5, "stages": {"p3_dedup": {"in": 4, "kept": 3,
    ...     "calls_items": 1, "calls_ok": 1, "calls_parse_failed": 0, "calls_input_failed": 0,
    ...     "prompt_tokens": 900, "completion_tokens": 20, "cost_usd": 0.5, "requests": 1}}}))
    p3_dedup: in 4, kept 3; 1 calls (1 ok, 0 malformed, 0 input errors), 900 + 20 tokens, $0.5000
    total cost $0.5000
    """
    lines = []
    for name, c in summary["stages"].items():
        shown = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in c.items()
                          if not k.startswith("calls_") and k not in _USAGE_KEYS)  # fmt: skip
        if "calls_items" in c:
            shown += (
                f"; {c['calls_items']} calls ({c['calls_ok']} ok, {c['calls_parse_failed']} "
                f"malformed, {c['calls_input_failed']} input errors), {c['prompt_tokens']:,} + "
                f"{c['completion_tokens']:,} tokens, ${c['cost_usd']:.4f}"
            )
        lines.append(f"{name}: {shown}")
    lines.append(f"total cost ${summary['cost_usd']:.4f}")
    return "\n".join(lines)


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "cost_usd", "requests")


def ewb_settings_dict(settings: EwbSettings) -> dict:
    return {k: v for k, v in asdict(settings).items() if k != "cache_dir"}


def dry_run_ewb(videos: list[Path], settings: EwbSettings, show_prompts: bool = True,
                chat_captions: bool = False) -> str:  # fmt: skip
    """What each stage would ask, from the videos' durations alone (nothing is captioned)."""
    from .estimate import image_tokens, text_tokens
    from .prompts import build_prompt, prompt_note

    lines, p1_calls, seconds = [], 0, 0.0
    for vid, path in video_ids(videos).items():
        try:
            duration_s = VIDEO_FILES.duration_s(path)
        except UserError as exc:
            lines.append(f"p0_captions: input error: {vid}: {exc}")
            continue
        p1_calls += max(1, int(np.ceil(duration_s / settings.chunk_s)))
        seconds += duration_s
    caption_tokens = int(seconds * settings.fps * 12)  # ~12 tokens per caption line at most
    mosaic = image_tokens(8 * 96, 8 * 170)
    frames = int(seconds * settings.fps)
    p0 = (f"{-(-frames // settings.caption_batch):,} calls to the chat model, "
          f"{settings.caption_batch} frame(s) each" if chat_captions
          else "captioned locally by the --captioner encoder, no model calls")  # fmt: skip
    lines += [
        f"stage p0_captions: {len(videos)} videos, {frames:,} frames, {p0}",
        f"stage p1_events: {p1_calls} calls, ~{caption_tokens + p1_calls * 150:,} prompt tokens",
        f"stage p2_verify: one call per P1 event, one 8x8 mosaic each (~{mosaic:,} image tokens)",
        f"stage p3_dedup: at most {len(videos)} calls (one per video with two or more events)",
        "stage p4_questions: one call per event kept by P3 (text only, ~200 tokens each)",
        f"stage p5_prefilter: at most {len(videos)} calls (text only)",
        f"stage p5_score: one call per group of <= {settings.group_max} questions, up to 15 "
        f"mosaics each (~{image_tokens(8 * 64, 8 * 114):,} image tokens per mosaic)",
        "stage p6_coverage: no model calls (retrieval with the encoder)",
    ]
    if show_prompts:
        for name in ("build_ewb_group", "build_ewb_verify", "build_ewb_dedup",
                     "build_ewb_question", "build_ewb_prefilter", "build_ewb_score"):  # fmt: skip
            note = prompt_note(name).splitlines()[0]
            lines += [f"--- {name}: {note}", _template(build_prompt, name), ""]
    lines.append(f"~{text_tokens('x' * 4 * caption_tokens):,} caption tokens in all")
    return "\n".join(lines)


def _template(build_prompt, name: str) -> str:
    """A prompt with its fields left as `<field>`, for the dry run."""
    import string

    from ..llm.prompts import prompt_text

    fields = {m.group("named") or m.group("braced") for m in
              string.Template.pattern.finditer(prompt_text(name))} - {None}  # fmt: skip
    return build_prompt(name, **{f: f"<{f}>" for f in fields}).rstrip()
