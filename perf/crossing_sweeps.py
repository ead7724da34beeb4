"""How far what moves sweeps across the frame in each kind of shot of a synthetic rendering:
the figures `sweep_min` (the "crossing" motion kind) was chosen from
(docs/notes/agent-log.md, "Reading motion").

    python perf/crossing_sweeps.py VIDEO.mp4 [VIDEO.mp4 ...] [--step 0.5]

Each video needs its `VIDEO.shots.tsv` (written by `longground synth`). Every shot in which
an object moves is read as one instance by `perception.crossing.run_sweep` (the verifier's
reading, with `--step` the timeline step: 0.5 s for a video under 10 minutes at the short
profile), decoding frames with the project's own decoder; per shot kind the table gives the
range of the sweeps, then every shot.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from longground.agent.perception.crossing import run_sweep
from longground.video import frames_at

KINDS = ("cross", "enter", "exit", "pair", "causal_miss", "causal_hit")


def seconds(text: str) -> float:
    h, m, s = text.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def sweeps(video: Path, step_s: float) -> list[tuple[str, float, float, float, str]]:
    """`(kind, start_s, end_s, sweep, contents)` per shot of a kind in `KINDS`."""
    rows = []
    lines = video.with_suffix(".shots.tsv").read_text().splitlines()[1:]
    decode = lambda times: frames_at(video, np.asarray(times, np.float64)).frames  # noqa: E731
    for line in lines:
        start, end, kind, _, contents = line.split("\t")
        if kind in KINDS:
            span = (seconds(start), seconds(end))
            rows.append((kind, *span, run_sweep(decode, span, step_s), contents))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("videos", nargs="+", type=Path)
    parser.add_argument("--step", type=float, default=0.5, help="timeline step, seconds")
    args = parser.parse_args()
    rows = [row for video in args.videos for row in sweeps(video, args.step)]
    by_kind = defaultdict(list)
    for kind, *_, sweep, _ in rows:
        by_kind[kind].append(sweep)
    print("| shot kind | shots | sweep (fraction of the width) |\n|---|---|---|")
    for kind in KINDS:
        if by_kind[kind]:
            v = by_kind[kind]
            print(f"| {kind} | {len(v)} | {min(v):.2f}-{max(v):.2f} |")
    print()
    for kind, start_s, end_s, sweep, contents in sorted(rows):
        print(f"{kind:11s} {start_s:8.1f}-{end_s:8.1f} {sweep:.3f}  {contents}")


if __name__ == "__main__":
    main()
