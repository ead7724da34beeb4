"""Which videos of a library can hold the best moments for a query, found through their rows.

`find DIR --top N` runs the method on every video while the library is small. Past
`EXACT_MAX_ROWS` computed rows, where an exact scan of every row stops being fast
(perf/bench_library.py), the stacked rows go through an approximate nearest-neighbour index
(usearch HNSW, `row_search.RowMatrix`), and only the videos owning the best rows are searched
by the method. The index is built once per set of index entries and kept under
`ROOT/library/` (memory-mapped when read), since building it costs far more than a query.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from .row_search import EXACT_MAX_ROWS, RowMatrix
from .timeline import Timeline

# Best rows asked of the index per moment wanted; their videos are the candidates.
ROWS_PER_MOMENT = 20
MIN_ROWS = 200
# Overrides `EXACT_MAX_ROWS` (a row count; 0 sends every library through the ANN index).
ANN_FROM_ROWS_ENV = "LONGGROUND_ANN_FROM_ROWS"


def ann_from_rows() -> int:
    """The row count past which `--top` searches through the ANN index:
    `$LONGGROUND_ANN_FROM_ROWS`, else `EXACT_MAX_ROWS`."""
    value = os.environ.get(ANN_FROM_ROWS_ENV, "").strip()
    if not value:
        return EXACT_MAX_ROWS
    try:
        rows = int(value)
    except ValueError:
        from ..errors import UserError

        raise UserError(f"${ANN_FROM_ROWS_ENV} must be a row count, got {value!r}") from None
    return max(rows, 0)


def library_matrix(timelines: Sequence[Timeline]) -> RowMatrix:
    """The computed `embedding` rows of every timeline, stacked, each owned by its position.

    >>> t = Timeline(np.arange(3.0), {"embedding": np.eye(3, dtype=np.float32)}, "e", 1, 3.0,
    ...              np.arange(3.0), encoded=np.array([True, False, True]))
    >>> m = library_matrix([t, t])
    >>> m.rows.shape, m.owner.tolist()
    ((4, 3), [0, 0, 1, 1])
    """
    rows, owner = [], []
    for k, timeline in enumerate(timelines):
        computed = timeline.features["embedding"][timeline.encoded]
        rows.append(computed.astype(np.float16))
        owner.append(np.full(len(computed), k, np.int32))
    if not rows:
        return RowMatrix(np.zeros((0, 1), np.float16), np.zeros(0, np.int32))
    return RowMatrix(np.concatenate(rows), np.concatenate(owner))


def candidates(matrix: RowMatrix, query: np.ndarray, top: int, folder: Path, key: str) -> list[int]:
    """Positions of the videos that own the best rows for `query`, best first.

    Args:
        matrix: the library's rows (`library_matrix`).
        query: `(D,)` the query's text embedding (normalised here).
        top: moments wanted; `max(MIN_ROWS, ROWS_PER_MOMENT * top)` rows are asked for.
        folder: where the ANN index is kept.
        key: identifies the rows (the library's index entries); a new key builds a new index.
    """
    query = np.asarray(query, np.float32)
    query = query / max(float(np.linalg.norm(query)), 1e-12)
    if matrix.ann is None:
        matrix.ann = _load_or_build(matrix, folder, key)
    rows, _ = matrix.ann_top(query, min(len(matrix.rows), max(MIN_ROWS, ROWS_PER_MOMENT * top)))
    return list(dict.fromkeys(matrix.owner[rows].tolist()))


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


def entries_key(entry_paths: Sequence[Path]) -> str:
    """A digest of the index entries whose rows are stacked (their names carry the videos'
    fingerprints, the encoder, the rate and the gate)."""
    names = "\n".join(path.name for path in entry_paths)
    return hashlib.blake2b(names.encode(), digest_size=12).hexdigest()


def _load_or_build(matrix: RowMatrix, folder: Path, key: str):
    from ..errors import require

    index_mod = require("usearch.index", "fast")
    path = folder / f"{key}.usearch"
    if path.is_file():
        try:
            index = index_mod.Index.restore(str(path), view=True)
        except (RuntimeError, ValueError, OSError):  # damaged: built again below
            index = None
        if index is not None and len(index) == len(matrix.rows):
            return index
    matrix.build_ann()
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as handle:
        handle.write(bytes(matrix.ann.save()))
    return matrix.ann
