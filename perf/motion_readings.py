"""What the agent's motion measures read on each kind of shot of a synthetic rendering: the
figures the thresholds of `perception/motion.py` were chosen from (docs/notes/agent-log.md,
"Reading motion").

    python perf/motion_readings.py VIDEO.mp4 [VIDEO.mp4 ...] [--fps 2] [--png OUT.png]

Each video needs its `VIDEO.shots.tsv` (written by `longground synth`). Every shot is sampled
at `--fps` (half a second left out at both ends, as a shot boundary is), measured with
`graph.flow.field_stats` and `centroid_track`, and averaged; per shot kind the table gives the
median and range of the per-second pan, zoom, approach, RMS flow and tracked move. `--png`
plots zoom against pan per shot, coloured by kind, with the thresholds.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np

from longground.agent.graph.flow import centroid_track, flow_stats, small_gray
from longground.agent.settings import AgentSettings

COLUMNS = ("pan", "zoom", "approach", "flow", "track")


def seconds(text: str) -> float:
    h, m, s = text.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def shots(video: Path) -> list[tuple[float, float, str]]:
    lines = video.with_suffix(".shots.tsv").read_text().splitlines()[1:]
    return [(seconds(a), seconds(b), kind) for a, b, kind, *_ in (ln.split("\t") for ln in lines)]


def sampled(video: Path, fps: float):
    """Yields `(time_s, RGB frame)` every 1 / fps seconds of the video, decoded in order."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    rate = cap.get(cv2.CAP_PROP_FPS)
    index, due = 0, 0.0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        t = index / rate
        index += 1
        if t + 1e-6 >= due:
            yield t, cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
            due += 1 / fps


def frames_at(video: Path, fps: float) -> tuple[np.ndarray, np.ndarray]:
    """Grey flow-size frames every 1 / fps seconds and their times."""
    grays, times = [], []
    for t, frame in sampled(video, fps):
        grays.append(small_gray(frame[None])[0])
        times.append(t)
    return np.stack(grays), np.array(times)


def readings(video: Path, fps: float) -> list[tuple[str, np.ndarray]]:
    """Per shot (clips left out: real footage): its kind and the 5 per-second measures."""
    gray, times = frames_at(video, fps)
    out = []
    for start, end, kind in shots(video):
        inside = (times >= start + 0.5) & (times <= end - 0.5)
        if inside.sum() < 3 or kind == "clip":
            continue
        g = gray[inside]
        mean = flow_stats(g).mean(axis=0)
        track = centroid_track(g)
        weight = track[:, 1].sum()
        moved = float(track[:, 0] @ track[:, 1] / weight) if weight > 0 else 0.0
        out.append((kind, np.r_[mean[2:5], mean[0], moved] * fps))
    return out


def table(rows: list[tuple[str, np.ndarray]]) -> str:
    by_kind = defaultdict(list)
    for kind, values in rows:
        by_kind[kind].append(values)
    lines = ["| kind | shots | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 2) + "|"]
    for kind in sorted(by_kind):
        v = np.array(by_kind[kind])
        cells = [
            f"{np.median(v[:, j]):+.4f} [{v[:, j].min():+.4f}, {v[:, j].max():+.4f}]"
            for j in range(len(COLUMNS))
        ]
        lines.append(f"| {kind} | {len(v)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[tuple[str, np.ndarray]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = AgentSettings()
    fig, ax = plt.subplots(figsize=(8.5, 5))
    kinds = sorted({k for k, _ in rows})
    for i, kind in enumerate(kinds):
        v = np.array([x for k, x in rows if k == kind])
        marker = "os^Dv"[i % 5]
        ax.scatter(v[:, 0], v[:, 1], label=kind, s=26, marker=marker, color=plt.cm.tab20(i % 20))
    ax.axhspan(-s.zoom_min, s.zoom_min, color="0.9", zorder=0, label="|zoom| < zoom_min")
    ax.axvspan(-s.pan_min, s.pan_min, color="0.8", zorder=0, label="|pan| < pan_min")
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel("pan per second (fraction of the frame width)")
    ax.set_ylabel("zoom per second (relative scale change)")
    ax.set_title("Motion measures per shot (whole-shot means)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("videos", nargs="+", type=Path)
    parser.add_argument("--fps", type=float, default=2.0)
    parser.add_argument("--png", type=Path)
    args = parser.parse_args()
    rows = [row for video in args.videos for row in readings(video, args.fps)]
    print(table(rows))
    if args.png:
        plot(rows, args.png)


if __name__ == "__main__":
    main()
