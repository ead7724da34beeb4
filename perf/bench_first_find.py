"""The first `find` on a new video with speech, against decoding that video alone.

Renders one audio-visual video (`longground synth --av --videos 1 --minutes M`: speech,
slides, captions, a scoreboard, faces; cached), then, each in its own process and from an
empty cache, times:

- decode: every frame decoded, one RGB frame a second kept (`sample_frames`), the baseline;
- three first queries, `longground find VIDEO QUERY` end to end: a person ("a person"), a
  text ("the slide reads summary") and an object ("a red car");
- each evidence channel alone (`ChannelStore.get_or_build(video, (name,))`), which is what a
  first query of that kind costs beyond start-up when the method asks for its channel only.

Prints wall and CPU seconds and each against decoding (goal: every first find at most 2x).

    python perf/bench_first_find.py                  # 60 minutes (the target case)
    python perf/bench_first_find.py --minutes 10     # quicker
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

QUERIES = {"person": "a person", "text": "the slide reads summary", "object": "a red car"}
CHANNELS = ("people", "text", "speech")


def render(minutes: float) -> Path:
    folder = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "longground-bench"
    out = folder / f"av_{minutes:g}min"
    videos = sorted((out / "videos").glob("*.mp4")) if out.exists() else []
    if not videos:
        command = [sys.executable, "-m", "longground", "synth", "--av", "--out", str(out),
                   "--videos", "1", "--minutes", f"{minutes:g}", "--seed", "3", "--overwrite"]
        subprocess.run(command, check=True, capture_output=True)  # fmt: skip
        videos = sorted((out / "videos").glob("*.mp4"))
    return videos[0]


def child(kind: str, video: Path, cache: str) -> None:
    """One measurement in this process; prints wall and CPU seconds as JSON."""
    cpu, started = time.process_time(), time.perf_counter()
    if kind == "decode":
        from longground.video import sample_frames

        for _ in sample_frames(video, 1.0, short_side=224):
            pass
    else:
        from longground.channels import ChannelStore

        ChannelStore(cache).get_or_build(video, (kind,), 1.0)
    print(json.dumps({"wall_s": time.perf_counter() - started,
                      "cpu_s": time.process_time() - cpu}))  # fmt: skip


def measure(kind: str, video: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="lgfirst") as cache:
        if kind in QUERIES:
            command = [sys.executable, "-m", "longground", "find", str(video), QUERIES[kind],
                       "--cache-dir", cache]  # fmt: skip
        else:
            command = [sys.executable, __file__, "--child", kind, "--video", str(video),
                       "--cache", cache]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{kind} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--video", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.video, args.cache)
        return
    video = render(args.minutes)
    print(f"{video}; load average {os.getloadavg()[0]:.1f} at the start")
    base = measure("decode", video)
    print(f"{'':<44} {'wall s':>7} {'CPU s':>7} {'x decode (wall)':>15} {'x decode (CPU)':>14}")
    rows = [("decode", base)]
    rows += [(f"first find: {k} ({QUERIES[k]!r})", measure(k, video)) for k in QUERIES]
    rows += [(f"{name} channel alone", measure(name, video)) for name in CHANNELS]
    for name, r in rows:
        print(f"{name:<44} {r['wall_s']:7.1f} {r['cpu_s']:7.1f} "
              f"{r['wall_s'] / base['wall_s']:15.2f} {r['cpu_s'] / base['cpu_s']:14.2f}",
              flush=True)  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
