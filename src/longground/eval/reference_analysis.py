"""Naive references for the analysis figures: query diversity, the failure taxonomy and
top-K window recall, written as plain loops straight from their definitions.

Slow on purpose and kept apart from the fast code (`diversity.py`, `taxonomy.py`,
`window_recall.py`); the tests hold one against the other on random inputs.
"""

from __future__ import annotations

import re


def tokens(text: str) -> list[str]:
    """Lower-cased tokens `[a-z0-9]+(?:'[a-z]+)?`."""
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())


def diversity(queries: list[str], window: int = 50) -> dict:
    """Every `stats --json` figure, each computed by its own loop.

    >>> diversity(["a b a", "c"], window=2)["mattr"]
    1.0
    """
    per_query = [tokens(q) for q in queries]
    stream = []
    for toks in per_query:
        stream.extend(toks)
    out: dict = {"n_queries": len(queries), "n_tokens": len(stream)}
    out["ttr"] = len(set(stream)) / len(stream) if stream else 0.0
    if not stream:
        out["mattr"] = 0.0
    elif len(stream) < window:
        out["mattr"] = len(set(stream)) / len(stream)
    else:
        ratios = []
        for start in range(len(stream) - window + 1):
            ratios.append(len(set(stream[start : start + window])) / window)
        out["mattr"] = sum(ratios) / len(ratios)
    for n in range(1, 5):
        grams = []
        for toks in per_query:
            for i in range(len(toks) - n + 1):
                grams.append(tuple(toks[i : i + n]))
        out[f"distinct_{n}"] = len(set(grams)) / len(grams) if grams else 0.0
        if n == 2:
            out["unique_bigrams"] = len(set(grams))
    counts: dict[tuple, int] = {}
    for toks in per_query:
        key = tuple(toks[:4])
        counts[key] = counts.get(key, 0) + 1
    out["unique_stems"] = len(counts)
    top = sorted(counts.values(), reverse=True)[:5]
    out["top5_stem_coverage"] = sum(top) / len(queries) if queries else 0.0
    return out


def taxonomy_class(
    gt: list[tuple[float, float]],
    first_pred: tuple[float, float] | None,
    iou: float,
    status: str,
    fail_iou: float,
    offset_s: float,
) -> str | None:
    """The failure class of one positive query, or None when it did not fail.

    `status` is "answered", "missing" or "parse_failure"; `first_pred` is None when the
    answer names no interval.

    >>> taxonomy_class([(0.0, 10.0)], (400.0, 420.0), 0.0, "answered", 0.05, 300.0)
    'search_fail'
    """
    if not iou < fail_iou:
        return None
    if status == "parse_failure":
        return "parse_fail"
    if status == "missing" or first_pred is None:
        return "no_answer"
    mid = (first_pred[0] + first_pred[1]) / 2
    nearest = min(abs(mid - (s + e) / 2) for s, e in gt)
    return "search_fail" if nearest > offset_s else "localization_fail"


def window_recall(gts: list, windows: list, ks=(1, 3, 10)) -> dict:
    """Top-K window recall, one query and one window at a time.

    >>> window_recall([[(5.0, 6.0)]], [[(0.0, 4.0), (4.0, 8.0)]], ks=(1, 2))["inside@2"]
    1.0
    """
    out: dict = {"n_queries": sum(1 for g in gts if g)}
    for name in ("inside", "overlap"):
        for k in ks:
            hits, total = 0, 0
            for gt, wins in zip(gts, windows, strict=True):
                if not gt:
                    continue
                total += 1
                found = False
                for gs, ge in gt:
                    for ws, we in wins[:k]:
                        inside = ws <= gs and ge <= we
                        if inside or (name == "overlap" and min(ge, we) - max(gs, ws) > 0):
                            found = True
                hits += found
            out[f"{name}@{k}"] = hits / total if total else None
    return out
