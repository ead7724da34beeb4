"""The library's nearest-neighbour index: against exact search over the live rows, and kept
up to date video by video without training its lists again."""

from __future__ import annotations

import numpy as np
import pytest

import longground.index.library_index as library_index
from longground.index.library_index import LibraryIndex
from longground.index.row_search import recall_at_k

pytest.importorskip("faiss")


def clustered(n, d=48, seed=0, concepts=60):
    """Unit rows around `concepts` centres, like frames of a library (perf/bench_library.py)."""
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(1234).standard_normal((concepts, d))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    x = centres[rng.integers(0, concepts, n)] + 0.6 * rng.standard_normal((n, d)) / np.sqrt(d)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def exact_ids(videos: dict[str, np.ndarray], lib: LibraryIndex, query, k):
    """The naive answer: every live row scored, as ids of the library index."""
    entries = lib.entries()
    ids = np.concatenate([entries[n]["first_id"] + np.arange(len(r)) for n, r in videos.items()])
    rows = np.concatenate(list(videos.values())).astype(np.float16).astype(np.float32)
    return ids[np.argsort(-(rows @ query), kind="stable")[:k]]


def found_ids(lib: LibraryIndex, query, k, only=None):
    entries = lib.entries()
    return np.array([entries[h.entry]["first_id"] + h.row for h in lib.search(query, k, only)])


@pytest.fixture
def small_thresholds(monkeypatch):
    """Lists trained from 2,000 rows, the delta folded in from 1,500."""
    monkeypatch.setattr(library_index, "TRAIN_ROWS", 2000)
    monkeypatch.setattr(library_index, "MERGE_ROWS", 1500)


def test_a_small_library_is_searched_exactly(tmp_path):
    lib = LibraryIndex(tmp_path, "lib")
    videos = {f"v{i}.npz": clustered(300, seed=i) for i in range(4)}
    lib.update(added=[(name, f"{name}.mp4", rows) for name, rows in videos.items()])
    assert lib.manifest()["main"] is None  # below TRAIN_ROWS: no lists
    for query in clustered(5, seed=9):
        np.testing.assert_array_equal(found_ids(lib, query, 10), exact_ids(videos, lib, query, 10))


def test_the_trained_index_finds_what_exact_search_finds(tmp_path, small_thresholds):
    lib = LibraryIndex(tmp_path, "lib")
    videos = {f"v{i}.npz": clustered(1000, seed=i) for i in range(6)}
    lib.update(added=[(name, f"{name}.mp4", rows) for name, rows in videos.items()])
    manifest = lib.manifest()
    assert manifest["main"] is not None and all(e["in_main"] for e in manifest["entries"].values())
    recalls = [recall_at_k(found_ids(lib, q, 10), exact_ids(videos, lib, q, 10))
               for q in clustered(20, seed=99)]  # fmt: skip
    assert np.mean(recalls) >= 0.95
    scores = [h.score for h in lib.search(clustered(1, seed=5)[0], 10)]
    assert scores == sorted(scores, reverse=True)


def test_adding_and_removing_videos_needs_no_training(tmp_path, small_thresholds, monkeypatch):
    lib = LibraryIndex(tmp_path, "lib")
    videos = {f"v{i}.npz": clustered(1000, seed=i) for i in range(3)}
    lib.update(added=[(name, f"{name}.mp4", rows) for name, rows in videos.items()])
    main = lib.manifest()["main"]
    trained = []
    monkeypatch.setattr(LibraryIndex, "_trained", lambda self, e: trained.append(e))
    videos["new.npz"] = clustered(400, seed=7)
    lib.add("new.npz", "new.mp4", videos["new.npz"])
    assert lib.manifest()["main"] == main  # in the delta, searched beside the main index
    query = videos["new.npz"][3]
    assert lib.search(query, 1)[0] == library_index.Hit("new.npz", 3, pytest.approx(1, abs=1e-3))
    lib.remove("v1.npz")
    del videos["v1.npz"]
    assert "v1.npz" not in {h.entry for h in lib.search(clustered(1, seed=1)[0], 50)}
    assert {h.entry for h in lib.search(query, 30, only={"v0.npz"})} == {"v0.npz"}
    lib.add("more.npz", "more.mp4", clustered(1200, seed=8))  # delta past MERGE_ROWS
    videos["more.npz"] = clustered(1200, seed=8)
    manifest = lib.manifest()
    assert manifest["main"] != main and manifest["main_removed"] == [] and not trained
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == sorted(
        p.name for p in lib.files()
    )  # the old main file and the folded delta files are gone
    recalls = [recall_at_k(found_ids(lib, q, 10), exact_ids(videos, lib, q, 10))
               for q in clustered(20, seed=98)]  # fmt: skip
    assert np.mean(recalls) >= 0.95


def test_a_fresh_reader_sees_what_a_writer_saved(tmp_path, small_thresholds):
    writer = LibraryIndex(tmp_path, "lib")
    rows = clustered(2500, seed=3)
    writer.add("a.npz", "a.mp4", rows)
    reader = LibraryIndex(tmp_path, "lib")
    assert len(reader) == 2500 and reader.search(rows[17], 1)[0].row == 17


def test_a_missing_file_is_found_out_and_the_index_can_be_cleared(tmp_path, small_thresholds):
    lib = LibraryIndex(tmp_path, "lib")
    lib.add("a.npz", "a.mp4", clustered(2500, seed=3))
    lib.add("b.npz", "b.mp4", clustered(100, seed=4))
    for path in lib.files()[1:]:  # e.g. `cache clean` took them
        path.unlink()
    with pytest.raises((OSError, RuntimeError)):
        LibraryIndex(tmp_path, "lib").search(clustered(1, seed=5)[0], 5)
    lib.clear()
    assert len(lib) == 0 and lib.manifest()["main"] is None and lib.search(np.ones(48), 5) == []
