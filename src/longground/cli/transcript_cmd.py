"""`longground transcript VIDEO`: what is said, with times; optionally as .srt / .vtt."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..timecode import format_time
from . import options as opt
from .checks import check_cache_root, check_output_file
from .main import app


@app.command("transcript")
def transcript(
    video: Annotated[Path, typer.Argument(help="A video or audio file (anything FFmpeg reads).")],
    out: Annotated[
        list[Path] | None,
        typer.Option("--out", "-o", help="Also write subtitles here (.srt or .vtt); repeatable."),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace subtitle files that exist.")
    ] = False,
    cache_dir: opt.CacheDir = None,
) -> None:
    """Print the speech of VIDEO, one line per segment (`HH:MM:SS.s-HH:MM:SS.s  words`);
    with --out, say on standard error what was written.

    The speech channel (voice activity + pocketsphinx) is extracted once and cached, like the
    index. Exit code 0 when words were recognised, 1 when none were, 2 on error (no audio
    stream, audio that cannot be decoded, an output that cannot be written).
    """
    from ..channels import ChannelStore, installed
    from ..channels.subtitles import subtitle_format, write_subtitles

    if not video.is_file():
        raise UserError(f"{video}: no such file")
    outputs = list(out or [])
    for path in outputs:  # every output is checked before the long work
        check_output_file(path, "--out", inputs=[video])
        subtitle_format(path)
        if path.exists() and not overwrite:
            raise UserError(f"--out {path}: exists; pass --overwrite to replace it")
    check_cache_root(cache_dir)
    if not installed("speech"):
        raise UserError("the speech channel needs its models: pip install 'longground[channels]'")
    with warnings.catch_warnings():  # a missing channel is this command's one error line
        warnings.simplefilter("ignore")
        evidence = ChannelStore(cache_dir).get_or_build(video, ("speech",))
    if "speech" in evidence.notes:
        raise UserError(f"{video}: {evidence.notes['speech']}")
    speech = evidence.get("speech")
    lines = speech.lines()
    for start_s, end_s, text in lines:
        typer.echo(f"{format_time(start_s)}-{format_time(end_s)}  {text}")
    for path in outputs:
        write_subtitles(speech, path)
        count = f"{len(lines)} subtitle{'s' if len(lines) != 1 else ''}"
        typer.echo(f"longground: wrote {path} ({count})", err=True)
    raise typer.Exit(0 if len(speech) else 1)
