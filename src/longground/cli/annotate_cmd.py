"""`longground annotate serve|export|import`: verify queries and refine intervals in a browser
(see docs/annotate.md)."""

from __future__ import annotations

import enum
import warnings
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..outputs import check_input_file, check_output_file, input_path
from . import options as opt
from .checks import check_cache_root
from .main import app

annotate_app = typer.Typer(
    no_args_is_help=True,
    help="Verify queries and refine their intervals in a browser (see docs/annotate.md).",
)
app.add_typer(annotate_app, name="annotate")

Only = enum.Enum("Only", {n: n for n in ("all", "verified", "annotated")}, type=str)
Db = Annotated[Path, typer.Option("--db", help="The annotation database (SQLite).")]


def _open_store(path: Path, must_exist: bool = False):
    from ..annotate import AnnotationStore

    if must_exist and not path.is_file():
        raise UserError(f"{path}: no such annotation database")
    return AnnotationStore(path)


def _predictions(path: Path | None, store) -> dict | None:
    """qid -> intervals of a method's prediction file, for the timeline."""
    if path is None:
        return None
    from ..formats import load_predictions

    samples = {q.qid: q.to_sample() for q in store.queries()}
    return {
        p.qid: p.moments.to_list()
        for p in load_predictions(path, samples=samples)
        if p.moments is not None and p.qid in samples
    }


@annotate_app.command()
def serve(
    benchmark: Annotated[Path, typer.Argument(metavar="BENCH", help="Benchmark file to review.")],
    videos: Annotated[Path, typer.Option("--videos", help="Folder holding the videos.")],
    db: Annotated[
        Path | None,
        typer.Option("--db", help="Annotation database (default: BENCH with suffix .annotate.db)."),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; loopback by default.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 picks a free one).")] = 8765,
    annotator: Annotated[
        str, typer.Option(help="Name written into the edit history.")
    ] = "anonymous",
    pred: Annotated[
        Path | None, typer.Option("--pred", help="A method's predictions to draw on the timeline.")
    ] = None,
    cache_dir: opt.CacheDir = None,
    transcribe: Annotated[
        bool,
        typer.Option(
            help="Show the transcript under the player: read it from the channels cache, and "
            "extract the speech of a video whose transcript is not cached (--no-transcribe: "
            "from the cache only)."
        ),
    ] = True,
) -> None:
    """Serve the annotation page. The first start imports BENCH into the database; later
    starts reuse the database (add queries with `annotate import`).

    On an address that is not loopback, every request must carry an access token: it is
    generated at start and printed in the address to open."""
    from ..annotate.access import new_token
    from ..annotate.app import create_app
    from ..annotate.exchange import VIDEOS_SETTING, import_benchmark
    from ..annotate.server import bind, host_names, is_loopback, run, url_of
    from ..annotate.transcript import Transcripts
    from ..formats import load_samples

    if not videos.is_dir():
        raise UserError(f"--videos {videos}: no such folder")
    if not annotator.strip():
        raise UserError("--annotator must not be empty")
    check_cache_root(cache_dir)
    database = check_output_file(
        db or benchmark.with_suffix(".annotate.db"), "--db", inputs=[benchmark, pred]
    )
    samples = load_samples(benchmark)  # a missing or malformed file stops here
    missing = _check_videos(videos, samples)
    if pred is not None:
        check_input_file(pred)
    sock = bind(host, port)  # a bad address or a port in use stops here, before any import
    store = _open_store(database)
    try:
        with sock:
            if store.count() == 0:
                added = import_benchmark(store, benchmark)
                typer.echo(f"imported {added} queries from {benchmark} into {store.path}",
                           err=True)  # fmt: skip
            else:
                typer.echo(f"reusing {store.path} ({store.count()} queries)", err=True)
            if missing:
                warnings.warn(missing, stacklevel=1)
            store.set_setting(VIDEOS_SETTING, str(input_path(videos)))
            predictions = _predictions(pred, store)
            token = None if is_loopback(host) else new_token()
            hosts = host_names(host)
            transcripts = Transcripts(cache_dir, transcribe)
            web = create_app(store, videos, annotator.strip(), predictions, allowed_hosts=hosts,
                             token=token, transcripts=transcripts)  # fmt: skip
            address = url_of(sock, host) + (f"?token={token}" if token else "")
            if token:
                typer.echo(f"annotate: --host {host} is not loopback: requests need the access "
                           "token in this address", err=True)  # fmt: skip
            typer.echo(f"annotate: open {address}  (Ctrl-C stops)")
            run(web, sock)
    finally:
        store.close()


def _check_videos(videos: Path, samples) -> str | None:
    """Refuse a --videos folder that holds none of the benchmark's videos (the wrong folder);
    when only some are missing, the warning to print, naming the first."""
    from ..annotate.media import MediaFolder

    folder = MediaFolder(videos)
    names = list(dict.fromkeys(s.video for s in samples))
    missing = [n for n in names if folder.find(n) is None]
    if not missing:
        return None
    first = folder.root / missing[0]
    if len(missing) == len(names):
        raise UserError(f"--videos {videos}: holds none of the benchmark's {len(names)} videos "
                        f"(the first, {first}, is missing); is it the right folder?")  # fmt: skip
    return (
        f"--videos {videos}: {len(missing)} of {len(names)} videos are missing, "
        f"the first is {first}"
    )


@annotate_app.command("export")
def export(
    db: Db,
    out: Annotated[Path, typer.Option("--out", help="Output benchmark file (JSONL).")],
    only: Annotated[
        Only, typer.Option(help="Which queries to write (discarded ones never).")
    ] = Only.all,
    history: Annotated[
        bool,
        typer.Option("--history", help="Also write review state and every edit of each query."),
    ] = False,
    videos: Annotated[
        Path | None,
        typer.Option(
            "--videos",
            help="Folder holding the videos (default: the one `serve` was given last).",
        ),
    ] = None,
) -> None:
    """Write the reviewed benchmark as canonical JSONL (`--out -`: to standard output).

    Video paths are written relative to the folder of the written file, so it resolves
    wherever it lies. An input of the database (the database itself, any imported file) is
    never overwritten."""
    from ..annotate.exchange import write_export

    check_output_file(out, "--out", inputs=[db], stdout=True)
    if videos is not None and not videos.is_dir():
        raise UserError(f"--videos {videos}: no such folder")
    store = _open_store(db, must_exist=True)
    try:
        written = write_export(store, out, only.value, history, videos)
    finally:
        store.close()
    typer.echo(f"wrote {written} queries to {out}", err=True)


@annotate_app.command("import")
def import_(
    db: Db,
    more: Annotated[Path, typer.Argument(metavar="MORE", help="Benchmark file to add.")],
) -> None:
    """Add the queries of another benchmark file, refusing duplicates.

    MORE is any benchmark file, such as a build pipeline's review.jsonl. A qid already in the
    database stops the import, and then nothing is added."""
    from ..annotate.exchange import import_benchmark
    from ..formats import load_samples

    load_samples(more)
    store = _open_store(check_output_file(db, "--db", inputs=[more]))
    try:
        added = import_benchmark(store, more)
    finally:
        store.close()
    typer.echo(f"added {added} queries to {db}", err=True)
