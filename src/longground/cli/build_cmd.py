"""`longground build`: make a benchmark from your own videos (CoMET-Bench and ExtremeWhenBench
construction pipelines), plus the attribute sampler and the two-annotator agreement check."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..curate.attributes import AttributeSampler
from ..curate.comet import CometSettings
from ..curate.ewb_captions import TOP_CLASSES
from ..curate.ewb_run import EwbSettings
from ..errors import UserError
from ..llm.cache import CACHE_FILE
from ..llm.config import LLMConfig
from ..outputs import check_input_file
from . import options as opt
from .checks import check_cache_root, check_output_folder
from .main import app

# Every default below is read from the settings it fills (CometSettings, EwbSettings, ...).
COMET, EWB = CometSettings(), EwbSettings()

build_app = typer.Typer(
    no_args_is_help=True,
    help="Build a benchmark from your own videos (see docs/build.md).",
    rich_markup_mode=None,
)
app.add_typer(build_app, name="build")

Overwrite = typer.Option(
    False, "--overwrite", help="Use --out even if it holds other outputs (ours are replaced)."
)


@build_app.command("attributes")
def attributes(
    count: int = typer.Option(..., "--count", min=0, help="Number of combinations to draw."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed, the same lines."),
    mu: float = typer.Option(AttributeSampler.mu, "--mu", help="Most likely combination size."),
    alpha: float = typer.Option(
        AttributeSampler.alpha, "--alpha", help="Sharpness of p(k) ~ exp(-alpha (k-mu)^2)."
    ),
) -> None:
    """Draw CoMET attribute combinations, one JSON list per line."""
    from ..curate.attributes import check_count, check_seed

    check_count(count)
    check_seed(seed)
    for combination in AttributeSampler(mu=mu, alpha=alpha).draw(count, seed):
        typer.echo(json.dumps(combination))


@build_app.command("agree")
def agree(
    first: Path = typer.Argument(
        ..., help="First annotator's benchmark JSONL (kept on agreement)."
    ),
    second: Path = typer.Argument(..., help="Second annotator's benchmark JSONL."),
    out: Path = typer.Option(..., "--out", help="Folder for final.jsonl, adjudicate.jsonl, stats."),
    candidates: Path | None = typer.Option(
        None, "--candidates", help="The model's proposals, to count the annotator's edits."
    ),
    overwrite: bool = Overwrite,
) -> None:
    """Split queries into agreed (final.jsonl) and disputed (adjudicate.jsonl); print Table 3."""
    from ..curate import adjudicate
    from ..curate.outdir import claim
    from ..curate.table3 import format_table

    check_output_folder(out, "--out", inputs=[first, second, candidates], files=AGREE_FILES)
    a, b = adjudicate.load(first), adjudicate.load(second)
    proposals = adjudicate.load(candidates) if candidates is not None else None
    claim(out, "agree", overwrite=overwrite, resumable=False)
    final, disputed, stats = adjudicate.split(a, b)
    if proposals is not None:
        stats.query_edits, stats.interval_edits = adjudicate.edit_counts(proposals, a)
    from ..formats import write_samples
    from ..formats.lines import write_jsonl

    write_samples(out / "final.jsonl", final)
    write_jsonl(out / "adjudicate.jsonl", disputed)
    write_jsonl(out / "stats.jsonl", [stats.to_dict()])
    typer.echo(format_table(stats))
    typer.echo(f"wrote {len(final)} agreed queries to {out / 'final.jsonl'} and "
               f"{len(disputed)} to {out / 'adjudicate.jsonl'}")  # fmt: skip


def _llm_config(llm, base_url, model, api_key, concurrency: int, video_input: str = "frames"):
    """The model settings, checked (a model must be named) before anything is written."""
    import os

    from ..llm.factory import resolve_model

    cfg = LLMConfig(
        backend=llm or "openai",
        model=model or os.environ.get("LONGGROUND_LLM_MODEL", ""),
        base_url=opt.join_urls(base_url),
        api_key=api_key,
        concurrency=concurrency,
        video_input=video_input,
    )
    resolve_model(cfg)
    return cfg


def _check_model_options(video_input: str, stages, models, effort, efforts) -> None:
    """What the model options say, checked before any work, a dry run's too: the video
    input mode, the per-stage assignments and the reasoning efforts (a model must be named
    for a real run only)."""
    from ..curate.stage_models import StageClients, parse_assignments
    from ..llm.video_input import VideoInput

    VideoInput(video_input)
    parse_assignments(models, "--stage-model", stages)
    by_stage = parse_assignments(efforts, "--stage-effort", stages)
    StageClients(LLMConfig(reasoning_effort=effort), lambda cfg: None, efforts=by_stage)


def _stage_clients(cfg, out: Path, cache_dir: Path | None, stages, models, effort, efforts,
                   batch: bool, poll_s: float):  # fmt: skip
    """A client per stage (`--stage-model`, `--reasoning-effort`, `--stage-effort`), optionally
    submitting batches (`--batch`); all checked before anything is written."""
    from dataclasses import replace

    from ..curate.stage_models import BatchSettings, StageClients, parse_assignments
    from ..llm.cache import CACHE_FILE
    from ..llm.factory import make_chat_client
    from ..video import mosaic

    return StageClients(
        replace(cfg, reasoning_effort=effort),
        lambda c: make_chat_client(c, (cache_dir or out) / CACHE_FILE, tile=mosaic),
        parse_assignments(models, "--stage-model", stages),
        parse_assignments(efforts, "--stage-effort", stages),
        BatchSettings(poll_s=poll_s) if batch else None,
    )


StageModel = typer.Option(None, "--stage-model", help="STAGE=MODEL for one stage (p0..p5, or "
                          "a stage name); repeat. Other stages use --model.")  # fmt: skip
ReasoningEffort = typer.Option(None, "--reasoning-effort", help="reasoning_effort sent with "
                               "every request (minimal, low, medium, high).")  # fmt: skip
StageEffort = typer.Option(None, "--stage-effort", help="STAGE=EFFORT for one stage; repeat.")
Batch = typer.Option(False, "--batch", help="Submit each stage's requests as one batch "
                     "(files + batches API) and wait for it; resumable.")  # fmt: skip
BatchPoll = typer.Option(30.0, "--batch-poll-s", min=0.0, max=86400.0,
                         help="Seconds between batch checks (0 to 86400).")  # fmt: skip

CacheDir = typer.Option(
    None, "--cache-dir", help="Where model answers are cached (default: the --out folder)."
)


Concurrency = typer.Option(
    LLMConfig.concurrency, "--concurrency", min=1, max=256, help="Requests in flight at once."
)
RetryMalformed = typer.Option(
    False,
    "--retry-malformed",
    help="On resume, ask the model again (past the cache) only the replies that could not be read.",
)
# What the pipelines write into --out: none of these may be one of the inputs.
AGREE_FILES = ("final.jsonl", "adjudicate.jsonl", "stats.jsonl", "build.json")
PIPELINE_FILES = ("*.jsonl", "*.json", CACHE_FILE)


def _check_outputs(out: Path, cache_dir: Path | None, videos: list[Path]) -> None:
    """The videos, the pipeline's output folder and its answer cache's folder, before any
    work (a dry run's too)."""
    for video in videos:
        check_input_file(video)
    check_output_folder(out, "--out", inputs=videos, files=PIPELINE_FILES)
    if cache_dir is not None:  # checked like every --cache-dir (created when missing)
        check_cache_root(cache_dir)


def _finish(summary_text: str, out: Path) -> None:
    """Print the summary; exit 2 (after it) when a stage could not read any reply."""
    from ..curate.stage import unreadable_stage

    typer.echo(summary_text)
    manifests = [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*.manifest.json")]
    problem = unreadable_stage(manifests)
    if problem is not None:
        raise UserError(problem)


DryRun = typer.Option(
    False,
    "--dry-run",
    help="Print the prompts, number of calls and estimated tokens; send nothing.",
)


@build_app.command("comet")
def comet(
    videos: list[Path] = typer.Argument(..., help="Video files."),
    out: Path = typer.Option(..., "--out", help="Output folder (resumed when it is this one's)."),
    combinations: int = typer.Option(
        COMET.combinations, "--combinations", help="Candidate queries per video."
    ),
    seed: int = typer.Option(COMET.seed, "--seed", help="Attribute sampler seed."),
    mu: float = typer.Option(COMET.mu, "--mu", help="Most likely number of attributes per query."),
    alpha: float = typer.Option(COMET.alpha, "--alpha", help="Sharpness of the size law."),
    frames: int = typer.Option(COMET.n_frames, "--frames", help="Frames sent per request."),
    short_side: int = typer.Option(
        COMET.short_side, "--short-side", help="Frame size (shorter side, px)."
    ),
    domain: str = typer.Option(COMET.domain, "--domain", help="Domain written into each line."),
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: Path | None = CacheDir,
    concurrency: int = Concurrency,
    video_input: opt.VideoInputMode = "frames",
    dry_run: bool = DryRun,
    overwrite: bool = Overwrite,
    stage_model: list[str] | None = StageModel,
    reasoning_effort: str | None = ReasoningEffort,
    stage_effort: list[str] | None = StageEffort,
    batch: bool = Batch,
    batch_poll_s: float = BatchPoll,
    retry_malformed: bool = RetryMalformed,
) -> None:
    """CoMET-Bench construction: candidate queries, then their intervals, as benchmark JSONL.

    Exit code 0, or 2 when an input or option is unusable or no reply of a stage could be
    read (the records are kept; rerun with --retry-malformed)."""
    from ..curate.comet import check_frames_fit
    from ..curate.comet_run import dry_run_comet, format_summary, run_comet
    from ..curate.outdir import claim

    settings = CometSettings(
        combinations=combinations, seed=seed, mu=mu, alpha=alpha, n_frames=frames,
        short_side=short_side, domain=domain,
    )  # fmt: skip
    from ..curate.stage_models import COMET_STAGES

    check_frames_fit(videos, frames)
    _check_outputs(out, cache_dir, videos)
    _check_model_options(video_input, COMET_STAGES, stage_model, reasoning_effort, stage_effort)
    if dry_run:
        typer.echo(dry_run_comet(videos, settings))
        return

    cfg = _llm_config(llm, base_url, model, api_key, concurrency, video_input)
    client = _stage_clients(cfg, out, cache_dir, COMET_STAGES, stage_model, reasoning_effort,
                            stage_effort, batch, batch_poll_s)  # fmt: skip
    claim(out, "comet", overwrite=overwrite)
    try:
        summary = run_comet(videos, out, client, settings, overwrite=overwrite,
                            concurrency=concurrency, retry_malformed=retry_malformed)  # fmt: skip
    finally:
        client.close()
    typer.echo(f"wrote {out / 'benchmark.jsonl'}")
    _finish(format_summary(summary), out)


@build_app.command("ewb")
def ewb(
    videos: list[Path] = typer.Argument(..., help="Video files."),
    out: Path = typer.Option(..., "--out", help="Output folder (resumed when it is this one's)."),
    captioner: str = typer.Option(
        "label-bridge",
        "--captioner",
        callback=lambda value: value if value == "llm" else opt.known_encoder(value),
        help="P0: an encoder whose top classes caption each frame, or 'llm' (the chat model).",
    ),
    caption_batch: int = typer.Option(
        EWB.caption_batch, "--caption-batch", min=1, help="P0 with 'llm': frames per call."
    ),
    caption_words: int = typer.Option(
        TOP_CLASSES, "--caption-words", min=1, max=100, help="P0: classes per caption."
    ),
    encoder: str = typer.Option(
        EWB.encoder, "--encoder", callback=opt.known_encoder,
        help="P6: the retrieval method's encoder.",
    ),
    chunk_s: float = typer.Option(
        EWB.chunk_s, "--chunk-s", help="P1: seconds of captions per call."
    ),
    cinematic_words: str | None = typer.Option(
        None, "--cinematic-words", help="P4: comma-separated words a question must not use."
    ),
    top_k: int = typer.Option(EWB.top_k, "--top-k", help="P6: retrieval windows."),
    half_width_s: float = typer.Option(
        EWB.half_width_s, "--half-width-s", help="P6: window half-width."
    ),
    nms_s: float = typer.Option(EWB.nms_s, "--nms-s", help="P6: least distance between windows."),
    domain: str = typer.Option(EWB.domain, "--domain", help="Domain written into each line."),
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: Path | None = CacheDir,
    concurrency: int = Concurrency,
    video_input: opt.VideoInputMode = "frames",
    dry_run: bool = DryRun,
    overwrite: bool = Overwrite,
    stage_model: list[str] | None = StageModel,
    reasoning_effort: str | None = ReasoningEffort,
    stage_effort: list[str] | None = StageEffort,
    batch: bool = Batch,
    batch_poll_s: float = BatchPoll,
    retry_malformed: bool = RetryMalformed,
) -> None:
    """ExtremeWhenBench construction P0-P6: benchmark.jsonl plus review.jsonl for a person.

    Exit code 0, or 2 when an input or option is unusable or no reply of a stage could be
    read (the records are kept; rerun with --retry-malformed)."""
    from ..curate.ewb_rules import CINEMATIC_WORDS
    from ..curate.ewb_run import dry_run_ewb, format_ewb_summary, run_ewb
    from ..curate.outdir import claim

    banned = CINEMATIC_WORDS
    if cinematic_words is not None:
        banned = tuple(w.strip() for w in cinematic_words.split(",") if w.strip())
    settings = EwbSettings(
        caption_batch=caption_batch, chunk_s=chunk_s, banned=banned, encoder=encoder,
        top_k=top_k, half_width_s=half_width_s, nms_s=nms_s, domain=domain,
        cache_dir=str(cache_dir) if cache_dir else None,
    )  # fmt: skip
    from ..curate.stage_models import EWB_STAGES

    _check_outputs(out, cache_dir, videos)
    _check_model_options(video_input, EWB_STAGES, stage_model, reasoning_effort, stage_effort)
    if dry_run:
        typer.echo(dry_run_ewb(videos, settings, chat_captions=captioner == "llm"))
        return

    cfg = _llm_config(llm, base_url, model, api_key, concurrency, video_input)
    client = _stage_clients(cfg, out, cache_dir, EWB_STAGES, stage_model, reasoning_effort,
                            stage_effort, batch, batch_poll_s)  # fmt: skip
    claim(out, "ewb", overwrite=overwrite)
    from ..curate.ewb_captions import EncoderCaptioner, imagenet_vocabulary
    from ..encoders import load_encoder

    words = None
    if captioner != "llm":
        encoder = load_encoder(captioner)
        words = EncoderCaptioner(encoder, imagenet_vocabulary(), top=caption_words)
    try:
        summary = run_ewb(videos, out, client, words, settings, overwrite=overwrite,
                          concurrency=concurrency, retry_malformed=retry_malformed)  # fmt: skip
    finally:
        client.close()
    typer.echo(f"wrote {out / 'benchmark.jsonl'} and {out / 'review.jsonl'} (for a person)")
    _finish(format_ewb_summary(summary), out)
