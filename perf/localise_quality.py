"""How well `tracking.localise` finds each category of a generated video, against the exact
boxes `synth` writes (`boxes/`), with the default settings.

    python perf/localise_quality.py BENCH_DIR [--rate 1]

Per category, over the video's frames at `--rate`: the frames that show it, the share of
them where the localiser found it, the frames without it where it found something, and the
IoU of its best-scored box with the nearest exact box (mean and median over the frames that
show it, 0 where nothing was found). A photo's exact box is the whole photo, which for the
motorcycle and rocket photos holds a garage and a launch pad around the object.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from longground.formats.tracks import read_tracks
from longground.track import box_iou
from longground.tracking.localise import localise
from longground.video import sample_frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench")
    parser.add_argument("--rate", type=float, default=1.0)
    args = parser.parse_args()
    video = sorted((Path(args.bench) / "videos").glob("*.mp4"))[0]
    exact = read_tracks(Path(args.bench) / "boxes" / f"{video.stem}.jsonl")
    batches = list(sample_frames(video, args.rate, short_side=None))
    frames = np.concatenate([b.frames for b in batches])
    times = np.concatenate([b.pts_s for b in batches])
    print(f"{video.name}: {len(frames)} frames at {args.rate:g} fps")
    for label in sorted({t.label for t in exact} - {"ball", "traffic"}):
        start = time.perf_counter()
        found = localise(frames, label)
        ms = (time.perf_counter() - start) / len(frames) * 1000
        ious, hits, false = [], 0, 0
        for k, t_s in enumerate(times):
            truth = [t.boxes[np.isclose(t.times_s, t_s)] for t in exact if t.label == label]
            truth = np.concatenate([b for b in truth if len(b)] or [np.zeros((0, 4))])
            mine = found.in_frame(k).boxes[:1]
            if not len(truth):
                false += bool(len(mine))
                continue
            hits += bool(len(mine))
            ious.append(box_iou(np.repeat(mine, len(truth), 0), truth).max() if len(mine) else 0.0)
        print(f"  {label:11s} frames {len(ious):4d}  found {hits / max(len(ious), 1):5.1%}  "
              f"false frames {false:3d}  IoU mean {np.mean(ious or [0]):.3f} "
              f"median {np.median(ious or [0]):.3f}  ({ms:.0f} ms a frame)")  # fmt: skip


if __name__ == "__main__":
    main()
