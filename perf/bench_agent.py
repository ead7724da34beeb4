"""CoMET-Agent cost on a 60-minute video: per-query time and the per-step profile (as in CoMET
Table 7b), showing that the graph is built once per video and reused.

Three queries run on one generated hour-long synthetic video, through one method instance:

1. cold: the feature index, the event graph and the action splits of the kept events are built;
2. a different query: the event graph is reused, only newly kept events get optical flow;
3. the first query again from a *new* method instance: everything comes from the disk caches.

Run:  python perf/bench_agent.py [--minutes 60] [--work DIR] [--video PATH]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from longground.methods import MethodConfig, build_method

QUERIES = (
    "Find every moment showing the tabby cat.",
    "When does the motorcycle appear immediately after the rocket?",
)
STEPS = (
    "planner",
    "graph.timeline",
    "graph.events",
    "graph.scores",
    "graph.filter",
    "graph.flow",
    "graph.actions",
    "verification",
    "aggregator",
    "detail.regions",
)


def make_video(work: Path, minutes: float) -> Path:
    from longground.synth.generate import generate

    start = time.perf_counter()
    samples = generate(work / "synth", 1, minutes, seed=3)
    print(f"generated a {minutes:g}-minute video in {time.perf_counter() - start:.0f} s")
    return Path(samples[0].video)


def run_query(method, video: Path, query: str, label: str) -> None:
    start = time.perf_counter()
    grounding = method.ground(video, query)
    wall = time.perf_counter() - start
    trace = grounding.trace
    counters = trace["counters"]
    graph = trace.get("graph", {})
    print(f"\n{label}: {query!r}")
    print(f"  wall {wall:7.2f} s   found {len(grounding.moments)} moments")
    print(
        f"  events {len(graph.get('events', []))} (from cache: {graph.get('events_cached')}), "
        f"kept {sum(e['kept'] for e in graph.get('events', []))}, "
        f"action nodes {len(graph.get('actions', []))}, "
        f"splits built {counters.get('graph.splits_built', 0)}, "
        f"reused {counters.get('graph.splits_reused', 0)}, "
        f"verifications {trace.get('loop', {}).get('iterations', 0)}"
    )
    timings = trace["timings_s"]
    print("  " + "  ".join(f"{s} {timings.get(s, 0.0):.2f}" for s in STEPS))
    stages = trace["stage_times_s"]
    print("  Table 7b: " + "  ".join(f"{k} {v:.2f} s" for k, v in stages.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--work", type=Path, default=None, help="reuse a work folder")
    parser.add_argument("--video", type=Path, default=None, help="use this video instead")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_agent_"))
    work.mkdir(parents=True, exist_ok=True)
    video = args.video or make_video(work, args.minutes)
    config = MethodConfig(params={"roles": "offline"}, cache_dir=work / "cache")
    method = build_method("agent", config)
    run_query(method, video, QUERIES[0], "query 1 (cold)")
    run_query(method, video, QUERIES[1], "query 2 (same video, new query)")
    fresh = build_method("agent", config)
    run_query(fresh, video, QUERIES[0], "query 1 again, new method instance (disk caches)")


if __name__ == "__main__":
    main()
