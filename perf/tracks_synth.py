"""Tracks on a generated benchmark with exact boxes: per-object counts and spatio-temporal
grounding (the `stvg` protocol), for a method through `longground.find(..., tracks=True)`.

    longground synth --out DIR --videos 3 --minutes 3
    python perf/tracks_synth.py DIR --out RESULTS [--method agent]
    longground eval RESULTS/stvg_truth.jsonl RESULTS/stvg_pred.jsonl --protocol stvg

1. Counts. For every video and every category `synth` pastes as a photo (cat, coffee cup,
   rocket, motorcycle, tripod camera, horse; the traffic and bicycle shots are whole frames,
   not objects), the query "how many <noun>s appear": the truth is the number of tracks in
   DIR/boxes/ of that category (one per appearance: an object that comes back in a later
   shot is counted again, as a tracker without re-identification counts it). Prints, per
   category, the objects count's and the shots count's mean absolute error, and writes
   RESULTS/counts.jsonl.
2. STVG. Every positive query of the benchmark with one GT interval, whose target names one
   category, shown in that interval by exactly one box track: the truth tube is that
   interval with that track's boxes (RESULTS/stvg_truth.jsonl, at the video's frame rate);
   the prediction is the method's best moment with its main track (`tracking.tubes.tube_of`,
   RESULTS/stvg_pred.jsonl). Then `longground eval --protocol stvg` scores them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from longground import find
from longground.formats.lines import write_jsonl
from longground.formats.tracks import read_tracks
from longground.synth.catalog import CATEGORIES as CATALOG
from longground.tracking.tubes import tube_of
from longground.video import probe

#: The categories pasted as photos: `{name: (the count query's plural, words naming it)}`.
CATEGORIES = {
    c.name: (f"{c.noun}s", {c.noun, *(p.split(" ", 1)[1] for p in c.phrases)})
    for c in CATALOG.values()
    if c.kind == "photo"
}


def video_tracks(folder: Path) -> dict[str, list]:
    """`{video name: [(track, about), ...]}` from DIR/boxes/*.jsonl."""
    out = {}
    for path in sorted((folder / "boxes").glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        out[path.stem] = list(zip(read_tracks(path), lines))
    return out


def count_rows(folder: Path, truth: dict, method: str) -> list[dict]:
    rows = []
    for name, tracks in truth.items():
        video = folder / "videos" / f"{name}.mp4"
        for category, (plural, _) in CATEGORIES.items():
            query = f"how many {plural} appear"
            started = time.perf_counter()
            found = find(video, query, method=method, tracks=True)
            rows.append({"video": name, "category": category, "query": query,
                         "truth": sum(t.label == category for t, _ in tracks),
                         "objects": found.objects, "shots": found.moments.count,
                         "seconds": time.perf_counter() - started})  # fmt: skip
            print(json.dumps(rows[-1]), flush=True)
    return rows


def named_category(query: str) -> str | None:
    """The one category a query names, or None (none, or several)."""
    text = query.lower()
    named = [c for c, (_, names) in CATEGORIES.items() if any(n in text for n in names)]
    return named[0] if len(named) == 1 else None


def stvg_truth(folder: Path, truth: dict) -> list[dict]:
    tubes = []
    for line in (folder / "benchmark.jsonl").read_text().splitlines():
        sample = json.loads(line)
        category = named_category(sample["query"])
        if len(sample["intervals"]) != 1 or category is None:
            continue
        start_s, end_s = sample["intervals"][0]
        name = Path(sample["video"]).stem
        inside = [t.during(start_s, end_s) for t, _ in truth.get(name, []) if t.label == category]
        inside = [t for t in inside if len(t)]
        if len(inside) != 1:
            continue
        fps = float(probe(folder / sample["video"]).fps)
        tubes.append({"qid": sample["qid"], "video": sample["video"],
                      "query": sample["query"], "fps": fps, "span": [start_s, end_s],
                      "track": inside[0].to_dict()})  # fmt: skip
    return tubes


def stvg_predictions(folder: Path, tubes: list[dict], method: str) -> list[dict]:
    preds = []
    for tube in tubes:
        found = find(folder / tube["video"], tube["query"], method=method, tracks=True,
                     count_objects=False)  # fmt: skip
        line = tube_of(tube["qid"], found.moments, found.tracks, fps=tube["fps"])
        if line is not None:
            preds.append(line)
        print(tube["qid"], found.moments.count, "moments", flush=True)
    return preds


def summary(rows: list[dict]) -> None:
    by = defaultdict(list)
    for row in rows:
        by[row["category"]].append(row)
    print(f"{'category':<12}{'queries':>8}{'truth':>7}{'objects MAE':>13}{'shots MAE':>11}")
    for category, group in [*by.items(), ("all", rows)]:
        n = len(group)
        objects = sum(abs(r["objects"] - r["truth"]) for r in group) / n
        shots = sum(abs(r["shots"] - r["truth"]) for r in group) / n
        truths = sum(r["truth"] for r in group)
        print(f"{category:<12}{n:>8}{truths:>7}{objects:>13.2f}{shots:>11.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("benchmark", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--method", default="agent")
    parser.add_argument("--skip-counts", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    truth = video_tracks(args.benchmark)
    if not args.skip_counts:
        rows = count_rows(args.benchmark, truth, args.method)
        write_jsonl(args.out / "counts.jsonl", rows)
        summary(rows)
    tubes = stvg_truth(args.benchmark, truth)
    write_jsonl(args.out / "stvg_truth.jsonl", tubes)
    write_jsonl(args.out / "stvg_pred.jsonl", stvg_predictions(args.benchmark, tubes, args.method))
    command = [sys.executable, "-m", "longground", "eval", str(args.out / "stvg_truth.jsonl"),
               str(args.out / "stvg_pred.jsonl"), "--protocol", "stvg"]  # fmt: skip
    return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main())
