"""What the keypoint reading of the camera (`perception/camera.py` `camera_move`) gives on
each kind of shot of a synthetic rendering, beside the dense flow's zoom and pan: the figures
`zoom_min` is checked against for it (docs/notes/agent-log.md, "Reading motion").

    python perf/camera_readings.py VIDEO.mp4 [VIDEO.mp4 ...]

Each video needs its `VIDEO.shots.tsv` (written by `longground synth`). Every shot is read as
one instance from half a second inside its ends (`camera_move` with a 1-second step); per
shot kind the table gives the median and range of the keypoint zoom and pan per second, the
flow's pan per second (`field_stats` on 2 fps samples) and the ratio of the larger pan to the
smaller (`PAN_AGREE`), over the shots whose flow reads a pan (at least `pan_min`) that the
keypoints' shift has the sign of.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from motion_readings import sampled, shots

from longground.agent.graph.flow import flow_stats, small_gray
from longground.agent.perception.camera import camera_move
from longground.agent.settings import AgentSettings

COLUMNS = ("zoom per s", "pan per s", "flow pan per s", "pan ratio")


def decoded(video: Path, fps: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """RGB frames every 1 / fps seconds and their times."""
    times, frames = zip(*sampled(video, fps), strict=True)
    return np.stack(frames), np.array(times)


def readings(video: Path) -> list[tuple[str, np.ndarray]]:
    frames, times = decoded(video)  # 4 fps: the chain's frames lie near the times asked
    gray = small_gray(frames[::2])  # the flow on every other one: 2 fps
    fps, flow_times = 2.0, times[::2]

    def frames_at(times_s: np.ndarray) -> np.ndarray:
        return frames[[int(np.argmin(np.abs(times - t))) for t in times_s]]

    out, pan_min = [], AgentSettings().pan_min
    for start, end, kind in shots(video):
        inside = (flow_times >= start + 0.5) & (flow_times <= end - 0.5)
        if inside.sum() < 3 or kind == "clip":
            continue
        zoom, pan = camera_move(frames_at, (start, end), 1.0)
        flow_pan = flow_stats(gray[inside])[:, 2].mean() * fps
        small, large = sorted((abs(pan), abs(flow_pan)))
        pans = abs(flow_pan) >= pan_min and np.sign(pan) == np.sign(flow_pan)
        ratio = large / small if pans and small > 0 else np.nan
        out.append((kind, np.array([zoom, pan, flow_pan, ratio])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("videos", nargs="+", type=Path)
    args = parser.parse_args()
    by_kind = defaultdict(list)
    for video in args.videos:
        for kind, values in readings(video):
            by_kind[kind].append(values)
    print("| kind | shots | " + " | ".join(COLUMNS) + " |\n" + "|---" * (len(COLUMNS) + 2) + "|")
    for kind in sorted(by_kind):
        v = np.array(by_kind[kind])
        cells = []
        for j in range(len(COLUMNS)):
            x = v[:, j][np.isfinite(v[:, j])]
            cells.append(f"{np.median(x):+.4f} [{x.min():+.4f}, {x.max():+.4f}]" if len(x) else "-")
        print(f"| {kind} | {len(v)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
