"""Library row search: exact top-k against a full sort, the ANN index against exact search."""

from __future__ import annotations

import numpy as np
import pytest

import longground.index.row_search as row_search
from longground.index.row_search import RowMatrix, recall_at_k


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


def test_ann_finds_nearly_what_exact_search_finds():
    pytest.importorskip("usearch")
    rows = unit_rows(3000)
    matrix = RowMatrix(rows, np.arange(3000) // 100)
    recalls = []
    for q in unit_rows(10, seed=2):
        approx, approx_scores = matrix.ann_top(q, 10)
        exact, _ = matrix.exact_top(q, 10)
        recalls.append(recall_at_k(approx, exact))
        assert (np.diff(approx_scores) <= 0).all()
    assert np.mean(recalls) >= 0.9


def test_top_rows_switches_to_ann_past_the_limit(monkeypatch):
    matrix = RowMatrix(unit_rows(50), np.zeros(50))
    calls = []
    monkeypatch.setattr(RowMatrix, "ann_top", lambda self, q, k: calls.append(k) or (None, None))
    matrix.top_rows(unit_rows(1)[0], 5)
    assert calls == []
    monkeypatch.setattr(row_search, "EXACT_MAX_ROWS", 10)
    matrix.top_rows(unit_rows(1)[0], 5)
    assert calls == [5]
