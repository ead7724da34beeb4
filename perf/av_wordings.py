"""Ask the queries of an audio-visual benchmark (`longground synth --av`) in a user's words:
two wordings of each query, from one set of phrasings written by hand
(`data/queries/av_phrasings.json`, sets A to I; README there), with the query's own truth.

    python perf/av_wordings.py AV/benchmark.jsonl G -o AV/wordG.jsonl
    longground run AV/wordG.jsonl -o wordG_pred.jsonl
    longground eval AV/wordG.jsonl wordG_pred.jsonl --by attribute

The output lies beside the benchmark (its video paths are relative to it). Each query kind
of the generator (someone says W, the slide reads T, the caption says C, the score is X-Y, a
person, a face) has its own list; the wordings are dealt from it in turn, so each phrasing
is asked of several words and videos.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

PHRASINGS = Path(__file__).resolve().parents[1] / "data" / "queries" / "av_phrasings.json"
WORDINGS_PER_QUERY = 2
# The generator's wording of each kind, and the words it names.
_KINDS = {
    "say": re.compile(r"someone says (?P<w>.+)"),
    "slide": re.compile(r"the slide reads (?P<t>.+)"),
    "caption": re.compile(r"the caption says (?P<c>.+)"),
    "score": re.compile(r"the score is (?P<x>\d+)-(?P<y>\d+)"),
    "person": re.compile(r"a person"),
    "face": re.compile(r"a face"),
}


def reword(rows: list[dict], phrasings: dict[str, list[str]], name: str) -> list[dict]:
    """Two wordings of each of the generator's own queries (wording 0) in `rows`.

    >>> rows = [{"qid": "q", "query": "someone says budget", "wording": 0}]
    >>> [r["query"] for r in reword(rows, {"say": ["{w} (spoken)", "hear {w}"]}, "Z")]
    ['budget (spoken)', 'hear budget']
    """
    dealt: dict[str, int] = {}
    out = []
    for row in rows:
        if row.get("wording", 0) != 0:
            continue
        kind = row["qid"].split("_")[1]
        words = _KINDS[kind].fullmatch(row["query"])
        if words is None:
            raise ValueError(f"{row['qid']}: {row['query']!r} is not the generator's {kind} query")
        forms = phrasings[kind]
        for k in range(1, WORDINGS_PER_QUERY + 1):
            turn = dealt.get(kind, 0)
            dealt[kind] = turn + 1
            query = forms[turn % len(forms)].format(**words.groupdict())
            out.append({**row, "qid": f"{row['qid']}_{name}{k}", "query": query, "wording": k})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path, help="an audio-visual benchmark.jsonl")
    parser.add_argument("set", help="a set of phrasings in av_phrasings.json (A to I)")
    parser.add_argument("-o", "--out", type=Path, required=True, help="the reworded benchmark")
    args = parser.parse_args(argv)
    if args.out.exists():  # checked first: nothing is read or written for a taken name
        print(f"av_wordings: {args.out} exists; not overwritten", file=sys.stderr)
        return 2
    sets = json.loads(PHRASINGS.read_text(encoding="utf-8"))
    if args.set not in sets:
        print(f"av_wordings: no set {args.set!r} in {PHRASINGS} (sets: {', '.join(sets)})",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        rows = [json.loads(line) for line in args.bench.read_text(encoding="utf-8").splitlines()
                if line.strip()]  # fmt: skip
        out = reword(rows, sets[args.set], args.set)
    except (OSError, ValueError, KeyError, IndexError) as error:
        print(f"av_wordings: {args.bench}: {error}", file=sys.stderr)
        return 2
    try:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in out), encoding="utf-8")
    except OSError as error:  # a folder that is not there, or not writable
        print(f"av_wordings: {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"{len(out)} queries -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
