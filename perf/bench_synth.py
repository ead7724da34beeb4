"""Speed of the synthetic benchmark generator on one long video.

Plans, renders and encodes one video (default 60 minutes at the default 480x270, 5 fps,
x264 "ultrafast") and prints the time of each stage, the frames per second and the file size.
Target (issue 4): under 3 minutes for a 60-minute video on a 2-core machine.

    python perf/bench_synth.py                 # one 60-minute video
    python perf/bench_synth.py --minutes 10    # a shorter run
    python perf/bench_synth.py --tiny          # the test preset
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from longground.synth import PRESETS, plan
from longground.synth.writer import write_video

TARGET_S_PER_HOUR = 180.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="keep the video here")
    args = parser.parse_args()
    preset = PRESETS["tiny" if args.tiny else "default"]

    t0 = time.perf_counter()
    (video,) = plan(1, args.minutes, args.seed, args.tiny)
    t_plan = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        path = (args.out or Path(tmp)) / "bench_synth.mp4"
        path.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        write_video(video.script, path, preset.width, preset.height, preset.crf, preset.x264_preset)
        t_render = time.perf_counter() - t0
        size_mb = path.stat().st_size / 1e6

    total = t_plan + t_render
    n = video.script.n_frames
    print(
        f"video: {args.minutes:g} min, {preset.width}x{preset.height}, {preset.fps} fps, "
        f"{n} frames, {len(video.script.shots)} shots, {len(video.samples)} queries"
    )
    print(f"plan (script + ground truth + queries): {t_plan:7.1f} s")
    print(
        f"render + encode:                        {t_render:7.1f} s  ({n / t_render:.0f} frames/s)"
    )
    print(f"total:                                  {total:7.1f} s  ({size_mb:.1f} MB)")
    if not args.tiny:
        budget = TARGET_S_PER_HOUR * args.minutes / 60
        verdict = "within" if total <= budget else "OVER"
        print(f"target: {budget:.0f} s for {args.minutes:g} min -> {verdict}")


if __name__ == "__main__":
    main()
