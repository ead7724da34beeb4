"""`longground find VIDEO QUERY`: every matching moment, grep-style."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..methods import Grounding, build_method
from ..timecode import format_time
from . import options as opt
from .main import app


def format_moments(grounding: Grounding) -> list[str]:
    """One `HH:MM:SS.s-HH:MM:SS.s  score` line per moment."""
    moments = grounding.moments
    scores = moments.scores if moments.scores is not None else [None] * len(moments)
    lines = []
    for (start_s, end_s), score in zip(moments.spans, scores):
        text = f"{format_time(start_s)}-{format_time(end_s)}"
        lines.append(text if score is None else f"{text}  {score:.3f}")
    return lines


def result_record(video: Path, query: str, method: str, grounding: Grounding) -> dict:
    """The `--json` object (DESIGN.md "Output conventions")."""
    moments = grounding.moments
    scores = moments.scores if moments.scores is not None else [None] * len(moments)
    return {
        "video": str(video),
        "query": query,
        "method": method,
        "count": moments.count,
        "moments": [
            {"start_s": float(s), "end_s": float(e), "score": None if c is None else float(c)}
            for (s, e), c in zip(moments.spans, scores)
        ],
    }


@app.command("find")
def find(
    video: Annotated[Path, typer.Argument(help="Video file (anything FFmpeg reads).")],
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    method: opt.Method = "retrieval",
    encoder: opt.Encoder = "label-bridge",
    fps: opt.Fps = 1.0,
    max_moments: Annotated[
        int | None, typer.Option("--max", min=1, help="Keep at most N moments (best first).")
    ] = None,
    single: opt.Single = False,
    count: Annotated[bool, typer.Option("--count", "-c", help="Print only the count.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    params: opt.Params = None,
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    trace: Annotated[
        Path | None, typer.Option("--trace", help="Write a JSON record of the search here.")
    ] = None,
) -> None:
    """Find every moment of VIDEO that matches QUERY.

    Prints one line per moment, then the count. Exit code 0 when something matched,
    1 when nothing did, 2 on error.
    """
    if not query.strip():
        raise UserError("the query is empty")
    if not video.exists():
        raise UserError(f"{video}: no such file")
    config = opt.method_config(
        encoder=encoder, fps=fps, single=single, params=params, llm=llm,
        base_url=base_url, model=model, api_key=api_key, cache_dir=cache_dir,
    )  # fmt: skip
    grounding = build_method(method, config).ground(video, query)
    if max_moments is not None and len(grounding.moments) > max_moments:
        moments = grounding.moments
        order = range(max_moments) if moments.scores is None else (-moments.scores).argsort()
        grounding.moments = moments[sorted(list(order)[:max_moments])]
    if trace is not None:
        trace.write_text(json.dumps(grounding.trace, indent=1, default=float))
    if as_json:
        typer.echo(json.dumps(result_record(video, query, method, grounding)))
    elif count:
        typer.echo(grounding.moments.count)
    else:
        for line in format_moments(grounding):
            typer.echo(line)
        n = grounding.moments.count
        typer.echo(f"{n} moment{'s' if n != 1 else ''}")
    raise typer.Exit(0 if grounding.moments.count else 1)
