"""Draw the real queries that data/queries/real_queries.jsonl labels by hand.

From each of the three annotation files in data/ (Charades-STA test, QVHighlights val,
ActivityNet Captions val), read with longground's own readers, 105 distinct queries: 21 from
each fifth of the file's queries ordered by word count, so short and long queries are drawn
alike. Seeded: the same files give the same draw.

    PYTHONPATH=src python perf/real_query_sample.py > /tmp/sample.jsonl

prints one JSON object per line: {"source", "id", "query"}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from longground.formats import load_samples

SOURCES = {
    "charades-sta": "data/charades_sta/charades_sta_test.txt",
    "qvhighlights": "data/qvhighlights/highlight_val_release.jsonl",
    "activitynet-captions": "data/activitynet_captions/val.json",
}
SEED, STRATA, PER_STRATUM = 33, 5, 21


def sample_source(path: Path, rng: np.random.Generator) -> list[tuple[str, str]]:
    """(qid, query) pairs: `PER_STRATUM` from each word-count stratum of distinct queries."""
    first: dict[str, str] = {}
    for s in load_samples(path):
        first.setdefault(" ".join(s.query.split()), s.qid)
    queries = sorted(first, key=lambda q: (len(q.split()), q))
    out = []
    for stratum in np.array_split(np.arange(len(queries)), STRATA):
        for i in sorted(rng.choice(stratum, PER_STRATUM, replace=False)):
            out.append((first[queries[i]], queries[i]))
    return out


def main(root: Path = Path(".")) -> None:
    rng = np.random.default_rng(SEED)
    for source, path in SOURCES.items():
        for qid, query in sample_source(root / path, rng):
            sys.stdout.write(json.dumps({"source": source, "id": qid, "query": query}) + "\n")


if __name__ == "__main__":
    main()
