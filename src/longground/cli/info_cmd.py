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
    """Print duration, exact frame rate, frame count, size, codec and rotation of each VIDEO,
    and its audio stream (codec, rate, channels, length).

    Exit code 0 when every file could be read, 2 when any could not (the others are still
    printed).
    """
    from ..channels.audio import probe_audio
    from ..video import probe

    failed = 0
    for i, video in enumerate(videos):
        try:
            details = probe(video)
            audio = probe_audio(video)
        except UserError as exc:
            print_error(exc)
            failed += 1
            continue
        if as_json:
            typer.echo(json.dumps({**details.to_dict(), "audio": audio and audio.to_dict()}))
        else:
            if i:
                typer.echo("")
            typer.echo("\n".join(details.describe()))
            typer.echo(f"{'audio:':<11}none" if audio is None else audio.describe())
    if failed:
        raise typer.Exit(2)
