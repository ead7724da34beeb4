"""Plain loops that say what the vectorised perception computes: the cut detector
(`cuts.py`) and the foreground localiser (`foreground.py`). Slow and obvious on purpose; the
tests hold the fast code against them on random and hostile inputs."""

from __future__ import annotations

import numpy as np

from .cuts import CUT_CELL, CUT_GRID, CUT_SPIKE, MIN_CHANGED, PIXEL_STEP


def pair_changes(small: np.ndarray) -> tuple[list[float], list[list[list[bool]]]]:
    """`cuts.pair_changes`, pixel by pixel."""
    gray_shares, colour_masks = [], []
    for k in range(len(small) - 1):
        a, b = small[k].astype(int), small[k + 1].astype(int)
        h, w = a.shape[:2]
        gray, mask = 0, []
        for y in range(h):
            row = []
            for x in range(w):
                d = [int(b[y, x, c]) - int(a[y, x, c]) for c in range(3)]
                gray += abs(sum(d)) > 3 * PIXEL_STEP
                row.append(any(abs(v) > PIXEL_STEP for v in d))
            mask.append(row)
        gray_shares.append(gray / (h * w))
        colour_masks.append(mask)
    return gray_shares, colour_masks


def cut_pairs(changes: np.ndarray) -> list[bool]:
    """`cuts.cut_pairs`, cell by cell and pair by pair."""
    changes = np.asarray(changes, bool)
    p, h, w = changes.shape
    rows = [int(v) for v in np.linspace(0, h, CUT_GRID + 1)]
    cols = [int(v) for v in np.linspace(0, w, CUT_GRID + 1)]
    shares = [float(changes[k].sum()) / (h * w) for k in range(p)]
    out = []
    for k in range(p):
        every_cell = True
        for i in range(CUT_GRID):
            for j in range(CUT_GRID):
                cell = changes[k, rows[i] : rows[i + 1], cols[j] : cols[j + 1]]
                if cell.size and cell.sum() / cell.size < CUT_CELL:
                    every_cell = False
        around = [shares[k + d] for d in (-2, -1, 1, 2) if 0 <= k + d < p]
        spike = shares[k] >= CUT_SPIKE * max([*around, 0.0, MIN_CHANGED])
        out.append(every_cell or spike)
    return out


def cuts(small: np.ndarray) -> list[bool]:
    """`cuts.cuts`: walk the frames, skipping each that equals the one kept before it."""
    small = np.asarray(small, np.int16)
    out = [False] * max(len(small) - 1, 0)
    kept, pair_of = [0], []  # frames kept; for each pair of kept frames, its last raw pair
    for k in range(1, len(small)):
        if np.abs(small[k] - small[k - 1]).max() > PIXEL_STEP:
            kept.append(k)
            pair_of.append(k - 1)
    if len(kept) < 2:
        return out
    _, changes = pair_changes(small[kept])
    for pair, cut in zip(pair_of, cut_pairs(np.array(changes, bool)), strict=True):
        out[pair] = cut
    return out
