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

`--oracle` replaces the method by the truth's own spans (no grounding): the counts are of
the tracks on the true appearances, and the tubes are the tracks on the true interval
(RESULTS/counts_oracle.jsonl, RESULTS/stvg_pred_oracle.jsonl). What is lost there is lost
by the localiser and the tracker, not by finding the moments.
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
from longground.moments import Moments
from longground.synth.catalog import CATEGORIES as CATALOG
from longground.tracking.count import count_objects
from longground.tracking.on_moments import target_words, tracks_on
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


def oracle_count_rows(folder: Path, truth: dict) -> list[dict]:
    """The counts of tracks followed through the true appearances of each category."""
    rows = []
    for name, tracks in truth.items():
        video = folder / "videos" / f"{name}.mp4"
        for category, (plural, _) in CATEGORIES.items():
            spans = [[t.start_s, t.end_s + 0.2] for t, _ in tracks if t.label == category]
            moments = Moments.from_list(spans).merge(0.0) if spans else Moments.empty()
            followed = tracks_on(video, moments, plural, progress=False) if spans else []
            rows.append({"video": name, "category": category, "truth": len(spans),
                         "objects": count_objects([t for ts in followed for t in ts]),
                         "shots": moments.count})  # fmt: skip
            print(json.dumps(rows[-1]), flush=True)
    return rows


def oracle_predictions(folder: Path, tubes: list[dict]) -> list[dict]:
    """The tracks followed through each true interval, reduced to one tube."""
    preds = []
    for tube in tubes:
        moments = Moments.from_list([tube["span"]])
        words = target_words(tube["query"])[0] or CATEGORIES[named_category(tube["query"])][0]
        tracks = tracks_on(folder / tube["video"], moments, words, progress=False)
        preds.append(tube_of(tube["qid"], moments, tracks, fps=tube["fps"]))
    return preds


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
    parser.add_argument("--oracle", action="store_true", help="the true spans, no method")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    truth = video_tracks(args.benchmark)
    tail = "_oracle" if args.oracle else ""
    if not args.skip_counts:
        rows = (oracle_count_rows(args.benchmark, truth) if args.oracle
                else count_rows(args.benchmark, truth, args.method))  # fmt: skip
        write_jsonl(args.out / f"counts{tail}.jsonl", rows)
        summary(rows)
    tubes = stvg_truth(args.benchmark, truth)
    write_jsonl(args.out / "stvg_truth.jsonl", tubes)
    preds = (oracle_predictions(args.benchmark, tubes) if args.oracle
             else stvg_predictions(args.benchmark, tubes, args.method))  # fmt: skip
    write_jsonl(args.out / f"stvg_pred{tail}.jsonl", preds)
    command = [sys.executable, "-m", "longground", "eval", str(args.out / "stvg_truth.jsonl"),
               str(args.out / f"stvg_pred{tail}.jsonl"), "--protocol", "stvg"]  # fmt: skip
    return subprocess.run(command).returncode


if __name__ == "__main__":
    sys.exit(main())
