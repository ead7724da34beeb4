"""Decoding forward against the seek rule, on generated H.264 with different keyframe spacing.

For each video (640x360, 25 fps, x264 `ultrafast` unless noted, a moving noise texture so that
every frame costs real decoding) and each sampling rate, reads the same sample times twice:
with the seek rule of `video/picker.py` and with seeking off. It checks that both give the
same frames and prints the frames decoded, the seeks made and the wall time of each.

    python perf/bench_seek.py               # 120 s videos
    python perf/bench_seek.py --seconds 600
"""

from __future__ import annotations

import argparse
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from longground.video.batch import FrameBatch
from longground.video.container import open_video
from longground.video.picker import SEEK_OVERHEAD_FRAMES
from longground.video.sampling import FrameStream, sample_times

WIDTH, HEIGHT, FPS = 640, 360, 25
VIDEOS = {  # name -> x264 options
    "keyframe every 1 s": {"g": "25", "keyint_min": "25"},
    "keyframe every 10 s": {"g": "250"},
    "keyframe every 10 s, B-frames": {"g": "250", "bframes": "3"},
}
RATES = (Fraction(1), Fraction(1, 5), Fraction(1, 20))


def make_video(path: Path, seconds: int, options: dict) -> Path:
    import av

    if path.exists():
        return path
    container = av.open(str(path), "w")
    stream = container.add_stream("libx264", rate=FPS)
    stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
    stream.options = {"preset": "ultrafast", "crf": "23", **options}
    if "bframes" in options:
        stream.options["preset"] = "veryfast"
    texture = np.random.default_rng(0).integers(0, 255, (HEIGHT, WIDTH, 3), dtype=np.uint8)
    for i in range(seconds * FPS):
        frame = av.VideoFrame.from_ndarray(np.roll(texture, 2 * i, axis=1), format="rgb24")
        frame.pts, frame.time_base = i, Fraction(1, FPS)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()
    return path


def read(path: Path, rate: Fraction, seconds: int, seek: bool) -> tuple[FrameStream, float, list]:
    started = time.perf_counter()
    stream = FrameStream(open_video(path), sample_times(rate, Fraction(0), seconds), 54, 64, seek)
    frames = FrameBatch.concat(stream).frames
    return stream, time.perf_counter() - started, frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "lg-bench-seek")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"{args.seconds} s of {WIDTH}x{HEIGHT} H.264 at {FPS} fps; "
          f"SEEK_OVERHEAD_FRAMES = {SEEK_OVERHEAD_FRAMES}")  # fmt: skip
    print(f"{'video':32s} {'rate':>6s} {'forward: frames, s':>20s} {'rule: frames, seeks, s':>26s}")
    for index, (name, options) in enumerate(VIDEOS.items()):
        path = make_video(args.dir / f"v{index}-{args.seconds}.mp4", args.seconds, options)
        for rate in RATES:
            ruled, ruled_s, ruled_frames = read(path, rate, args.seconds, seek=True)
            forward, forward_s, forward_frames = read(path, rate, args.seconds, seek=False)
            if not np.array_equal(ruled_frames, forward_frames):
                raise SystemExit(f"{name} at {rate} fps: seeking changed the frames")
            print(f"{name:32s} {str(rate):>6s} {forward.n_decoded:>12d} {forward_s:6.2f} s "
                  f"{ruled.n_decoded:>12d} {ruled.n_seeks:5d} {ruled_s:6.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
