"""Ray indexing throughput: 8 videos on one actor, on two nodes, and on two nodes with the
second killed mid-run, on a two-node Ray cluster on 127.0.0.1 (one CPU per node).

The videos are `perf/bench_index.py`'s generated 640x360 H.264 clips (`--minutes` each,
cached). Each run indexes all of them from an empty cache with label-bridge at 1 fps through
`index.distributed.index_on_ray`, and is checked: every video has exactly one entry, every
entry reads back whole. The cluster is started and stopped by its own process groups
(`tests/support/ray_cluster.py`); the kill is the second node's raylet, once two videos
have landed. Prints videos/minute and each run against one actor.

    python perf/bench_ray_index.py               # 8 videos of 2 minutes
    python perf/bench_ray_index.py --minutes 0.5 # quick
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from bench_index import make_video  # noqa: E402
from tests.support.ray_cluster import LoopbackCluster  # noqa: E402


def videos(n: int, minutes: float) -> list[Path]:
    folder = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "longground-bench" / "ray"
    out = []
    for i in range(n):
        path = folder / f"clip{i}_{minutes:g}min.mp4"
        make_video(path, minutes * 60 + i)  # lengths differ by a second: distinct files
        out.append(path)
    return out


def run(clips: list[Path], address: str, workers: int, kill=None) -> dict:
    """Index `clips` into a fresh cache; `kill(records_so_far)` may kill a node."""
    from longground.index.cache_kind import read_manifest
    from longground.index.distributed import index_on_ray
    from longground.index.indexer import IndexJob
    from longground.index.storage import read_timeline

    with tempfile.TemporaryDirectory(prefix="lgray-cache") as cache:
        job = IndexJob("label-bridge", 1.0, Path(cache))
        landed, lost = [], []

        def on_record(record: dict) -> None:
            landed.append(record)
            if kill is not None:
                kill(landed)

        started = time.perf_counter()
        errors = index_on_ray(clips, job, address, workers=workers, on_record=on_record,
                              on_lost=lost.append)  # fmt: skip
        wall = time.perf_counter() - started
        entries = sorted((Path(cache) / "timelines").glob("*.npz"))
        readable = sum(len(read_timeline(p, read_manifest(p)["key"])) > 0 for p in entries)
    once = sorted(r["qid"] for r in landed) == sorted(str(c.absolute()) for c in clips)
    return {"wall_s": wall, "errors": len(errors), "lost": len(lost), "entries": len(entries),
            "readable": readable, "each_once": once}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--videos", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=2.0)
    args = parser.parse_args()
    clips = videos(args.videos, args.minutes)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}  # fmt: skip
    print(f"{len(clips)} videos of {args.minutes:g} min (640x360, 25 fps), label-bridge at 1 fps; "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"{'run':<28} {'wall s':>7} {'videos/min':>10} {'x 1 actor':>9} {'entries':>7} "
          f"{'once':>5} {'lost':>4}")  # fmt: skip
    with LoopbackCluster(env) as cluster:
        results = {"1 actor (1 node)": run(clips, cluster.address, 1),
                   "2 actors (2 nodes)": run(clips, cluster.address, 2)}  # fmt: skip

        def kill_second(landed: list) -> None:
            if len(landed) == 2 and cluster.nodes:
                os.kill(cluster.raylet_pid(1), signal.SIGKILL)

        results["2 nodes, second killed"] = run(clips, cluster.address, 2, kill_second)
    base = results["1 actor (1 node)"]["wall_s"]
    for name, r in results.items():
        print(f"{name:<28} {r['wall_s']:7.1f} {len(clips) / r['wall_s'] * 60:10.2f} "
              f"{base / r['wall_s']:9.2f} {r['entries']:>3}/{r['readable']:<3} "
              f"{str(r['each_once']):>5} {r['lost']:4d}")  # fmt: skip


if __name__ == "__main__":
    main()
