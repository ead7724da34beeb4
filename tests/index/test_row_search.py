"""Exact row search against a full sort; the stored row counts of index entries."""

from __future__ import annotations

import numpy as np
import pytest

import longground.index.row_search as row_search
from longground.index.row_search import RowMatrix


def unit_rows(n, d=32, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("n", [1, 7, 70_000])
def test_exact_top_matches_a_full_sort(n, monkeypatch):
    monkeypatch.setattr(row_search, "_CHUNK_ROWS", 1000)  # several chunks
    rows, q = unit_rows(n), unit_rows(1, seed=1)[0]
    matrix = RowMatrix(rows, np.zeros(n))
    k = min(10, n)
    idx, scores = matrix.exact_top(q, k)
    full = matrix.rows.astype(np.float32) @ q
    np.testing.assert_array_equal(np.sort(full)[::-1][:k], scores)
    assert (np.diff(scores) <= 0).all() and len(set(idx.tolist())) == k


def test_stored_rows_reads_the_count_of_computed_rows_from_the_manifest(tmp_path):
    from longground.index.library_search import stored_rows
    from longground.index.storage import read_computed, write_timeline
    from longground.index.timeline import Timeline

    encoded = np.array([True, False, False, True, False])
    timeline = Timeline(np.arange(5.0), {"embedding": unit_rows(5, 8)}, "e", 1, 5.0,
                        np.arange(5.0), encoded=encoded)  # fmt: skip
    path, key = tmp_path / "v.npz", {"video": "fp", "encoder": "e", "fps": "1"}
    write_timeline(path, timeline, key)
    assert stored_rows(path, key) == 2
    assert stored_rows(path, {**key, "fps": "2"}) is None
    assert stored_rows(tmp_path / "missing.npz", key) is None
    computed = read_computed(path, key)
    assert computed.dtype == np.float16 and computed.shape == (2, 8)
    np.testing.assert_allclose(computed, timeline.features["embedding"][[0, 3]], atol=1e-3)
