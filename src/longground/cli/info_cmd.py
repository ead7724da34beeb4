"""`longground info VIDEO...`: what a video holds, as FFmpeg reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from .main import app, print_error


@app.command("info")
def info(
    videos: Annotated[list[Path], typer.Argument(help="Video files (anything FFmpeg reads).")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per video.")] = False,
) -> None:
    """Print duration, exact frame rate, frame count, size, codec and rotation of each VIDEO.

    Exit code 0 when every file could be read, 2 when any could not (the others are still
    printed).
    """
    from ..video import probe

    failed = 0
    for i, video in enumerate(videos):
        try:
            details = probe(video)
        except UserError as exc:
            print_error(exc)
            failed += 1
            continue
        if as_json:
            typer.echo(json.dumps(details.to_dict()))
        else:
            if i:
                typer.echo("")
            typer.echo("\n".join(details.describe()))
    if failed:
        raise typer.Exit(2)
