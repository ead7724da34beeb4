"""What decoding at the encoder's input size costs: 224 vs 336 pixels on the short side.

Generates a short 1280x720 H.264 video (default 120 s, cached between runs), then, each in its
own process so that peak RSS is that run's alone, samples it at 1 fps the way the index does
(`sample_frames`, 64-frame batches, frames discarded) with the short side at 224 and at 336.
Prints wall and CPU time per video-second, the same extrapolated to one hour of video, peak
RSS, and the size of one decoded batch. The encoder is left out: it resizes every frame to its
own input size anyway, so its cost does not depend on the decode size.

    python perf/bench_decode_size.py
    python perf/bench_decode_size.py --seconds 300 --fps 2
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, HEIGHT, SOURCE_FPS = 1280, 720, 25


def make_video(path: Path, seconds: float) -> Path:
    """A moving gradient with a new colour every 5 s (so the codec has real work)."""
    import numpy as np

    from longground.video import VideoWriter

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.mp4")
    x = np.arange(WIDTH, dtype=np.uint16)[None, :, None]
    y = np.arange(HEIGHT, dtype=np.uint16)[:, None, None]
    with VideoWriter(partial, WIDTH, HEIGHT, fps=SOURCE_FPS) as writer:
        for i in range(int(seconds * SOURCE_FPS)):
            colour = np.array([(i // 125) * 70 % 256, 90, 160], np.uint16)
            frame = ((x + y + 3 * i) % 256 + colour) % 256
            writer.write(frame.astype(np.uint8))
    partial.rename(path)
    return path


def measure(path: str, short_side: int, fps: float) -> dict:
    """Decode at `short_side` in this process; times and peak RSS."""
    from longground.video import sample_frames

    wall, cpu = time.perf_counter(), time.process_time()
    frames = 0
    batch_bytes = 0
    for batch in sample_frames(path, fps, short_side=short_side, batch_size=64):
        frames += len(batch)
        batch_bytes = max(batch_bytes, batch.frames.nbytes)
        shape = batch.frames.shape[1:3]
    return {
        "short_side": short_side,
        "frames": frames,
        "frame_shape": list(shape),
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "batch_mb": batch_bytes / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="length of the test video")
    parser.add_argument("--fps", type=float, default=1.0, help="index sampling rate")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]), args.fps)))
        return
    video = make_video(
        Path(tempfile.gettempdir()) / f"lg-decode-{args.seconds:g}s.mp4", args.seconds
    )
    rows = []
    for side in (224, 336):
        out = subprocess.run(
            [sys.executable, __file__, "--fps", str(args.fps), "--child", str(video), str(side)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        rows.append(json.loads(out.stdout))
    print(
        f"video: {WIDTH}x{HEIGHT}, {args.seconds:g} s at {SOURCE_FPS} fps; "
        f"sampled at {args.fps:g} fps"
    )
    for row in rows:
        per_hour = 3600.0 / args.seconds
        print(
            f"short side {row['short_side']}: "
            f"frames {row['frame_shape'][1]}x{row['frame_shape'][0]}, "
            f"{row['wall_s']:.2f} s wall / {row['cpu_s']:.2f} s CPU "
            f"(per hour of video: {row['wall_s'] * per_hour:.0f} s wall, "
            f"{row['cpu_s'] * per_hour:.0f} s CPU), peak RSS {row['peak_rss_mb']:.0f} MB, "
            f"one 64-frame batch {row['batch_mb']:.1f} MB"
        )
    small, large = rows
    print(
        f"336 / 224: wall x{large['wall_s'] / small['wall_s']:.2f}, "
        f"CPU x{large['cpu_s'] / small['cpu_s']:.2f}, "
        f"batch memory x{large['batch_mb'] / small['batch_mb']:.2f}"
    )


if __name__ == "__main__":
    main()
