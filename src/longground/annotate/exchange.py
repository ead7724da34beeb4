"""Benchmark files in and out of an `AnnotationStore`: import refuses duplicates; export
writes canonical JSONL (`formats.canonical.sample_record`), so an unedited database exports
exactly what `longground` writes for the imported benchmark."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UserError
from ..formats import load_samples, sample_record
from ..formats.lines import write_lines
from ..outputs import input_path, is_stdout, open_output
from .media import MediaFolder
from .record import AnnotatedQuery
from .store import AnnotationStore

VIDEOS_SETTING = "videos"
"""The key under which `serve` remembers its `--videos` folder (absolute) for `export`."""

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
    source = str(input_path(path))  # absolute: `export` recognises it from any folder
    return store.add((AnnotatedQuery.from_sample(s) for s in samples), source=source)


def videos_folder(store: AnnotationStore) -> Path | None:
    """Where the store's videos are: the `--videos` of the last `serve`, else the folder of
    the first imported file (where `run` also looks), else None."""
    remembered = store.setting(VIDEOS_SETTING)
    if remembered:
        return Path(remembered)
    sources = store.sources()
    return Path(sources[0]).parent if sources else None


def _video_locator(store: AnnotationStore, out: Path, videos: Path | None):
    """A function from a stored video name to the name an exported file at `out` should
    hold: the path of the found video relative to `out`'s folder, so that it resolves from
    where the exported file lies; the stored name when the video is not found."""
    folder = videos if videos is not None else videos_folder(store)
    if folder is None:
        return lambda name: name
    media = MediaFolder(folder)
    base = (Path.cwd() if is_stdout(out) else out.parent).resolve()

    def locate(name: str) -> str:
        if media.find(name) is None:
            return name
        return Path(os.path.relpath(media.root / name, base)).as_posix()

    return locate


def export_rows(
    store: AnnotationStore, only: str = "all", history: bool = False, locate=None
) -> list[dict]:
    """Canonical benchmark lines for the stored queries, in import order.

    Args:
        store: the database.
        only: one of `ONLY`.
        history: also add `review`, `annotated` and `history` (the query's edits, oldest
            first: annotator, at_utc, version, before, after) to each line.
        locate: stored video name -> the name to write (default: unchanged).
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
        if locate is not None:
            row["video"] = locate(query.video)
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
    store: AnnotationStore,
    out: str | Path,
    only: str = "all",
    history: bool = False,
    videos: Path | None = None,
) -> int:
    """Write `export_rows` to `out` (`-`: standard output) through the checked output entry,
    refusing to replace an input. Video names are written relative to `out`'s folder.

    Args:
        videos: the folder of the videos (default: `videos_folder(store)`).

    Returns:
        The number of lines written.

    Raises:
        UserError: `out` is the database or a file imported into it (by device and inode),
            is not a regular file, lies in a missing folder, or cannot be written.
    """
    out = Path(out)
    inputs = [store.path, *(Path(s) for s in store.sources())]
    rows = export_rows(store, only, history, _video_locator(store, out, videos))
    with open_output(out, "--out", inputs, stdout=True) as handle:
        write_lines(handle, rows)
    return len(rows)
