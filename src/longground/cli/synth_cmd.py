"""`longground synth`: generate the synthetic benchmark (videos + JSONL), or just its statistics."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..errors import UserError
from .checks import check_output_folder
from .main import app


def _holds_benchmark(folder: Path) -> bool:
    """True when `folder` has a benchmark file or rendered videos of one."""
    from ..synth.generate import JSONL_NAME, VIDEO_DIR

    videos = folder / VIDEO_DIR
    return (folder / JSONL_NAME).exists() or (videos.is_dir() and any(videos.glob("*.mp4")))


def parse_minutes(text: str | None) -> list[float] | None:
    """`"5,20,45,70"` -> `[5.0, 20.0, 45.0, 70.0]`; None stays None.

    >>> parse_minutes("5, 20.5")
    [5.0, 20.5]
    """
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"--minutes: not a comma-separated list of numbers: {text!r}") from None
    if not values:
        raise UserError("--minutes: give at least one length, e.g. --minutes 5,20,45,70")
    return values


@app.command("synth")
def synth(
    out: Path = typer.Option(None, "--out", help="Output folder (videos/ and benchmark.jsonl)."),
    videos: int = typer.Option(4, "--videos", help="Number of videos."),
    minutes: str = typer.Option(
        None,
        "--minutes",
        help="Video lengths in minutes, used in turn (default 5,20,45,70; 1 with --tiny).",
    ),
    seed: int = typer.Option(
        0, "--seed", help="Random seed: the same seed gives the same benchmark."
    ),
    tiny: bool = typer.Option(False, "--tiny", help="160x90 frames and short shots, for tests."),
    stats: bool = typer.Option(
        False, "--stats", help="Print query types, durations and events per query."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Plan only: print the statistics, write nothing."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace a benchmark that OUT already holds."
    ),
    size: str = typer.Option(
        None, "--size", help="Frame size WIDTHxHEIGHT, e.g. 320x180 (default 480x270)."
    ),
    fps: float = typer.Option(None, "--fps", help="Frame rate, 1 to 60 (default 5)."),
    object_scale: float = typer.Option(
        None, "--object-scale", help="Photo objects' size relative to the default, 0.25 to 1.25."
    ),
    composition: str = typer.Option(
        None, "--composition", help="How photos sit on the backdrop: opaque (default), feathered."
    ),
    av: bool = typer.Option(
        False, "--av", help="The audio-visual benchmark: speech, slides, captions, scoreboard, "
        "faces (queries on speech, text, person; 15-minute videos by default).",
    ),
) -> None:
    """Generate a synthetic long-video benchmark with exact ground truth for every query type."""
    from fractions import Fraction

    from ..synth import JSONL_NAME, generate, plan, rendering_preset, summarize
    from ..synth.rendering import parse_size

    lengths = parse_minutes(minutes)
    if out is not None:  # even for --dry-run: an --out that could not be written is said now
        check_output_folder(out, "--out")
    if av:
        return _synth_av(out, videos, lengths, seed, overwrite)
    if fps is not None and not 1 <= fps <= 60:
        raise UserError(f"--fps {fps:g} is out of range: use 1 to 60")
    rate = None if fps is None else Fraction(fps).limit_denominator(1001)
    preset = rendering_preset(
        tiny, parse_size(size) if size else None, rate, object_scale, composition
    )
    if dry_run:
        samples = [s for v in plan(videos, lengths, seed, tiny, preset) for s in v.samples]
        typer.echo(summarize(samples))
        return
    if out is None:
        raise UserError("--out is required (or use --dry-run)")
    check_output_folder(out, "--out")
    if not overwrite and _holds_benchmark(out):
        raise UserError(f"--out {out}: already holds a benchmark; pass --overwrite to replace it")
    samples = generate(
        out, videos, lengths, seed, tiny, progress=sys.stderr.isatty(), preset=preset
    )
    typer.echo(f"wrote {videos} videos and {len(samples)} queries to {out / JSONL_NAME}")
    if stats:
        typer.echo(summarize(samples))


def _synth_av(out: Path | None, videos: int, lengths, seed: int, overwrite: bool) -> None:
    """`synth --av`: the audio-visual benchmark (see `synth.audiovisual`)."""
    from ..synth import JSONL_NAME
    from ..synth.av_generate import generate_av
    from ..synth.generate import VIDEO_DIR

    if out is None:
        raise UserError("--out is required")
    check_output_folder(out, "--out")
    if not overwrite and _holds_benchmark(out):
        raise UserError(f"--out {out}: already holds a benchmark; pass --overwrite to replace it")
    samples = generate_av(out, videos, lengths, seed, JSONL_NAME, VIDEO_DIR)
    where = out / JSONL_NAME
    typer.echo(f"wrote {videos} audio-visual videos and {len(samples)} queries to {where}")
