"""The annotation tool's speed: page load with a 2,000-query benchmark (target < 1 s) and the
round-trip of one edit (target < 50 ms), against a real `longground annotate serve`.

- Page load: Debian's chromium (Playwright) opens the page until it is ready (navigator,
  first video's queries and player source in place); median of several fresh loads. Baseline:
  the same page over a 5-query benchmark, measured in the same run.
- Edit round-trip: PATCH of one query (checked, committed with a synced WAL write, history row
  added) as seen by an HTTP client with keep-alive; median and 95th percentile. Baseline: a
  GET of the same query (no write).

Run:  python perf/bench_annotate.py [--queries 2000] [--per-video 5] [--loads 5] [--edits 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parents[1] / "src"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


def make_benchmark(folder: Path, n_queries: int, per_video: int) -> tuple[Path, Path]:
    """A benchmark of `n_queries` over `n_queries / per_video` hour-long videos; the first
    video is a real (short) file, the others exist only in the benchmark."""
    from longground.video.writer import VideoWriter

    videos = folder / "videos"
    videos.mkdir(parents=True)
    with VideoWriter(videos / "v0000.mp4", 64, 48, fps=25) as writer:
        for i in range(100):
            writer.write(np.full((48, 64, 3), i * 2, np.uint8))
    rng = np.random.default_rng(0)
    lines = []
    for k in range(n_queries):
        starts = np.sort(rng.uniform(0, 3500, size=int(rng.integers(0, 6))))
        spans = [[round(s, 1), round(s + float(rng.uniform(2, 60)), 1)] for s in starts]
        video = f"v{k // per_video:04d}.mp4"
        row = {"qid": f"q{k:05d}", "video": video, "duration": 3600.0,
               "query": f"every time event {k} happens after a condition holds",
               "intervals": spans if video != "v0000.mp4" else [[0.5, 1.5]],
               "attributes": ["causal"], "domain": "bench"}  # fmt: skip
        lines.append(json.dumps(row))
    bench = folder / "bench.jsonl"
    bench.write_text("\n".join(lines) + "\n")
    return bench, videos


def start_server(bench: Path, videos: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "longground", "annotate", "serve", str(bench), "--videos",
         str(videos), "--db", str(bench.with_suffix(".db")), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.split("open ", 1)[1].split()[0]


def page_loads_s(url: str, loads: int) -> tuple[list[float], list[float]]:
    """Seconds from navigation to a ready page, each in a fresh tab: as the test driver sees
    it, and as the page itself measures it (`performance.now()` at ready)."""
    from playwright.sync_api import sync_playwright

    times, inside = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for n in range(loads + 1):
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']")
            if n:  # the first load warms the browser and the server up
                times.append(time.perf_counter() - start)
                inside.append(float(page.get_attribute("body", "data-ready-ms")) / 1000)
            page.close()
        browser.close()
    return times, inside


def round_trips_ms(url: str, qid: str, count: int) -> tuple[list[float], list[float]]:
    """Milliseconds per edit (PATCH) and per read (GET) of one query."""
    import httpx

    edits, reads = [], []
    with httpx.Client(base_url=url, timeout=10) as client:
        version = client.get(f"api/queries/{qid}").json()["version"]
        for i in range(count):
            start = time.perf_counter()
            answer = client.patch(
                f"api/queries/{qid}",
                json={"version": version, "intervals": [[1.0, 1.5 + (i % 20) / 10]]},
            )
            edits.append(1000 * (time.perf_counter() - start))
            answer.raise_for_status()
            version = answer.json()["version"]
            start = time.perf_counter()
            client.get(f"api/queries/{qid}")
            reads.append(1000 * (time.perf_counter() - start))
    return edits, reads


def measure(work: Path, n_queries: int, per_video: int, loads: int, edits: int) -> dict:
    bench, videos = make_benchmark(work, n_queries, per_video)
    process, url = start_server(bench, videos)
    try:
        result = {"loads_s": [], "inside_s": []}
        if loads:
            result["loads_s"], result["inside_s"] = page_loads_s(url, loads)
        if edits:
            result["edits_ms"], result["reads_ms"] = round_trips_ms(url, "q00000", edits)
        return result
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--per-video", type=int, default=5)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--edits", type=int, default=200)
    args = parser.parse_args()
    loads = args.loads if Path(CHROMIUM).exists() else 0
    if not loads:
        print(f"{CHROMIUM} is missing: page load not measured")
    with tempfile.TemporaryDirectory() as tmp:
        big = measure(Path(tmp) / "big", args.queries, args.per_video, loads, args.edits)
        small = measure(Path(tmp) / "small", 5, 5, loads, 0)
    if loads:
        load_s, base_s = statistics.median(big["loads_s"]), statistics.median(small["loads_s"])
        print(f"page load, {args.queries} queries in {args.queries // args.per_video} videos: "
              f"median {load_s * 1000:.0f} ms, max {max(big['loads_s']) * 1000:.0f} ms "
              f"(target < 1000 ms)")  # fmt: skip
        print(f"page load, 5 queries (baseline): median {base_s * 1000:.0f} ms; "
              f"ratio {load_s / base_s:.2f}x")  # fmt: skip
        own, own_base = statistics.median(big["inside_s"]), statistics.median(small["inside_s"])
        print(f"  as the page measures it (navigation to ready): {own * 1000:.0f} ms vs "
              f"{own_base * 1000:.0f} ms baseline; ratio {own / own_base:.2f}x")  # fmt: skip
    edit_ms, read_ms = statistics.median(big["edits_ms"]), statistics.median(big["reads_ms"])
    print(f"edit round-trip ({args.edits} edits): median {edit_ms:.1f} ms, "
          f"p95 {p95(big['edits_ms']):.1f} ms (target < 50 ms)")  # fmt: skip
    print(f"read round-trip (baseline): median {read_ms:.1f} ms; "
          f"edit/read ratio {edit_ms / read_ms:.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
