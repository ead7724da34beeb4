"""Benchmark files in and out of an `AnnotationStore`: import refuses duplicates; export
writes canonical JSONL (`formats.canonical.sample_record`), so an unedited database exports
exactly what `longground` writes for the imported benchmark."""

from __future__ import annotations

from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError
from ..formats import load_samples, sample_record
from ..formats.lines import write_lines
from .record import AnnotatedQuery
from .store import AnnotationStore

ONLY = ("all", "verified", "annotated")
"""Which queries `export` writes; discarded queries are never written."""


def import_benchmark(store: AnnotationStore, path: str | Path) -> int:
    """Add every query of a benchmark file (any format `load_samples` reads).

    Returns:
        The number of queries added.

    Raises:
        UserError: the file is missing or malformed, or a qid is already in the store
            (then nothing is added).
    """
    samples = load_samples(path)
    return store.add((AnnotatedQuery.from_sample(s) for s in samples), source=str(path))


def export_rows(store: AnnotationStore, only: str = "all", history: bool = False) -> list[dict]:
    """Canonical benchmark lines for the stored queries, in import order.

    Args:
        store: the database.
        only: one of `ONLY`.
        history: also add `review`, `annotated` and `history` (the query's edits, oldest
            first: annotator, at_utc, version, before, after) to each line.
    """
    if only not in ONLY:
        raise UserError(f"--only must be one of {', '.join(ONLY)}, got {only!r}")
    edits: dict[str, list[dict]] = {}
    if history:
        for edit in store.history():
            row = edit.to_dict()
            edits.setdefault(row.pop("qid"), []).append(row)
    rows = []
    for query in store.queries():
        if query.review == "discarded" or not _wanted(query, only):
            continue
        row = sample_record(query.to_sample())
        if history:
            row.update(
                review=query.review, annotated=query.annotated, history=edits.get(query.qid, [])
            )
        rows.append(row)
    return rows


def _wanted(query: AnnotatedQuery, only: str) -> bool:
    return (
        only == "all"
        or (only == "verified" and query.review == "verified")
        or (only == "annotated" and query.annotated)
    )


def write_export(
    store: AnnotationStore, out: str | Path, only: str = "all", history: bool = False
) -> int:
    """Write `export_rows` to `out` atomically, refusing to replace an input.

    Returns:
        The number of lines written.

    Raises:
        UserError: `out` is the database or a file imported into it, or cannot be written.
    """
    out = Path(out)
    inputs = [store.path, *(Path(s) for s in store.sources())]
    if any(_same_file(out, p) for p in inputs):
        raise UserError(f"{out}: is an input of {store.path}; choose another --out")
    rows = export_rows(store, only, history)
    try:
        with atomic_open(out) as handle:
            write_lines(handle, rows)
    except OSError as exc:
        raise UserError(f"{out}: cannot write ({exc.strerror or exc})") from None
    return len(rows)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False
