"""Which videos of a library can hold the best moments for a query, found through their rows.

`find DIR --top N` runs the method on every video while the library is small. Past
`EXACT_MAX_ROWS` computed rows, the library's rows are searched through its
`LibraryIndex` (faiss IVF, memory-mapped, kept under `ROOT/library/`) and only the videos
owning the best rows are searched by the method. The library index is brought up to date
before it is searched (`sync_library`): videos indexed since are added, videos whose file
changed or went away are removed; nothing is rebuilt. `longground index` syncs it too, so
the first query does not pay for it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import UserError
from .library_index import LibraryIndex
from .row_search import EXACT_MAX_ROWS
from .storage import CorruptEntry, read_computed

# Best rows asked of the index per moment wanted; their videos are the candidates.
ROWS_PER_MOMENT = 20
MIN_ROWS = 200
# Overrides `EXACT_MAX_ROWS` (a row count; 0 sends every library through the ANN index).
ANN_FROM_ROWS_ENV = "LONGGROUND_ANN_FROM_ROWS"


def ann_from_rows() -> int:
    """The row count past which `--top` searches through the library index:
    `$LONGGROUND_ANN_FROM_ROWS`, else `EXACT_MAX_ROWS`."""
    value = os.environ.get(ANN_FROM_ROWS_ENV, "").strip()
    if not value:
        return EXACT_MAX_ROWS
    try:
        rows = int(value)
    except ValueError:
        raise UserError(f"${ANN_FROM_ROWS_ENV} must be a row count, got {value!r}") from None
    return max(rows, 0)


def library_of(store, encoder_id: str, fps: float, short_side: int) -> LibraryIndex:
    """The library index of every video `store` indexed with this encoder, rate and size."""
    return LibraryIndex.for_setting(store.root.parent, store.setting(encoder_id, fps, short_side))


def sync_library(
    store, encoder_id: str, fps: float, short_side: int, videos: list[Path]
) -> tuple[LibraryIndex, dict[str, Path]]:
    """Bring the library index up to date with `videos`' index entries.

    Adds the entries not in it yet (their computed `embedding` rows, read alone), removes
    entries whose video is among `videos` under another entry (the file changed), and
    entries whose video file or index entry is gone. Videos without an entry are skipped.

    Returns:
        The index, and `{entry name: video}` for the videos of `videos` it holds.
    """
    library = library_of(store, encoder_id, fps, short_side)
    wanted: dict[str, tuple[Path, Path, dict]] = {}
    for video in videos:
        if not Path(video).is_file():
            continue
        key = store.key(video, encoder_id, fps, short_side)
        path = store.path_for(video, key)
        if path.is_file():
            wanted[path.name] = (Path(video), path, key)
    paths = {str(Path(v).resolve()) for v, _, _ in wanted.values()}
    held = library.entries()
    removed = [
        name for name, entry in held.items()
        if name not in wanted
        and (entry["video"] in paths or not Path(entry["video"]).is_file()
             or not (store.root / name).is_file())
    ]  # fmt: skip
    added = []
    for name, (video, path, key) in wanted.items():
        if name in held:
            continue
        try:
            added.append((name, str(video.resolve()), read_computed(path, key)))
        except (CorruptEntry, FileNotFoundError):
            continue  # rebuilt when the video is next searched
    if added or removed:
        library.update(added=added, removed=removed)
    return library, {name: video for name, (video, _, _) in wanted.items()}


def candidate_videos(store, encoder, fps: float, videos: list[Path], query: str, top: int):
    """The videos `find --top` runs the method on: every one while the library's computed
    rows are at most `ann_from_rows()` (exact), else those owning the best rows of the
    library index (in library order), plus the videos without an index entry.

    Args:
        store: the method's `FeatureStore`.
        encoder: the method's encoder (its text embedding of `query` is searched for).
        fps: the method's rate.
        videos: the library.
        query: the query text.
        top: moments wanted; `max(MIN_ROWS, ROWS_PER_MOMENT * top)` rows are asked for.
    """
    from .store import decode_side

    side = decode_side(encoder)
    rows, unindexed = 0, []
    for video in videos:
        key = store.key(video, encoder.encoder_id, fps, side) if video.is_file() else None
        count = None if key is None else stored_rows(store.path_for(video, key), key)
        if count is None:
            unindexed.append(video)
        rows += count or 0
    if rows <= ann_from_rows() or not rows:
        return videos  # exact: the method searches every video
    vector = np.asarray(encoder.encode_texts([query])[0], np.float32)
    vector /= max(float(np.linalg.norm(vector)), 1e-12)
    k = max(MIN_ROWS, ROWS_PER_MOMENT * top)
    library, names = sync_library(store, encoder.encoder_id, fps, side, videos)
    try:
        hits = library.search(vector, k, only=set(names))
    except (OSError, RuntimeError):  # a file of the index went (e.g. `cache clean`)
        library.clear()
        library, names = sync_library(store, encoder.encoder_id, fps, side, videos)
        hits = library.search(vector, k, only=set(names))
    keep = {names[hit.entry] for hit in hits} | set(unindexed)
    return [video for video in videos if video in keep]


def stored_rows(path: Path, key: dict) -> int | None:
    """How many computed rows the index entry at `path` holds, read from its manifest alone
    (no feature array is read); None when there is no such entry for `key`.

    Format 1 entries (every row stored) count every row.
    """
    from .cache_kind import read_manifest

    if not path.is_file():
        return None
    manifest = read_manifest(path)
    if manifest.get("key") != key:
        return None
    shapes = manifest.get("arrays", {})
    stored = shapes.get("feature.embedding") or shapes.get("times_s") or {"shape": [0]}
    return int(stored["shape"][0])
