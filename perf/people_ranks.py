"""Queries for one person by rank on the held-out montages, with truth from the manifest.

    longground synth --montage data/montage/heldout.json --out bench/heldout
    python perf/people_ranks.py bench/heldout
    longground run bench/heldout/people.jsonl -o people_pred.jsonl
    longground eval bench/heldout/people.jsonl people_pred.jsonl

Who each clip shows was written by looking at its frames (`PEOPLE`: single_face and the
second half of noface_face show one man; Megamind's cuts alternate a woman and a man in
glasses, the manifest's "woman" and "glasses" spans). Each montage's timeline
(`VIDEO.timeline.tsv`) says where each clip was laid. The people are ranked by the first
time they are seen. Each of six wordings (`QUERIES`) asks for one of them; "come back"
leaves out the first showing. The script writes `DIR/people.jsonl` (docs/tracks.md,
"People by rank").
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from longground.moments import Moments
from longground.timecode.parse import parse_time
from longground.video import probe

HERE = Path(__file__).resolve().parents[1]
#: Clip -> {person: the manifest label whose spans show that person}.
PEOPLE = {
    "single_face": {"man at a door": "person"},
    "noface_face": {"man at a door": "person"},
    "jwpintro": {"bearded man": "person"},
    "wolfganglanger": {"woman by a wooden wall": "person"},
    "megamind": {"animated woman": "woman", "animated man": "glasses"},
}
#: `(rank, returns, wording)`.
QUERIES = [
    (1, False, "the first person to appear"),
    (2, False, "the second person to appear"),
    (3, False, "Find every time the person that appeared third is on screen"),
    (2, False, "show me the second face to appear"),
    (1, True, "when does the first person come back?"),
    (2, False, "every time the second person we see is on screen"),
]


def person_spans(timeline: Path, clips: dict) -> dict[str, list[list[float]]]:
    """Each person's spans in the montage, touching ones joined, by first appearance."""
    spans: dict[str, list[list[float]]] = {}
    for row in csv.DictReader(timeline.open(), delimiter="\t"):
        if row["what"] != "clip" or row["source"] not in PEOPLE:
            continue
        start, end = parse_time(row["start"]), parse_time(row["end"])
        offset = float(row["from"] or 0)  # where in the clip the montage's piece begins
        for who, label in PEOPLE[row["source"]].items():
            for a, b in clips[row["source"]]["shows"][label]:
                a, b = max(start, start + a - offset), min(end, start + b - offset)
                if b > a:
                    spans.setdefault(who, []).append([round(a, 3), round(b, 3)])
    first = sorted(spans, key=lambda who: min(a for a, _ in spans[who]))
    return {who: Moments.from_list(spans[who]).merge(0.05).to_list() for who in first}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path, help="a folder synth --montage wrote")
    parser.add_argument("--manifest", type=Path, default=HERE / "data/montage/heldout.json")
    args = parser.parse_args()
    clips = {c["id"]: c for c in json.loads(args.manifest.read_text())["clips"]}
    lines = []
    for video in sorted((args.bench / "videos").glob("*.mp4")):
        timeline = video.with_suffix(".timeline.tsv")
        people = person_spans(timeline, clips)
        order = list(people)
        print(video.name, "people by first appearance:", ", ".join(order))
        duration = probe(video).duration_s
        for k, (rank, returns, query) in enumerate(QUERIES):
            spans = people[order[rank - 1]][1 if returns else 0 :]
            lines.append({"qid": f"{video.stem}_people{k}", "video": f"videos/{video.name}",
                          "duration": duration, "query": query, "intervals": spans,
                          "attributes": ["identity", "person"], "domain": "real"})  # fmt: skip
    out = args.bench / "people.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    print(f"{len(lines)} queries -> {out}")


if __name__ == "__main__":
    main()
