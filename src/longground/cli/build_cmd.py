"""`longground build`: make a benchmark from your own videos (CoMET-Bench and ExtremeWhenBench
construction pipelines), plus the attribute sampler and the two-annotator agreement check."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from . import options as opt
from .main import app

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
    mu: float = typer.Option(2.5, "--mu", help="Most likely combination size."),
    alpha: float = typer.Option(0.9, "--alpha", help="Sharpness of p(k) ~ exp(-alpha (k-mu)^2)."),
) -> None:
    """Draw CoMET attribute combinations, one JSON list per line."""
    from ..build.attributes import AttributeSampler

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
    from ..build.outdir import claim
    from ..build.table3 import format_table
    from ..curate import adjudicate

    a, b = adjudicate.load(first), adjudicate.load(second)
    proposals = adjudicate.load(candidates) if candidates is not None else None
    claim(out, "agree", overwrite=overwrite, resumable=False)
    final, disputed, stats = adjudicate.split(a, b)
    if proposals is not None:
        stats.query_edits, stats.interval_edits = adjudicate.edit_counts(proposals, a)
    from ..formats.canonical import sample_record

    adjudicate.write_jsonl(out / "final.jsonl", [sample_record(s) for s in final])
    adjudicate.write_jsonl(out / "adjudicate.jsonl", disputed)
    adjudicate.write_jsonl(out / "stats.jsonl", [stats.to_dict()])
    typer.echo(format_table(stats))
    typer.echo(f"wrote {len(final)} agreed queries to {out / 'final.jsonl'} and "
               f"{len(disputed)} to {out / 'adjudicate.jsonl'}")  # fmt: skip


def _llm_config(llm, base_url, model, api_key, concurrency: int):
    """The model settings, checked (a model must be named) before anything is written."""
    import os

    from ..llm.config import LLMConfig
    from ..llm.factory import resolve_model

    cfg = LLMConfig(
        backend=llm or "openai",
        model=model or os.environ.get("LONGGROUND_LLM_MODEL", ""),
        base_url=opt.join_urls(base_url),
        api_key=api_key,
        concurrency=concurrency,
    )
    resolve_model(cfg)
    return cfg


def _client(cfg, out: Path, cache_dir: Path | None):
    """The cached chat client; answers are cached in `out` unless --cache-dir says."""
    from ..llm.cache import CACHE_FILE
    from ..llm.factory import make_chat_client

    return make_chat_client(cfg, (cache_dir or out) / CACHE_FILE)


CacheDir = typer.Option(
    None, "--cache-dir", help="Where model answers are cached (default: the --out folder)."
)


Concurrency = typer.Option(4, "--concurrency", min=1, help="Requests in flight at once.")
DryRun = typer.Option(
    False,
    "--dry-run",
    help="Print the prompts, number of calls and estimated tokens; send nothing.",
)


@build_app.command("comet")
def comet(
    videos: list[Path] = typer.Argument(..., help="Video files."),
    out: Path = typer.Option(..., "--out", help="Output folder (resumed when it is this one's)."),
    combinations: int = typer.Option(5, "--combinations", help="Candidate queries per video."),
    seed: int = typer.Option(0, "--seed", help="Attribute sampler seed."),
    mu: float = typer.Option(2.5, "--mu", help="Most likely number of attributes per query."),
    alpha: float = typer.Option(0.9, "--alpha", help="Sharpness of the size law."),
    frames: int = typer.Option(64, "--frames", help="Frames sent per request."),
    short_side: int = typer.Option(336, "--short-side", help="Frame size (shorter side, px)."),
    domain: str = typer.Option("", "--domain", help="Domain written into each line."),
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: Path | None = CacheDir,
    concurrency: int = Concurrency,
    dry_run: bool = DryRun,
    overwrite: bool = Overwrite,
) -> None:
    """CoMET-Bench construction: candidate queries, then their intervals, as benchmark JSONL."""
    from ..build.comet import CometSettings
    from ..build.comet_run import dry_run_comet, format_summary, run_comet
    from ..build.outdir import claim

    settings = CometSettings(
        combinations=combinations, seed=seed, mu=mu, alpha=alpha, n_frames=frames,
        short_side=short_side, domain=domain,
    )  # fmt: skip
    if dry_run:
        typer.echo(dry_run_comet(videos, settings))
        return
    cfg = _llm_config(llm, base_url, model, api_key, concurrency)
    claim(out, "comet", overwrite=overwrite)
    client = _client(cfg, out, cache_dir)
    try:
        summary = run_comet(videos, out, client, settings, overwrite=overwrite,
                            concurrency=concurrency)  # fmt: skip
    finally:
        client.close()
    typer.echo(format_summary(summary))
    typer.echo(f"wrote {out / 'benchmark.jsonl'}")


@build_app.command("ewb")
def ewb(
    videos: list[Path] = typer.Argument(..., help="Video files."),
    out: Path = typer.Option(..., "--out", help="Output folder (resumed when it is this one's)."),
    captioner: str = typer.Option(
        "label-bridge",
        "--captioner",
        help="P0: an encoder whose top classes caption each frame, or 'llm' (the chat model).",
    ),
    caption_batch: int = typer.Option(
        1, "--caption-batch", min=1, help="P0 with 'llm': frames per call."
    ),
    caption_words: int = typer.Option(3, "--caption-words", min=1, help="P0: classes per caption."),
    encoder: str = typer.Option(
        "label-bridge", "--encoder", help="P6: the retrieval method's encoder."
    ),
    chunk_s: float = typer.Option(600.0, "--chunk-s", help="P1: seconds of captions per call."),
    cinematic_words: str | None = typer.Option(
        None, "--cinematic-words", help="P4: comma-separated words a question must not use."
    ),
    top_k: int = typer.Option(10, "--top-k", help="P6: retrieval windows."),
    half_width_s: float = typer.Option(60.0, "--half-width-s", help="P6: window half-width."),
    nms_s: float = typer.Option(60.0, "--nms-s", help="P6: least distance between windows."),
    domain: str = typer.Option("", "--domain", help="Domain written into each line."),
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: Path | None = CacheDir,
    concurrency: int = Concurrency,
    dry_run: bool = DryRun,
    overwrite: bool = Overwrite,
) -> None:
    """ExtremeWhenBench construction P0-P6: benchmark.jsonl plus review.jsonl for a person."""
    from ..build.ewb_rules import CINEMATIC_WORDS
    from ..build.ewb_run import EwbSettings, dry_run_ewb, format_ewb_summary, run_ewb
    from ..build.outdir import claim

    banned = CINEMATIC_WORDS
    if cinematic_words is not None:
        banned = tuple(w.strip() for w in cinematic_words.split(",") if w.strip())
    settings = EwbSettings(
        caption_batch=caption_batch, chunk_s=chunk_s, banned=banned, encoder=encoder,
        top_k=top_k, half_width_s=half_width_s, nms_s=nms_s, domain=domain,
        cache_dir=str(cache_dir) if cache_dir else None,
    )  # fmt: skip
    if dry_run:
        typer.echo(dry_run_ewb(videos, settings, chat_captions=captioner == "llm"))
        return
    cfg = _llm_config(llm, base_url, model, api_key, concurrency)
    claim(out, "ewb", overwrite=overwrite)
    from ..build.ewb_captions import EncoderCaptioner, imagenet_vocabulary
    from ..encoders import load_encoder

    words = None
    if captioner != "llm":
        encoder = load_encoder(captioner)
        words = EncoderCaptioner(encoder, imagenet_vocabulary(), top=caption_words)
    client = _client(cfg, out, cache_dir)
    try:
        summary = run_ewb(videos, out, client, words, settings, overwrite=overwrite,
                          concurrency=concurrency)  # fmt: skip
    finally:
        client.close()
    typer.echo(format_ewb_summary(summary))
    typer.echo(f"wrote {out / 'benchmark.jsonl'} and {out / 'review.jsonl'} (for a person)")
