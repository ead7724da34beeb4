"""A library's frames in one nearest-neighbour index on disk, updated video by video.

One `LibraryIndex` per cache root and indexing setting (encoder, rate, decode size, change
gate) holds the computed `embedding` rows of every video synced into it, as files
`ROOT/library/<name>...` (`name`: a digest of the setting):

- `<name>-main-<n>.faiss`: a faiss inverted-file index (IVF, `NLIST_PER_SQRT` x sqrt(rows) lists,
  rows stored as float16, inner product), read memory-mapped, so a query touches only the
  lists it probes and memory does not grow with the library beyond the mapped file;
- `<name>-<entry>.npy`: the float16 rows of each video added since `main.faiss` was last
  written, searched exactly (also memory-mapped);
- `<name>.json`: the manifest, each video's entry name, path, row ids and where its rows are.

Adding a video writes its rows to a delta file; removing one drops it from the manifest (its ids
in `main.faiss` are filtered out of every answer). Neither rebuilds anything: once the delta
holds `MERGE_ROWS` rows, or removed rows are a fifth of the main index, the delta is added to
the main index (new rows go to the trained lists; no new training) and removed rows are
deleted, in one atomic rewrite. The lists are trained once, when the library first holds
`TRAIN_ROWS` rows; below that every row is in the delta and searched exactly.

Writers hold `ROOT/library/.<name>.lock` (POSIX `flock`); readers read the manifest and
the files it names, which are only ever replaced by atomic renames.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..cache.kinds import LIBRARY_DIR
from ..errors import require

#: Rows from which the inverted lists are trained (below: every row is searched exactly).
TRAIN_ROWS = 50_000
#: Delta rows that trigger adding the delta to the main index.
MERGE_ROWS = 50_000
#: Inverted lists per square root of the rows: 4 sqrt(n) lists, the usual rule.
NLIST_PER_SQRT = 4
#: Share of the lists probed per query, and at least this many: chosen by
#: perf/bench_library.py for recall@10 >= 0.95 against exact search at 100 and 1,000 hours.
PROBE_SHARE, MIN_PROBE = 0.25, 64
FORMAT = 1


@dataclass(frozen=True)
class Hit:
    """One row found: the video's entry name, the row among its computed rows, the score."""

    entry: str
    row: int
    score: float


class LibraryIndex:
    """See the module docstring.

    Args:
        folder: where its files live (`for_setting` picks `ROOT/library`).
        name: what its files' names start with.

    >>> import tempfile
    >>> lib = LibraryIndex(Path(tempfile.mkdtemp()), "lib")
    >>> lib.add("a.npz", "a.mp4", np.eye(3)); lib.add("b.npz", "b.mp4", -np.eye(3))
    >>> [(h.entry, h.row) for h in lib.search(np.array([0.0, 1.0, 0.0]), 2)]
    [('a.npz', 1), ('a.npz', 0)]
    >>> lib.remove("a.npz"); [h.entry for h in lib.search(np.array([0.0, 1.0, 0.0]), 1)]
    ['b.npz']
    """

    def __init__(self, folder: Path, name: str):
        self.folder, self.name = Path(folder), name
        self._main = None  # the mapped faiss index, and the manifest it was read for
        self._main_for: str | None = None

    @classmethod
    def for_setting(cls, cache_root: Path, setting: dict) -> LibraryIndex:
        """The index of every video indexed with `setting` (an entry key without its video)
        under `cache_root`."""
        text = json.dumps(setting, sort_keys=True)
        digest = hashlib.blake2b(text.encode(), digest_size=10).hexdigest()
        return cls(Path(cache_root) / LIBRARY_DIR, digest)

    # -- reading ---------------------------------------------------------------------------

    def manifest(self) -> dict:
        """The manifest (an empty library when there is none yet)."""
        try:
            data = json.loads(self._path(".json").read_text())
        except (OSError, ValueError):
            data = {}
        if data.get("format") != FORMAT:
            data = {"format": FORMAT, "entries": {}, "next_id": 0, "main": None,
                    "main_removed": []}  # fmt: skip
        return data

    def entries(self) -> dict[str, dict]:
        """`{entry name: {"video", "first_id", "rows", "in_main"}}`."""
        return self.manifest()["entries"]

    def __len__(self) -> int:
        return sum(e["rows"] for e in self.entries().values())

    def search(self, query: np.ndarray, k: int, only: set[str] | None = None) -> list[Hit]:
        """The `k` rows with the largest inner product with `query` `(D,)`, best first, among
        the videos named in `only` (default every video in the index)."""
        manifest = self.manifest()
        entries = manifest["entries"]
        wanted = {n: e for n, e in entries.items() if only is None or n in only}
        query = np.asarray(query, np.float32).reshape(1, -1)
        ids, scores = [np.zeros(0, np.int64)], [np.zeros(0, np.float32)]
        for name, entry in wanted.items():
            if not entry["in_main"]:
                rows = np.load(self._path(f"-{name}.npy"), mmap_mode="r")
                found = _exact_top(rows, query[0], k)
                ids.append(found[0] + entry["first_id"])
                scores.append(found[1])
        if manifest["main"] is not None and any(e["in_main"] for e in wanted.values()):
            found = self._search_main(manifest, wanted, query, k)
            ids.append(found[0])
            scores.append(found[1])
        ids, scores = np.concatenate(ids), np.concatenate(scores)
        order = np.argsort(-scores, kind="stable")[:k]
        names = sorted(entries, key=lambda n: entries[n]["first_id"])
        firsts = np.array([entries[n]["first_id"] for n in names], np.int64)
        owners = np.searchsorted(firsts, ids[order], side="right") - 1
        return [Hit(names[o], int(ids[i] - firsts[o]), float(scores[i]))
                for i, o in zip(order, owners)]  # fmt: skip

    def _search_main(self, manifest: dict, wanted: dict, query: np.ndarray, k: int):
        faiss = require("faiss", "fast")
        index = self._mapped(manifest["main"])
        in_main = [e for e in wanted.values() if e["in_main"]]
        every = len(in_main) == sum(e["in_main"] for e in manifest["entries"].values())
        selector = None
        if every and manifest["main_removed"]:  # all but the removed videos' rows
            removed = _ids([(first, n) for first, n in manifest["main_removed"]])
            selector = faiss.IDSelectorNot(faiss.IDSelectorBatch(removed))  # keeps a reference
        elif not every:  # only some videos asked for
            selector = faiss.IDSelectorBatch(_ids([(e["first_id"], e["rows"]) for e in in_main]))
        params = faiss.SearchParametersIVF(nprobe=probes(index.nlist), sel=selector)
        scores, ids = index.search(query, k, params=params)
        keep = ids[0] >= 0
        return ids[0][keep].astype(np.int64), scores[0][keep].astype(np.float32)

    def _mapped(self, name: str):
        if self._main_for != name:
            faiss = require("faiss", "fast")
            path = str(self._path(f"-{name}"))
            self._main = faiss.read_index(path, faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
            self._main_for = name
        return self._main

    # -- writing ---------------------------------------------------------------------------

    def add(self, entry: str, video: str | Path, rows: np.ndarray) -> None:
        """Add one video's computed rows `(n, D)` (normalised here) under its entry name; a
        video already in the index under that name is left as it is."""
        self.update(added=[(entry, video, rows)])

    def remove(self, entry: str) -> None:
        """Drop one video's rows (filtered at once; deleted at the next compaction)."""
        self.update(removed=[entry])

    def update(
        self,
        added: list[tuple[str, str | Path, np.ndarray]] = (),
        removed: list[str] = (),
    ) -> None:
        """Remove and add videos in one step (one lock, one manifest write, at most one
        compaction). `added` holds `(entry name, video, (n, D) rows)`."""
        with self._writing() as manifest:
            for entry in removed:
                self._drop(manifest, entry)
            for entry, video, rows in added:
                if entry not in manifest["entries"]:
                    self._put(manifest, entry, video, rows)
            self._compact(manifest)

    def _put(self, manifest: dict, entry: str, video: str | Path, rows: np.ndarray) -> None:
        rows = np.asarray(rows, np.float32)
        rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        with atomic_open(self._path(f"-{entry}.npy"), "wb") as handle:
            np.save(handle, rows.astype(np.float16))
        manifest["entries"][entry] = {"video": str(video), "first_id": manifest["next_id"],
                                      "rows": len(rows), "in_main": False}  # fmt: skip
        manifest["next_id"] += len(rows)

    def _drop(self, manifest: dict, entry: str) -> None:
        gone = manifest["entries"].pop(entry, None)
        if gone is None:
            return
        if gone["in_main"]:
            manifest["main_removed"].append([gone["first_id"], gone["rows"]])
        else:
            self._after_save.append(self._path(f"-{entry}.npy"))

    def _compact(self, manifest: dict) -> None:
        """Fold the delta into the main index (training it first when there is none and the
        library is big enough) and delete removed rows, when enough has piled up."""
        entries = manifest["entries"]
        delta_rows = sum(e["rows"] for e in entries.values() if not e["in_main"])
        removed = sum(n for _, n in manifest["main_removed"])
        main_rows = sum(e["rows"] for e in entries.values() if e["in_main"]) + removed
        if manifest["main"] is None:
            if delta_rows >= TRAIN_ROWS:
                self._write_main(manifest, self._trained(entries))
            return
        if delta_rows >= MERGE_ROWS or removed > 0.2 * max(main_rows, 1):
            faiss = require("faiss", "fast")
            index = faiss.read_index(str(self._path(f"-{manifest['main']}")))
            if removed:
                index.remove_ids(faiss.IDSelectorBatch(_ids(manifest["main_removed"])))
            self._write_main(manifest, index)

    def _trained(self, entries: dict):
        """A new IVF index with lists trained on (a sample of) the delta's rows."""
        faiss = require("faiss", "fast")
        rows = np.concatenate([self._delta(name) for name in entries]).astype(np.float32)
        nlist = max(1, int(NLIST_PER_SQRT * math.sqrt(len(rows))))
        quantizer = faiss.IndexFlatIP(rows.shape[1])
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, rows.shape[1], nlist, faiss.ScalarQuantizer.QT_fp16,
            faiss.METRIC_INNER_PRODUCT,
        )  # fmt: skip
        sample = np.random.default_rng(0).permutation(len(rows))[: 64 * nlist]
        index.train(rows[sample])
        index.own_fields = True
        quantizer.this.disown()
        return index

    def _write_main(self, manifest: dict, index) -> None:
        """Add every delta video to `index`, write it under a new name, and point the
        manifest at it (the old file and the delta files go once the manifest is saved)."""
        faiss = require("faiss", "fast")
        moved = [name for name, e in manifest["entries"].items() if not e["in_main"]]
        for name in moved:
            entry = manifest["entries"][name]
            ids = np.arange(entry["first_id"], entry["first_id"] + entry["rows"])
            index.add_with_ids(self._delta(name).astype(np.float32), ids.astype(np.int64))
        name = f"main-{manifest['next_id']}-{os.getpid()}.faiss"
        with atomic_open(self._path(f"-{name}"), "wb") as handle:
            faiss.write_index(index, faiss.PyCallbackIOWriter(handle.write))
        old, manifest["main"], manifest["main_removed"] = manifest["main"], name, []
        for moved_name in moved:
            manifest["entries"][moved_name]["in_main"] = True
        self._after_save += [self._path(f"-{old}")] if old else []
        self._after_save += [self._path(f"-{n}.npy") for n in moved]

    def _delta(self, name: str) -> np.ndarray:
        return np.load(self._path(f"-{name}.npy"))

    def _path(self, suffix: str) -> Path:
        return self.folder / f"{self.name}{suffix}"

    def files(self) -> list[Path]:
        """Every file of this index (the manifest, the main index, the delta rows)."""
        manifest = self.manifest()
        names = [f"-{n}.npy" for n, e in manifest["entries"].items() if not e["in_main"]]
        names += [f"-{manifest['main']}"] if manifest["main"] else []
        return [self._path(suffix) for suffix in (".json", *names)]

    def clear(self) -> None:
        """Remove the index (after its files were found damaged or missing)."""
        with self._writing() as manifest:
            self._after_save += self.files()[1:]
            manifest.update(entries={}, main=None, main_removed=[])

    @contextmanager
    def _writing(self):
        """The manifest to change, under the writers' lock; saved atomically after."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / f".{self.name}.lock", "a") as lock:
            _flock(lock)
            self._after_save: list[Path] = []
            manifest = self.manifest()
            yield manifest
            with atomic_open(self._path(".json")) as handle:
                json.dump(manifest, handle)
            for path in self._after_save:
                path.unlink(missing_ok=True)


def probes(nlist: int) -> int:
    """Lists probed per query for an index of `nlist` lists.

    >>> probes(1200), probes(100)
    (300, 64)
    """
    return min(nlist, max(MIN_PROBE, math.ceil(PROBE_SHARE * nlist)))


def _ids(ranges: list[tuple[int, int]]) -> np.ndarray:
    """Every id of `(first, count)` ranges, int64."""
    return np.concatenate([np.arange(first, first + n, dtype=np.int64) for first, n in ranges])


def _exact_top(rows: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    scores = np.asarray(rows, np.float32) @ query
    keep = np.argpartition(-scores, min(k, len(scores)) - 1)[:k] if len(scores) else scores[:0]
    return keep.astype(np.int64), scores[keep].astype(np.float32)


def _flock(handle) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: writes stay atomic, concurrent writers may race
        return
    fcntl.flock(handle, fcntl.LOCK_EX)
