"""What the keypoint reading of the camera (`perception/camera.py` `camera_move`) gives on
each kind of shot of a synthetic rendering, beside the dense flow's zoom and pan: the figures
`zoom_min` is checked against for it (docs/agent.md, "Reading motion").

    python perf/camera_readings.py VIDEO.mp4 [VIDEO.mp4 ...]

Each video needs its `VIDEO.shots.tsv` (written by `longground synth`). Every shot is read as
one instance from half a second inside its ends (`camera_move` with a 1-second step); per
shot kind the table gives the median and range of the keypoint zoom and pan per second.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from motion_readings import shots

from longground.agent.perception.camera import camera_move


def decoded(video: Path, fps: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """RGB frames every 1 / fps seconds and their times."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    rate = cap.get(cv2.CAP_PROP_FPS)
    frames, times, index, due = [], [], 0, 0.0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        t = index / rate
        index += 1
        if t + 1e-6 >= due:
            frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            times.append(t)
            due += 1 / fps
    return np.stack(frames), np.array(times)


def readings(video: Path) -> list[tuple[str, float, float]]:
    frames, times = decoded(video)

    def frames_at(times_s: np.ndarray) -> np.ndarray:
        return frames[[int(np.argmin(np.abs(times - t))) for t in times_s]]

    out = []
    for start, end, kind in shots(video):
        if end - start < 2 or kind == "clip":
            continue
        out.append((kind, *camera_move(frames_at, (start, end), 1.0)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("videos", nargs="+", type=Path)
    args = parser.parse_args()
    by_kind = defaultdict(list)
    for video in args.videos:
        for kind, zoom, pan in readings(video):
            by_kind[kind].append((zoom, pan))
    print("| kind | shots | zoom per s | pan per s |\n|---|---|---|---|")
    for kind in sorted(by_kind):
        v = np.array(by_kind[kind])
        cells = [
            f"{np.median(v[:, j]):+.4f} [{v[:, j].min():+.4f}, {v[:, j].max():+.4f}]"
            for j in (0, 1)
        ]
        print(f"| {kind} | {len(v)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
