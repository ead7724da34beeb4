"""A random benchmark and two methods' predictions for the report tests and benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ATTRS = ["causal", "sequential", "static", "dynamic", "identity"]
DOMAINS = ["sports", "surveillance", "cooking"]


def write_bench(folder: Path, n_queries: int = 60, seed: int = 0) -> tuple[Path, list[Path]]:
    """`gt.jsonl` (positives with 1-3 intervals, every 5th negative, durations 5-120 min) and
    `pred_a.jsonl` (near the GT) / `pred_b.jsonl` (random, some parse failures)."""
    rng = np.random.default_rng(seed)
    gt, a, b = [], [], []
    for i in range(n_queries):
        duration = float(rng.choice([300, 1200, 2400, 4000, 6000]))
        spans = [] if i % 5 == 4 else _spans(rng, duration, int(rng.integers(1, 4)))
        attrs = [str(a) for a in rng.choice(ATTRS, 2, replace=False)] + (
            [] if spans else ["negative"]
        )
        gt.append(
            {
                "qid": f"q{i}",
                "video": f"v{i % 7}.mp4",
                "duration": duration,
                "query": f"person {i % 11} does thing {i % 13}",
                "intervals": spans,
                "attributes": attrs,
                "domain": DOMAINS[i % 3],
            }
        )
        near = [[s + rng.normal(0, 5), e + rng.normal(0, 5)] for s, e in spans]
        a.append({"qid": f"q{i}", "intervals": [[max(0, s), max(s + 1, e)] for s, e in near]})
        if i % 9 == 0:
            b.append({"qid": f"q{i}", "response": "I am not sure."})
        else:
            b.append({"qid": f"q{i}", "intervals": _spans(rng, duration, int(rng.integers(0, 3)))})
    paths = []
    for name, rows in (("gt", gt), ("pred_a", a), ("pred_b", b)):
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(path)
    return paths[0], paths[1:]


def _spans(rng, duration: float, n: int) -> list[list[float]]:
    starts = np.sort(rng.uniform(0, duration - 60, n))
    return [[float(s), float(s + rng.uniform(2, 50))] for s in starts]
