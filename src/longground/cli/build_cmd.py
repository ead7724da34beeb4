"""`longground build`: make a benchmark from your own videos (CoMET-Bench and ExtremeWhenBench
construction pipelines), plus the attribute sampler and the two-annotator agreement check."""

from __future__ import annotations

import json
from pathlib import Path

import typer

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
    from ..build import agree as agree_mod
    from ..build.outdir import claim
    from ..build.table3 import format_table

    a, b = agree_mod.load(first), agree_mod.load(second)
    proposals = agree_mod.load(candidates) if candidates is not None else None
    claim(out, "agree", overwrite=overwrite, resumable=False)
    final, disputed, stats = agree_mod.split(a, b)
    if proposals is not None:
        stats.query_edits, stats.interval_edits = agree_mod.edit_counts(proposals, a)
    from ..formats.canonical import sample_record

    agree_mod.write_jsonl(out / "final.jsonl", [sample_record(s) for s in final])
    agree_mod.write_jsonl(out / "adjudicate.jsonl", disputed)
    agree_mod.write_jsonl(out / "stats.jsonl", [stats.to_dict()])
    typer.echo(format_table(stats))
    typer.echo(f"wrote {len(final)} agreed queries to {out / 'final.jsonl'} and "
               f"{len(disputed)} to {out / 'adjudicate.jsonl'}")  # fmt: skip
