"""`longground index` as a multiple of decoding alone, on the same video in the same run.

The video is the synthetic-benchmark rendering of `perf/bench_adaptive.py` (640x360, 25 fps,
H.264, no audio; 20 minutes by default, generated once and cached). Each measurement runs in
its own process, from an empty cache:

- decode: every frame decoded, one RGB frame a second kept at 224 pixels (`sample_frames`),
  the baseline;
- index: the default `longground index VIDEO` (the frame index only; the evidence channels
  wait until a query needs them);
- index + channels: `longground index VIDEO --channels auto`, what the default was before
  (on-screen text and people extracted for every video at index time);
- index, int8: `longground index VIDEO --encoder label-bridge:int8`, the classifier
  quantised to int8 with ONNX Runtime (an opt-in mode; its F1 cost: `perf/bench_modes.py`);
  the quantised network is made before the clock starts;
- index, keyframes only: `longground index VIDEO --keyframes-only` (an opt-in mode: only
  keyframes are decoded, each sample is the last keyframe before it).

Prints each one's wall and CPU seconds and its ratio to decoding (goal: the default at most
1.3x).

    python perf/bench_index_cost.py                 # 20 minutes
    python perf/bench_index_cost.py --minutes 3     # quick
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_adaptive import make_video  # noqa: E402

RUNS = {
    "index": [],
    "index, int8 (opt-in)": ["--encoder", "label-bridge:int8"],
    "index, keyframes only (opt-in)": ["--keyframes-only"],
    "index + channels": ["--channels", "auto"],
}


def decode(video: Path) -> None:
    """Child: decode the samples at 1 fps, 224 pixels; print wall and CPU seconds."""
    from longground.video import sample_frames

    cpu, started = time.process_time(), time.perf_counter()
    n = sum(len(batch) for batch in sample_frames(video, 1.0, short_side=224))
    print(json.dumps({"wall_s": time.perf_counter() - started,
                      "cpu_s": time.process_time() - cpu, "samples": n}))  # fmt: skip


def run_decode(video: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", str(video)], capture_output=True,
                          text=True, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_index(video: Path, extra: list[str]) -> dict:
    """`longground index` from an empty cache, timed from outside (start-up included)."""
    with tempfile.TemporaryDirectory(prefix="lgcost") as cache:
        command = [sys.executable, "-m", "longground", "index", str(video), "--cache-dir",
                   cache, *extra]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"index {' '.join(extra)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "line": done.stdout.strip().splitlines()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--skip", nargs="*", default=[], choices=list(RUNS),
                        help="runs to leave out (e.g. the slow 'index + channels')")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        decode(args.child)
        return
    video = make_video(args.minutes)
    warm = "from longground.encoders import load_encoder; load_encoder('label-bridge:int8')._run("
    subprocess.run([sys.executable, "-c", warm + "__import__('numpy').zeros((1, 224, 224, 3), "
                    "'uint8'))"], check=True, capture_output=True)  # fmt: skip
    print(f"{video.name}; load average {os.getloadavg()[0]:.1f} at the start")
    base = run_decode(video)
    print(f"{'':<32} {'wall s':>7} {'CPU s':>7} {'x decode (wall)':>15} {'x decode (CPU)':>14}")
    print(f"{'decode':<32} {base['wall_s']:7.1f} {base['cpu_s']:7.1f} {1:15.2f} {1:14.2f}")
    for name, extra in RUNS.items():
        if name in args.skip:
            continue
        result = run_index(video, extra)
        print(f"{name:<32} {result['wall_s']:7.1f} {result['cpu_s']:7.1f} "
              f"{result['wall_s'] / base['wall_s']:15.2f} "
              f"{result['cpu_s'] / base['cpu_s']:14.2f}", flush=True)  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
