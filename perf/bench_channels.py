"""What the evidence channels cost: the first index of an audio-visual video with each channel
alone and all together, against the visual-only feature index, and each one's peak memory.

Every configuration runs in a fresh process with an empty cache, so its wall time, CPU time
(user + system of that process) and peak resident memory are its own. The video comes from
`synth --av` (slides, captions, a scoreboard, the astronaut's face) with a denser soundtrack
than the benchmark's: a spoken sentence every `SPEECH_EVERY_S` seconds during the first
`SPOKEN_SHARE` of the video, silence after (a talk with a silent demo part). Each distinct
sentence is synthesised once, so a 60-minute video is generated in a few minutes.

Ratios are printed against two baselines measured in the same run: (a) today's visual index
(content-adaptive: only frames whose picture changed are encoded) and (b) the visual index as
it was when the channels were asked for (every sampled frame encoded).

Run:  python perf/bench_channels.py [--minutes 60] [--work DIR] [--video PATH]
                                    [--configs speech,text,people,all,...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from functools import cache
from pathlib import Path

#: Short name -> (label in the table, what the worker builds). The first two are the
#: baselines: today's content-adaptive visual index (a), and the visual index as it was when
#: the channels were asked for (b), every sampled frame encoded (`$LONGGROUND_INDEX_EVERY_FRAME`).
CONFIGS = {
    "visual": ("visual index (label-bridge, 1 fps)", "visual"),
    "every": ("visual index, every frame encoded", "visual"),
    "speech": ("speech alone", "speech"),
    "text": ("text alone", "text"),
    "people": ("people alone", "people"),
    "all": ("all three channels", "speech,text,people"),
    "both": ("visual index + all channels", "visual,speech,text,people"),
}
SPEECH_EVERY_S = 8.0  # one sentence (about 2 s of speech) starts this often ...
SPOKEN_SHARE = 0.5  # ... during this share of the video

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
    """A `minutes`-long `synth --av` video whose first half is talked over."""
    from longground.synth import av_render
    from longground.synth.audiovisual import KEYWORDS, SENTENCES, Utterance, plan_av

    start = time.perf_counter()
    path = work / f"av_{minutes:g}min.mp4"
    plan = plan_av(7, 0, minutes)
    starts = [2.0 + k * SPEECH_EVERY_S for k in range(int(plan.duration_s * SPOKEN_SHARE
                                                          // SPEECH_EVERY_S))]  # fmt: skip
    said = [KEYWORDS[k % len(KEYWORDS)] for k in range(len(starts))]
    utterances = tuple(Utterance(at, word, SENTENCES[k % len(SENTENCES)].format(word))
                       for k, (at, word) in enumerate(zip(starts, said)))  # fmt: skip
    speak = av_render.speak
    av_render.speak = cache(speak)  # 64 distinct sentences, each synthesised once
    try:
        av_render.write_av_video(replace(plan, utterances=utterances), path)
    finally:
        av_render.speak = speak
    took_s = time.perf_counter() - start
    print(f"generated {path} ({len(utterances)} sentences) in {took_s:.0f} s", flush=True)
    return path


def measure(video: Path, name: str, work: Path) -> tuple[float, float, float]:
    """Wall s, CPU s and peak RSS (MiB) of configuration `name` in a fresh process and cache."""
    from longground.index.store import EVERY_FRAME_ENV

    cache_dir = tempfile.mkdtemp(dir=work, prefix="cache-")
    env = {k: v for k, v in os.environ.items() if k != EVERY_FRAME_ENV}
    if name == "every":
        env[EVERY_FRAME_ENV] = "1"
    what = CONFIGS[name][1]
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", WORKER, str(video), cache_dir, what], env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall_s = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{name}: the worker failed ({status})")
    return wall_s, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--video", type=Path, default=None)
    parser.add_argument("--configs", default=",".join(CONFIGS),
                        help="names of CONFIGS, comma-separated; baselines always run")  # fmt: skip
    args = parser.parse_args()
    baselines = ["visual", "every"]
    chosen = baselines + [c for c in args.configs.split(",") if c in CONFIGS and c not in baselines]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-channels-"))
    work.mkdir(parents=True, exist_ok=True)
    video = args.video or make_video(work, args.minutes)
    print(f"{video}: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("CPU x (a): against the content-adaptive visual index; (b): every frame encoded")
    print("| configuration | wall s | CPU s | CPU x (a) | CPU x (b) | wall x (a) | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|", flush=True)
    base = {}  # baseline name -> (wall s, CPU s)
    for name in chosen:
        wall_s, cpu_s, rss = measure(video, name, work)
        if name in baselines:
            base[name] = (wall_s, cpu_s)
        (wall_a, cpu_a), (_, cpu_b) = base.get("visual", (wall_s, cpu_s)), base.get("every", (0, 0))
        ratio_b = f"{cpu_s / cpu_b:.2f}" if cpu_b else "-"
        print(f"| {CONFIGS[name][0]} | {wall_s:.1f} | {cpu_s:.1f} | {cpu_s / cpu_a:.2f} | "
              f"{ratio_b} | {wall_s / wall_a:.2f} | {rss:.0f} |", flush=True)  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
