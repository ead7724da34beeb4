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
