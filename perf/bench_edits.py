"""The cost of answering about the edit (`methods.edits.read_edit`: cuts and black frames in
one pass) against decoding the same frames and doing nothing with them, in the same run, and
its peak memory against one chunk of frames.

    python perf/bench_edits.py VIDEO [VIDEO ...]

Prints, per video: seconds of video, seconds to decode at the cut detector's grid (the
baseline), seconds to read the edit, their ratio, and the cuts and black runs found.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

from longground.agent.frames import SAMPLER_FPS
from longground.methods.edits import CHUNK, read_edit
from longground.video import probe, sample_frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("videos", nargs="+", type=Path)
    args = parser.parse_args()
    print(f"grid {SAMPLER_FPS:g} fps, chunks of {CHUNK} frames")
    print("video  seconds  decode_s  edit_s  ratio  peak_MB  cuts  black_runs")
    for video in args.videos:
        start = time.perf_counter()
        for _ in sample_frames(video, SAMPLER_FPS):
            pass
        decode_s = time.perf_counter() - start
        tracemalloc.start()
        start = time.perf_counter()
        reading = read_edit(video, progress=False)
        edit_s = time.perf_counter() - start
        peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"{video.name}  {probe(video).duration_s:.0f}  {decode_s:.1f}  {edit_s:.1f}  "
              f"{edit_s / decode_s:.2f}x  {peak_mb:.0f}  {len(reading.cuts())}  "
              f"{len(reading.black())}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
