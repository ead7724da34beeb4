"""Track a target through a real video, count the objects, and draw the tracks.

    python perf/tracks_figure.py VIDEO TARGET --out docs/img/vtest-tracks.png \
        [--rate 5] [--tracks tracks.jsonl] [--frames 4] [--every-frame]

Follows TARGET through the whole of VIDEO as `find --tracks` follows it through one moment
(`tracking.on_moments.tracks_on`: `--rate` frames a second, the localiser coarse to fine
unless `--every-frame`, ByteTrack) and prints the objects count (`tracking.count`),
the seconds it took, how many frames were localised, and each track's span. The figure: one
frame with every track's path (the bottom middle of its box, a colour per track) and
`--frames` frames spread over the video with the boxes and track numbers drawn.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from longground.errors import UserError
from longground.formats.tracks import write_tracks
from longground.moments import Moments
from longground.timecode import format_time
from longground.tracking import on_moments
from longground.tracking.count import MIN_S, count_objects
from longground.tracking.localise import localiser_for
from longground.tracking.on_moments import TRACK_FPS
from longground.video import probe


def draw(video: str, tracks, out: Path, n_frames: int, rate: float, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from longground.video import frames_at, probe

    colours = plt.get_cmap("tab20")
    duration_s = float(probe(video).duration_s)
    times = np.round(np.linspace(0, duration_s, n_frames + 2)[1:-1] * rate) / rate
    frames = frames_at(video, times, short_side=None).frames
    h, w = frames.shape[1:3]
    picks = np.arange(n_frames)
    fig = plt.figure(figsize=(4 * n_frames, 3.2 * 2 + 0.4), layout="constrained")
    grid = fig.add_gridspec(2, n_frames)
    paths = fig.add_subplot(grid[0, :])
    paths.imshow(frames[len(picks) // 2], extent=(0, w, h, 0))
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
    parser.add_argument("--every-frame", action="store_true",
                        help="localise every sampled frame (no coarse to fine, no change gate)")
    args = parser.parse_args()
    calls = {"sampled": 0, "localised": 0}
    try:
        if not args.out.endswith(".png"):
            raise UserError(f"--out {args.out}: give a .png path")
        if args.every_frame:
            on_moments.GATE, on_moments.coarse.STEP = on_moments.ChangeGate(0, 0), 1
        localiser = localiser_for(args.target)
        counted = _Counting(localiser, calls)
        on_moments.localiser_for = lambda target: counted  # the same one, counting
        info = probe(args.video)
        duration_s = float(info.duration_s)
        calls["sampled"] = len(on_moments.moment_times(0, duration_s, args.rate, float(info.fps)))
        start = time.perf_counter()
        (tracks,) = on_moments.tracks_on(args.video, Moments.from_list([[0, duration_s]]),
                                         args.target, args.rate)  # fmt: skip
        seconds = time.perf_counter() - start
    except UserError as exc:
        print(f"tracks_figure: error: {exc}", file=sys.stderr)
        return 2
    n = count_objects(tracks)
    print(f"{Path(args.video).name}: {calls['sampled']} frames at {args.rate:g} fps, "
          f"{calls['localised']} localised, {len(tracks)} tracks, {n} objects counted "
          f"(seen for {MIN_S:g} s or more)")  # fmt: skip
    print(f"{seconds:.1f} s, {seconds / max(1, calls['sampled']) * 1000:.0f} ms a sampled frame")
    for t in tracks:
        print(f"  track {t.track_id}: {format_time(t.start_s)}-{format_time(t.end_s)}, "
              f"{len(t)} boxes")  # fmt: skip
    if args.tracks:
        write_tracks(args.tracks, tracks, video=str(args.video))
    title = (f"{Path(args.video).name}: {len(tracks)} tracks of {args.target!r} at "
             f"{args.rate:g} fps, {n} seen for {MIN_S:g} s or more "
             "(paths of the boxes' bottom middles)")  # fmt: skip
    draw(args.video, tracks, Path(args.out), args.frames, args.rate, title)
    return 0


class _Counting:
    """A localiser that counts the frames it is given (those coarse to fine looked at)."""

    def __init__(self, localiser, calls: dict):
        self.localiser, self.calls = localiser, calls

    def decode_side(self, target: str) -> int:
        return self.localiser.decode_side(target)

    def __call__(self, frames, target):
        self.calls["localised"] += len(frames)
        return self.localiser(frames, target)


if __name__ == "__main__":
    sys.exit(main())
