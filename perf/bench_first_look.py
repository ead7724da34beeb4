"""The agent's first look: a cold first query on a long video, end to end, with its breakdown.

"Cold" means a new process and an empty cache folder: the query pays for the feature index
(decoding and the encoder), the event graph, the filter (with the region features it looks
at), optical flow of the kept events and verification. Each run is its own process, so its
peak RSS is its own; the same query runs on this tree's `src/` and, as the baseline in the
same run, on the `src/` of an earlier commit (`--baseline REV`, default: the commit before
the first-look work of issue 24; `--baseline none` skips it).

Printed per run: wall time as x realtime (video seconds per wall second), CPU time, peak RSS
(`ru_maxrss`), the highest RSS seen by a 20 ms sampling thread in each step, and per step
the wall time and the time spent decoding frames (`FrameStream.__next__`, in any thread)
and in the encoder (`image_features`). Decoding of the index runs in a thread beside the
encoder, so the two can add up to more than the step. Targets (issue 24): >= 100x realtime
and peak RSS <= 800 MB on the 70-minute video.

Run (the 70-minute video is generated once into --work, 320x180 at 10 fps; `--video` takes
any file):

    nice python perf/bench_first_look.py --work /tmp/first-look [--minutes 70] [--baseline REV]

`-p KEY=VALUE` passes an agent parameter to this tree's run (`-p region_source=encoder`: the
halves encoded again instead of read from the index). `--index-from CACHE` copies the feature
index from an earlier run's cache folder into each run's empty cache, so that only the
agent's own first look (graph, regions, flow, verification) is measured; the index is shared
with `retrieval` and measured by `perf/bench_index.py`. The baseline cannot reuse an index
of another encoder id (label-bridge v2 before issue 24's region work, v3 after).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERY = "Find every moment showing the tabby cat."
# Issue 24's targets for the cold first query on the 70-minute video.
TARGET_X_REALTIME = 100.0
TARGET_PEAK_MB = 800.0
# The commit before the first-look work (issue 24, item 2): the baseline code path.
BASELINE_REV = "f3a43dc"
STEPS = (
    "index",
    "graph.events",
    "graph.scores",
    "graph.filter",
    "graph.flow",
    "graph.actions",
    "verification",
    "other",
)


def make_video(work: Path, minutes: float) -> Path:
    """The synthetic benchmark's video at 320x180, 10 fps (seed 3), generated once."""
    found = sorted((work / "synth" / "videos").glob("*.mp4"))
    if found:
        return found[0]
    from longground.synth import generate, rendering_preset

    preset = rendering_preset(size=(320, 180), fps=Fraction(10))
    start = time.perf_counter()
    samples = generate(work / "synth", 1, minutes, seed=3, preset=preset)
    print(f"generated a {minutes:g}-minute video in {time.perf_counter() - start:.0f} s")
    return Path(samples[0].video)


def baseline_tree(work: Path, rev: str) -> Path:
    """`src/` of commit `rev`, extracted once into `work`."""
    out = work / f"src-{rev}"
    if not (out / "src" / "longground").is_dir():
        out.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out / "src"


class Meter:
    """Wall, decode and encoder seconds and the highest RSS, per step of the query."""

    def __init__(self):
        self.step = "other"
        self.wall: dict[str, float] = defaultdict(float)
        self.decode: dict[str, float] = defaultdict(float)
        self.encode: dict[str, float] = defaultdict(float)
        self.rss_mb: dict[str, float] = defaultdict(float)
        self._stop = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE")

    def sample_rss(self) -> None:
        while not self._stop.wait(0.02):
            with open("/proc/self/statm") as handle:
                rss = int(handle.read().split()[1]) * self._page / 2**20
            self.rss_mb[self.step] = max(self.rss_mb[self.step], rss)

    def start(self) -> None:
        threading.Thread(target=self.sample_rss, daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def timed_iter(self, bucket: dict, next_fn):
        def wrapped(stream):
            start = time.perf_counter()
            try:
                return next_fn(stream)
            finally:
                bucket[self.step] += time.perf_counter() - start

        return wrapped


def instrument(meter: Meter, method) -> None:
    """Attribute decoding, encoder and wall time to the agent's trace steps."""
    from contextlib import contextmanager

    from longground.agent.trace import Trace
    from longground.video.sampling import FrameStream

    FrameStream.__next__ = meter.timed_iter(meter.decode, FrameStream.__next__)
    encoder = method.encoder
    image_features = encoder.image_features

    def timed_features(frames):
        start = time.perf_counter()
        try:
            return image_features(frames)
        finally:
            meter.encode[meter.step] += time.perf_counter() - start

    encoder.image_features = timed_features
    plain = Trace.timed

    @contextmanager
    def timed(trace, name):
        step = "index" if name == "graph.timeline" else name
        if step not in STEPS:  # a detail inside a step (detail.regions): keep the step's
            with plain(trace, name):
                yield
            return
        outer, meter.step = meter.step, step
        start = time.perf_counter()
        try:
            with plain(trace, name):
                yield
        finally:
            meter.wall[step] += time.perf_counter() - start
            meter.step = outer

    Trace.timed = timed
    from longground.index.store import FeatureStore

    get_or_build = FeatureStore.get_or_build

    def indexed(store, *args, **kwargs):  # the index is built before the trace's timers run
        if meter.step == "index":
            return get_or_build(store, *args, **kwargs)
        outer, meter.step = meter.step, "index"
        start = time.perf_counter()
        try:
            return get_or_build(store, *args, **kwargs)
        finally:
            meter.wall["index"] += time.perf_counter() - start
            meter.step = outer

    FeatureStore.get_or_build = indexed


def child(video: Path, cache: Path, params: dict) -> None:
    """One cold query in this process (agent `params` beside the offline roles); prints one
    JSON line."""
    from longground.methods import MethodConfig, build_method
    from longground.video import probe

    duration_s = float(probe(video).duration_s)
    config = MethodConfig(params={"roles": "offline", **params}, cache_dir=cache)
    method = build_method("agent", config)
    meter = Meter()
    instrument(meter, method)
    meter.start()
    cpu0, start = time.process_time(), time.perf_counter()
    grounding = method.ground(video, QUERY)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    meter.stop()
    meter.wall["other"] = wall - sum(v for k, v in meter.wall.items() if k != "other")
    graph = grounding.trace.get("graph", {})
    events = graph.get("events", [])
    print(
        json.dumps(
            {
                "duration_s": duration_s,
                "wall_s": wall,
                "cpu_s": cpu,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "moments": grounding.moments.to_list(),
                "events": len(events),
                "kept": sum(e["kept"] for e in events),
                "actions": len(graph.get("actions", [])),
                "counters": dict(grounding.trace["counters"]),
                "wall": meter.wall,
                "decode": meter.decode,
                "encode": meter.encode,
                "rss_mb": meter.rss_mb,
                "torch_imported": "torch" in sys.modules,
            }
        )
    )


def run(
    src: Path, video: Path, cache: Path, index_from: Path | None, params: dict | None = None
) -> dict:
    """The child on `src`, from an empty `cache` (holding only the index of `index_from`)."""
    if index_from is not None:
        shutil.copytree(index_from / "timelines", cache / "timelines")
    env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"}
    env["TRANSFORMERS_OFFLINE"] = "1"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(video), str(cache)]
    cmd.append(json.dumps(params or {}))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{src}: the query failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(label: str, r: dict, base: dict | None) -> None:
    speed = r["duration_s"] / r["wall_s"]
    line = (
        f"{label}: wall {r['wall_s']:.1f} s = {speed:.0f}x realtime, CPU {r['cpu_s']:.1f} s, "
        f"peak RSS {r['peak_rss_mb']:.0f} MB; {len(r['moments'])} moments, events "
        f"{r['events']} (kept {r['kept']}), action nodes {r['actions']}"
    )
    if base is not None:
        line += (
            f"\n  against the baseline: {base['wall_s'] / r['wall_s']:.2f}x faster, "
            f"{r['peak_rss_mb'] / base['peak_rss_mb']:.2f} of its peak RSS"
        )
    fast = "met" if speed >= TARGET_X_REALTIME else "MISSED"
    small = "met" if r["peak_rss_mb"] <= TARGET_PEAK_MB else "MISSED"
    line += (
        f"\n  targets: >= {TARGET_X_REALTIME:.0f}x realtime {fast}, peak <= "
        f"{TARGET_PEAK_MB:.0f} MB {small}; region frames looked at "
        f"{r['counters'].get('graph.region_frames', 0)}; torch imported: "
        f"{r.get('torch_imported', 'unknown')}"
    )
    print(line)
    print("  | step | wall s | decode s | encoder s | peak RSS MB |")
    print("  |---|---|---|---|---|")
    for step in STEPS:
        print(
            f"  | {step} | {r['wall'].get(step, 0.0):.2f} | {r['decode'].get(step, 0.0):.2f} "
            f"| {r['encode'].get(step, 0.0):.2f} | {r['rss_mb'].get(step, 0.0):.0f} |"
        )


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), Path(sys.argv[3]), json.loads(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--video", type=Path, help="use this video instead of generating one")
    parser.add_argument("--minutes", type=float, default=70.0)
    parser.add_argument("--work", type=Path, help="work folder (the video is kept there)")
    parser.add_argument("--baseline", default=BASELINE_REV, help="git revision, or 'none'")
    parser.add_argument("--index-from", type=Path, help="cache folder holding the index")
    parser.add_argument(
        "-p", dest="params", action="append", default=[], metavar="KEY=VALUE",
        help="agent parameter for this tree's run, e.g. region_source=encoder (repeatable)",
    )  # fmt: skip
    args = parser.parse_args()
    params = dict(p.split("=", 1) for p in args.params if "=" in p)
    work = args.work or Path(tempfile.mkdtemp(prefix="lg-first-look-"))
    work.mkdir(parents=True, exist_ok=True)
    video = (args.video or make_video(work, args.minutes)).resolve()
    print(f"video {video}; load average {os.getloadavg()[0]:.1f} before the runs")
    base = None
    if args.baseline != "none":
        src = baseline_tree(work, args.baseline)
        base = run(src, video, Path(tempfile.mkdtemp(prefix="cache-", dir=work)), args.index_from)
        report(f"baseline ({args.baseline})", base, None)
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    now = run(ROOT / "src", video, cache, args.index_from, params)
    report("this tree" + "".join(f" -p {k}={v}" for k, v in params.items()), now, base)
    if base is not None:
        same = base["moments"] == now["moments"]
        print(f"  same moments as the baseline: {same}")
    print(f"load average {os.getloadavg()[0]:.1f} after the runs")


if __name__ == "__main__":
    main()
