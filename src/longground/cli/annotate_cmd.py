"""`longground annotate serve|export|import`: verify queries and refine intervals in a browser
(see docs/annotate.md)."""

from __future__ import annotations

import enum
import warnings
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
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
) -> None:
    """Serve the annotation page. The first start imports BENCH into the database; later
    starts reuse the database (add queries with `annotate import`)."""
    from ..annotate.app import create_app
    from ..annotate.exchange import import_benchmark
    from ..annotate.server import LOOPBACK_NAMES, bind, is_loopback, run, url_of
    from ..formats import load_samples

    if not videos.is_dir():
        raise UserError(f"--videos {videos}: no such folder")
    if not annotator.strip():
        raise UserError("--annotator must not be empty")
    load_samples(benchmark)  # a missing or malformed file stops here, before the database
    store = _open_store(db or benchmark.with_suffix(".annotate.db"))
    try:
        sock = bind(host, port)  # a port in use stops here, before any import
        with sock:
            if store.count() == 0:
                added = import_benchmark(store, benchmark)
                typer.echo(f"imported {added} queries from {benchmark} into {store.path}",
                           err=True)  # fmt: skip
            else:
                typer.echo(f"reusing {store.path} ({store.count()} queries)", err=True)
            predictions = _predictions(pred, store)
            if not is_loopback(host):
                warnings.warn(f"--host {host} is not loopback: anyone who can reach it can "
                              "edit the annotations (there is no login)", stacklevel=1)  # fmt: skip
            hosts = [*LOOPBACK_NAMES, "[::1]", host] if is_loopback(host) else None
            web = create_app(store, videos, annotator.strip(), predictions, allowed_hosts=hosts)
            typer.echo(f"annotate: open {url_of(sock, host)}  (Ctrl-C stops)")
            run(web, sock)
    finally:
        store.close()


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
) -> None:
    """Write the reviewed benchmark as canonical JSONL."""
    from ..annotate.exchange import write_export

    store = _open_store(db, must_exist=True)
    try:
        written = write_export(store, out, only.value, history)
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
    store = _open_store(db)
    try:
        added = import_benchmark(store, more)
    finally:
        store.close()
    typer.echo(f"added {added} queries to {db}", err=True)
