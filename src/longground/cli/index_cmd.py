"""`longground index VIDEO...`: build the feature cache ahead of queries."""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..outputs import check_input_file
from . import options as opt
from .channel_options import Channels, index_channels
from .checks import check_cache_root
from .main import app, print_error


@app.command("index")
def index(
    videos: Annotated[list[Path], typer.Argument(help="Video files (anything FFmpeg reads).")],
    fps: opt.Fps = opt.DEFAULTS.fps,
    encoder: opt.Encoder = opt.DEFAULTS.encoder,
    cache_dir: opt.CacheDir = None,
    device: opt.Device = None,
    batch_size: opt.BatchSize = None,
    every_frame: Annotated[
        bool,
        typer.Option(
            "--every-frame",
            help="Encode every sampled frame (by default a frame whose picture has not changed "
            "since the last encoded one reuses its features).",
        ),
    ] = False,
    channels: Channels = None,
) -> None:
    """Sample each VIDEO at FPS, encode the frames and store the features for later queries,
    and extract the evidence channels (speech, on-screen text, people) once.

    Shows a progress bar (frames/s, ETA) on a terminal. A video already indexed with the same
    encoder and rate is skipped. Exit code 0 when every video is indexed, 2 when any could
    not be (the others are still indexed).
    """
    from ..channels import parse_channels
    from ..encoders import load_encoder
    from ..index import FeatureStore

    check_cache_root(cache_dir)
    names = parse_channels(channels)
    model = load_encoder(encoder, device, batch_size)
    store = FeatureStore(cache_dir, gate=None) if every_frame else FeatureStore(cache_dir)
    failed = 0
    for video in videos:
        try:
            with _warnings_as_lines():
                typer.echo(_index_one(store, model, video, fps))
                line = index_channels(video, names, fps, cache_dir)
                if line:
                    typer.echo(line)
        except UserError as exc:
            print_error(exc)
            failed += 1
    if failed:
        raise typer.Exit(2)


def _index_one(store, model, video: Path, fps: float) -> str:
    """Index one video; the summary line to print."""
    check_input_file(video)
    from ..index.store import decode_side

    cached = store.get(video, model.encoder_id, fps, decode_side(model)) is not None
    started = time.perf_counter()
    timeline = store.get_or_build(video, model, fps)
    took_s = time.perf_counter() - started
    what = f"{video}: {len(timeline)} frames at {fps:g} fps with {model.encoder_id}"
    reused = int((~timeline.encoded).sum())
    note = f"; {reused} unchanged, not encoded" if reused else ""
    if cached:
        return f"{what}, already indexed{note}"
    rate = len(timeline) / took_s if took_s > 0 else float("inf")
    realtime = timeline.duration_s / took_s if took_s > 0 else float("inf")
    speed = f"({rate:.3g} frames/s, {realtime:.3g}x realtime)"
    return f"{what}, built in {took_s:.1f} s {speed}{note}"


@contextmanager
def _warnings_as_lines():
    """Show warnings raised inside as `longground: warning: ...` lines on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for item in caught:
                label = getattr(item.category, "label", "warning")
                typer.echo(f"longground: {label}: {item.message}", err=True)
