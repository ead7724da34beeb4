"""Plain loops that say what the vectorised perception computes: the cut detector
(`perception.cuts`) and the foreground localiser (`agent.foreground`). Slow and obvious on
purpose; the tests hold the fast code against them on random and hostile inputs."""

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
    """`cuts.cuts`: walk the pairs, reading only those in which some pixel moves."""
    small = np.asarray(small, np.int16)
    out = [False] * max(len(small) - 1, 0)
    moved = [k for k in range(len(small) - 1)
             if np.abs(small[k + 1] - small[k]).max() > PIXEL_STEP]  # fmt: skip
    if not moved:
        return out
    changes = [pair_changes(small[k : k + 2])[1][0] for k in moved]
    for pair, cut in zip(moved, cut_pairs(np.array(changes, bool)), strict=True):
        out[pair] = cut
    return out


def excess(distance: np.ndarray) -> list[list[list[float]]]:
    """`foreground.excess` for `(T, h, w)` distances: frame by frame, each pixel less the
    frame's median, at least 0."""
    out = []
    for frame in np.asarray(distance, np.float64):
        values = sorted(float(v) for v in frame.ravel())
        n = len(values)
        median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
        out.append([[max(float(v) - median, 0.0) for v in row] for row in frame])
    return out


def parts(mask: np.ndarray, k: int, share: float) -> list[set[tuple[int, int]]]:
    """`foreground.parts` with a `k` x `k` opening: erode then dilate pixel by pixel (what lies
    outside the frame takes no part in either), flood-fill 8-connected regions, keep those of
    at least `share` of the largest's area, largest first (ties in scan order)."""
    mask = np.asarray(mask, bool)
    h, w = mask.shape
    r = k // 2

    def window(y: int, x: int):
        return [(y + dy, x + dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1)]

    eroded = {
        (y, x)
        for y in range(h)
        for x in range(w)
        if all(mask[v, u] for v, u in window(y, x) if 0 <= v < h and 0 <= u < w)
    }
    opened = {(v, u) for y, x in eroded for v, u in window(y, x) if 0 <= v < h and 0 <= u < w}
    regions, seen = [], set()
    for y in range(h):
        for x in range(w):
            if (y, x) in opened and (y, x) not in seen:
                region, todo = set(), [(y, x)]
                seen.add((y, x))
                while todo:
                    v, u = todo.pop()
                    region.add((v, u))
                    for dv in (-1, 0, 1):
                        for du in (-1, 0, 1):
                            nxt = (v + dv, u + du)
                            if nxt in opened and nxt not in seen:
                                seen.add(nxt)
                                todo.append(nxt)
                regions.append(region)
    if not regions:
        return []
    largest = max(len(g) for g in regions)
    kept = [g for g in regions if len(g) >= share * largest]
    return sorted(kept, key=lambda g: -len(g))
