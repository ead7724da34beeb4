"""What the evidence channels cost: the first index of an audio-visual video with each channel
alone and all together, against the visual-only feature index, and each one's peak memory.

Every configuration runs in a fresh process with an empty cache, so its wall time, CPU time
(user + system of that process) and peak resident memory are its own. The video comes from
`synth --av` (slides, captions, scoreboard, faces, espeak-ng speech every ~12 s at most).

Run:  python perf/bench_channels.py [--minutes 60] [--work DIR] [--video PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = {
    "visual index (label-bridge, 1 fps)": "visual",
    "speech alone": "speech",
    "text alone": "text",
    "people alone": "people",
    "all three channels": "speech,text,people",
    "visual index + all channels": "visual,speech,text,people",
}

WORKER = """
import sys
from pathlib import Path
video, cache, what = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
if "visual" in what:
    from longground.encoders import load_encoder
    from longground.index import FeatureStore
    FeatureStore(cache).get_or_build(video, load_encoder("label-bridge"), 1.0, progress=False)
names = tuple(n for n in what if n != "visual")
if names:
    from longground.channels import ChannelStore
    ChannelStore(cache).get_or_build(video, names, 1.0)
"""


def make_video(work: Path, minutes: float) -> Path:
    from longground.synth.audiovisual import plan_av
    from longground.synth.av_render import write_av_video

    start = time.perf_counter()
    path = work / f"av_{minutes:g}min.mp4"
    write_av_video(plan_av(7, 0, minutes), path)
    print(
        f"generated a {minutes:g}-minute audio-visual video in {time.perf_counter() - start:.0f} s"
    )
    return path


def measure(video: Path, what: str, work: Path) -> tuple[float, float, float]:
    """Wall s, CPU s and peak RSS (MiB) of one configuration in a fresh process and cache."""
    cache = tempfile.mkdtemp(dir=work, prefix="cache-")
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", WORKER, str(video), cache, what])
    _, status, usage = os.wait4(child.pid, 0)
    wall_s = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{what}: the worker failed ({status})")
    return wall_s, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--video", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-channels-"))
    work.mkdir(parents=True, exist_ok=True)
    video = args.video or make_video(work, args.minutes)
    rows = {label: measure(video, what, work) for label, what in CONFIGS.items()}
    base_wall, base_cpu, _ = rows["visual index (label-bridge, 1 fps)"]
    print(f"\n{video}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| configuration | wall s | CPU s | CPU x visual | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for label, (wall_s, cpu_s, rss) in rows.items():
        print(f"| {label} | {wall_s:.1f} | {cpu_s:.1f} | {cpu_s / base_cpu:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
