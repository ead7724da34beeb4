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
    videos: int = typer.Option(
        None, "--videos", help="Number of videos (default 4; 2 with --montage)."
    ),
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
    wordings: int = typer.Option(
        1, "--wordings", help="Write each query in K wordings, 1 to 5: the original, then "
        "K-1 others in everyday words (qid QID_wN, field `wording`; 1 = the original only).",
    ),
    montage: Path = typer.Option(
        None, "--montage", help="The real-footage benchmark: montages of the clips and "
        "recordings a MANIFEST describes (docs/synthetic-benchmark.md; 7-minute videos, "
        "640x360 at 10 fps by default).",
    ),
) -> None:
    """Generate a synthetic long-video benchmark with exact ground truth for every query type."""
    from fractions import Fraction

    from ..synth import JSONL_NAME, generate, plan, rendering_preset, summarize
    from ..synth.generate import worded
    from ..synth.rendering import parse_size
    from ..synth.wordings import check_wordings

    lengths = parse_minutes(minutes)
    if out is not None:  # even for --dry-run: an --out that could not be written is said now
        check_output_folder(out, "--out")
    if montage is not None:
        other = [n for n, on in (("--av", av), ("--tiny", tiny), ("--object-scale", object_scale),
                                 ("--composition", composition)) if on]  # fmt: skip
        if other:
            raise UserError(f"--montage does not take {other[0]}")
        n_videos = 2 if videos is None else videos
        return _synth_montage(montage, out, n_videos, lengths, seed, overwrite, size, fps,
                              stats, dry_run)  # fmt: skip
    check_wordings(wordings)
    videos = 4 if videos is None else videos
    if av:
        if dry_run:  # the truth is where espeak-ng's sentences fall: known only once spoken
            raise UserError(
                "--av does not take --dry-run: its truth comes from the rendered speech"
            )
        return _synth_av(out, videos, lengths, seed, overwrite, wordings, stats)
    if fps is not None and not 1 <= fps <= 60:
        raise UserError(f"--fps {fps:g} is out of range: use 1 to 60")
    rate = None if fps is None else Fraction(fps).limit_denominator(1001)
    preset = rendering_preset(
        tiny, parse_size(size) if size else None, rate, object_scale, composition
    )
    if dry_run:
        planned = enumerate(plan(videos, lengths, seed, tiny, preset))
        samples = [s for i, v in planned for g in worded(v, seed, i, wordings) for s in g]
        typer.echo(summarize(samples))
        return
    if out is None:
        raise UserError("--out is required (or use --dry-run)")
    check_output_folder(out, "--out")
    if not overwrite and _holds_benchmark(out):
        raise UserError(f"--out {out}: already holds a benchmark; pass --overwrite to replace it")
    samples = generate(
        out, videos, lengths, seed, tiny, sys.stderr.isatty(), preset, wordings=wordings
    )
    typer.echo(f"wrote {videos} videos and {len(samples)} queries to {out / JSONL_NAME}")
    if stats:
        typer.echo(summarize(samples))


def _synth_av(
    out: Path | None, videos: int, lengths, seed: int, overwrite: bool, wordings: int,
    stats: bool,
) -> None:
    """`synth --av`: the audio-visual benchmark (see `synth.audiovisual`)."""
    from ..synth import JSONL_NAME, summarize
    from ..synth.av_generate import generate_av
    from ..synth.generate import VIDEO_DIR

    if out is None:
        raise UserError("--out is required")
    check_output_folder(out, "--out")
    if not overwrite and _holds_benchmark(out):
        raise UserError(f"--out {out}: already holds a benchmark; pass --overwrite to replace it")
    samples = generate_av(out, videos, lengths, seed, JSONL_NAME, VIDEO_DIR, wordings)
    where = out / JSONL_NAME
    typer.echo(f"wrote {videos} audio-visual videos and {len(samples)} queries to {where}")
    if stats:
        typer.echo(summarize(samples))


def _synth_montage(manifest: Path, out: Path | None, videos: int, lengths, seed: int,
                   overwrite: bool, size: str | None, fps: float | None, stats: bool,
                   dry_run: bool) -> None:  # fmt: skip
    """`synth --montage`: the real-footage benchmark (see `synth.montage`)."""
    from fractions import Fraction

    from ..synth import JSONL_NAME, summarize
    from ..synth.generate import VIDEO_DIR
    from ..synth.montage import DEFAULT_FPS, DEFAULT_SIZE, check_options, generate_montages
    from ..synth.montage_queries import ATTRIBUTES
    from ..synth.rendering import parse_size

    rate = DEFAULT_FPS if fps is None else Fraction(fps).limit_denominator(1001)
    check_options(videos, seed, rate)
    frame = parse_size(size) if size else DEFAULT_SIZE
    if not dry_run:
        if out is None:
            raise UserError("--out is required (or use --dry-run)")
        check_output_folder(out, "--out")
        if not overwrite and _holds_benchmark(out):
            raise UserError(
                f"--out {out}: already holds a benchmark; pass --overwrite to replace it"
            )
    done = (lambda path: typer.echo(f"wrote {path}", err=True)) if sys.stderr.isatty() else None
    samples = generate_montages(manifest, out, videos, lengths, seed, frame, rate, JSONL_NAME,
                                VIDEO_DIR, progress=done, dry_run=dry_run)  # fmt: skip
    if not dry_run:
        typer.echo(f"wrote {videos} montages and {len(samples)} queries to {out / JSONL_NAME}")
    if stats or dry_run:
        kinds = [a for a in ATTRIBUTES if a not in ("negative", "near-miss")]
        typer.echo(summarize(samples, kinds))
