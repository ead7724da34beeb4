"""Track a target through a real video, count the objects, and draw the tracks.

    python perf/tracks_figure.py VIDEO TARGET --out docs/img/vtest-tracks.png \
        [--rate 5] [--tracks tracks.jsonl] [--frames 4]

Samples VIDEO at `--rate` frames a second, finds TARGET in each (`tracking.localise`),
links the boxes into tracks (`tracking.follow`) and prints the objects count
(`tracking.count`), the seconds spent localising and tracking, and each track's span. The
figure: one frame with every track's path (the bottom middle of its box, a colour per
track) and `--frames` frames spread over the video with the boxes and track numbers drawn.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from longground.errors import UserError
from longground.formats.tracks import write_tracks
from longground.timecode import format_time
from longground.tracking.count import count_objects, object_moments
from longground.tracking.follow import follow
from longground.tracking.localise import localise
from longground.tracking.on_moments import TRACK_FPS


def read_frames(path: str, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """Frames every `1/rate` s at their own size as `(N, H, W, 3)` RGB, and their times."""
    from longground.video import sample_frames

    batches = list(sample_frames(path, rate, short_side=None, batch_size=16))
    return np.concatenate([b.frames for b in batches]), np.concatenate([b.times_s for b in batches])


def draw(frames, times, tracks, out: Path, n_frames: int, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = plt.get_cmap("tab20")
    h, w = frames.shape[1:3]
    picks = np.linspace(0, len(frames) - 1, n_frames + 2)[1:-1].round().astype(int)
    fig = plt.figure(figsize=(4 * n_frames, 3.2 * 2 + 0.4), layout="constrained")
    grid = fig.add_gridspec(2, n_frames)
    paths = fig.add_subplot(grid[0, :])
    paths.imshow(frames[picks[len(picks) // 2]], extent=(0, w, h, 0))
    for t in tracks:
        x = (t.boxes[:, 0] + t.boxes[:, 2]) / 2 * w
        y = t.boxes[:, 3] * h
        paths.plot(x, y, "-", color=colours(t.track_id % 20), linewidth=2)
        label = {"facecolor": colours(t.track_id % 20), "pad": 1, "linewidth": 0}
        paths.text(x[0], y[0], str(t.track_id), color="white", fontsize=8, bbox=label)
    paths.set_title(title, fontsize=10)
    paths.set_axis_off()
    for col, k in enumerate(picks):
        ax = fig.add_subplot(grid[1, col])
        ax.imshow(frames[k])
        for t in tracks:
            at = np.flatnonzero(np.isclose(t.times_s, times[k]))
            if not len(at):
                continue
            x0, y0, x1, y1 = t.boxes[at[0]] * [w, h, w, h]
            colour = colours(t.track_id % 20)
            ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, color=colour))
            ax.text(x0, y0, str(t.track_id), color="white", fontsize=7, va="bottom",
                    bbox={"facecolor": colour, "pad": 0.5, "linewidth": 0})  # fmt: skip
        ax.set_title(format_time(float(times[k])), fontsize=9)
        ax.set_axis_off()
    fig.savefig(out, dpi=90)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("video")
    parser.add_argument("target")
    parser.add_argument("--out", required=True, help="the figure, .png")
    parser.add_argument("--rate", type=float, default=TRACK_FPS)
    parser.add_argument("--tracks", help="also write the tracks here (JSONL)")
    parser.add_argument("--frames", type=int, default=4)
    args = parser.parse_args()
    try:
        if not args.out.endswith(".png"):
            raise UserError(f"--out {args.out}: give a .png path")
        frames, times = read_frames(args.video, args.rate)
        start = time.perf_counter()
        found = localise(frames, args.target)
        mid = time.perf_counter()
        tracks = follow(found, times, args.target)
        end = time.perf_counter()
    except UserError as exc:
        print(f"tracks_figure: error: {exc}", file=sys.stderr)
        return 2
    n = count_objects(tracks)
    print(f"{Path(args.video).name}: {len(frames)} frames at {args.rate:g} fps, "
          f"{len(found)} boxes, {len(tracks)} tracks, {n} objects counted")  # fmt: skip
    print(f"localise {(mid - start) / len(frames) * 1000:.0f} ms a frame, "
          f"follow {(end - mid) / len(frames) * 1000:.1f} ms a frame")  # fmt: skip
    for (s, e), t in zip(object_moments(tracks).spans, tracks):
        print(f"  track {t.track_id}: {format_time(s)}-{format_time(e)}, {len(t)} boxes")
    if args.tracks:
        write_tracks(args.tracks, tracks, video=str(args.video))
    title = (f"{Path(args.video).name}: {n} {args.target} tracked at {args.rate:g} fps "
             "(paths of the boxes' bottom middles)")  # fmt: skip
    draw(frames, times, tracks, Path(args.out), args.frames, title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
