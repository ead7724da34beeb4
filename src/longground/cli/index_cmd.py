"""`longground index VIDEO|FOLDER...`: build the feature cache ahead of queries, here or on
a Ray cluster, and keep a watched folder indexed."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..outputs import check_input_file
from . import options as opt
from .channel_options import index_channels
from .checks import MAX_POLL_S, at_least, check_cache_root
from .main import app, print_error

Channels = Annotated[
    str | None,
    typer.Option(
        "--channels",
        help="Evidence channels to extract now (speech, text, people, comma-separated; 'auto' "
        "for every installed one). Default none: a channel is extracted when a query first "
        "needs it.",
    ),
]


@app.command("index")
def index(
    videos: Annotated[
        list[Path],
        typer.Argument(help="Video files (anything FFmpeg reads), or folders of videos."),
    ],
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
    keyframes_only: Annotated[
        bool,
        typer.Option(
            "--keyframes-only",
            help="Decode keyframes only: each sample is the last keyframe before it. Faster on "
            "long keyframe intervals, lossy (an opt-in mode; entries kept apart).",
        ),
    ] = False,
    channels: Channels = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Index on Ray, one task per video: auto, HOST:PORT, "
                     "ray://HOST:10001 or local. The cache folder must be shared."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-j", min=1, help="With --ray: actors (default one per CPU)."),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="Then keep polling the folders, indexing each new video."),
    ] = False,
    interval: Annotated[
        float,
        typer.Option(
            "--interval", callback=at_least(0.1, MAX_POLL_S), help="--watch: seconds between polls."
        ),
    ] = 10.0,
) -> None:
    """Sample each VIDEO at FPS, encode the frames and store the features for later queries;
    folders are searched for videos. The library's search index (`find DIR --top`) is
    brought up to date.

    Shows a progress bar on a terminal. A video already indexed with the same encoder and
    rate is skipped. Exit code 0 when every video is indexed, 2 when any could not be (the
    others are still indexed).
    """
    from ..channels import parse_channels
    from ..index.indexer import IndexJob

    check_cache_root(cache_dir)
    names = parse_channels(channels) if channels is not None else ()
    if watch and not any(path.is_dir() for path in videos):
        raise UserError("--watch needs a folder to watch")
    job = IndexJob(encoder, fps, cache_dir, device, batch_size, every_frame,
                   keyframes_only or None)  # fmt: skip
    then = partial(index_channels, names=names, fps=fps, cache_dir=cache_dir) if names else None
    listed = _videos(videos)
    records = _index_all(listed, job, then, ray, workers)
    _sync_library(job, listed, records)
    if watch:
        _watch(videos, job, then, ray, workers, interval, set(listed), records)
    if any("error" in record for record in records):
        raise typer.Exit(2)


def _videos(paths: list[Path]) -> list[Path]:
    from ..index.library import find_videos

    return find_videos(paths)


def _index_all(videos: list[Path], job, then, ray: str | None, workers: int | None) -> list:
    """Index `videos` here or on Ray, printing one line per video; their records."""
    if ray is not None:
        return _on_ray(videos, job, then, ray, workers)
    from ..index.indexer import Indexer, summary_line

    indexer = Indexer(job, then, progress=True)
    records = []
    for video in videos:
        with _warnings_as_lines():
            try:
                check_input_file(video)
            except UserError as exc:
                record = {"error": str(exc)}
            else:
                record = indexer.index(video)
        records.append(record)
        if "error" in record:
            print_error(UserError(record["error"]))
            continue
        typer.echo(summary_line(record))
        if record.get("then"):
            typer.echo(record["then"])
    return records


def _on_ray(videos: list[Path], job, then, address: str, workers: int | None) -> list:
    """Index on the cluster, a bar over videos and one line per video as each lands."""
    from ..index.distributed import index_on_ray
    from ..index.indexer import summary_line
    from ..progress import progress_bar

    records = []
    with progress_bar(len(videos), desc="index", unit="video") as bar:

        def landed(record: dict) -> None:
            records.append(record)
            line = summary_line(record, where=True)
            _echo(bar, line if "error" not in record else f"longground: error: {line}")
            if record.get("then"):
                _echo(bar, record["then"])
            bar.update(1)

        def lost(event) -> None:
            _echo(bar, f"longground: warning: {event.describe()}")

        index_on_ray(videos, job, address, workers=workers, then=then, on_record=landed,
                     on_lost=lost)  # fmt: skip
    return records


def _echo(bar, line: str) -> None:
    """A line above the bar (tqdm's `write` keeps the bar whole); to stderr when an error
    or warning."""
    err = line.startswith("longground: ")
    write = getattr(bar, "write", None)
    if write is not None:
        import sys

        write(line, file=sys.stderr if err else sys.stdout)
    else:
        typer.echo(line, err=err)


def _sync_library(job, videos: list[Path], records: list[dict]) -> None:
    """Bring the library's search index up to date with these videos (new entries added,
    changed or removed videos dropped), with the encoder and decode size the records name;
    a failure here loses no index entry."""
    from ..index.library_search import sync_library

    done = next((record for record in records if "error" not in record), None)
    if done is None:
        return
    try:
        sync_library(job.store(), done["encoder"], job.fps, done["short_side"], videos)
    except (OSError, RuntimeError, UserError) as exc:  # e.g. faiss (the `fast` extra) missing
        typer.echo(f"longground: warning: the library's search index was not updated: {exc}",
                   err=True)  # fmt: skip


def _watch(paths, job, then, ray, workers, interval: float, seen: set[Path], records) -> None:
    """Poll the folders every `interval` seconds until Ctrl-C: index each new video once its
    size stopped changing, drop removed ones from the library's search index; one note line
    per file."""
    from ..index.watch import poll_changes

    folders = [path for path in paths if path.is_dir()]
    typer.echo(f"longground: note: watching {', '.join(map(str, folders))} (Ctrl-C to stop)",
               err=True)  # fmt: skip
    good = [record for record in records if "error" not in record][-1:]
    for new, gone in poll_changes(folders, seen, interval):
        for video in new:
            typer.echo(f"longground: note: new video {video}", err=True)
        for video in gone:
            typer.echo(f"longground: note: {video} is gone; dropped from the library", err=True)
        records = _index_all(new, job, then, ray, workers) if new else []
        good = [record for record in records if "error" not in record][-1:] or good
        _sync_library(job, sorted(seen), good)


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
