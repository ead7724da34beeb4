"""Indexing speed and memory on a generated long video, against the decode floor and OpenCV.

Generates a 640x360 H.264 video of the requested length (cached between runs), then runs
each measurement in its own process so that peak RSS is that measurement's alone:

- decode: `sample_frames` at the index rate, frames scaled to 224 on the short side and
  discarded (the floor: indexing can be no faster than this);
- encode: the encoder alone on as many frames (the other floor; timed on 512 frames and
  scaled);
- index: `FeatureStore.get_or_build` with the encoder, from an empty cache (encoder loaded
  and run once beforehand, so one-time set-up is not counted); `--serial` adds the same
  without the decoding thread;
- lookup: a cache hit in a fresh process (load the stored timeline), and a second
  `longground find` end to end when that command is available;
- opencv: a plain `cv2.VideoCapture` loop reading every frame and resizing the sampled ones,
  the way peers do it.

    python perf/bench_index.py                 # 10 minutes of video (quick)
    python perf/bench_index.py --hours 1 2     # the targets: 1 h and 2 h

Targets on a 2-core machine: index >= 30x realtime and <= 2x the decode floor; peak RSS
< 1.5 GB and the same for 1 h and 2 h; a second find < 1 s.
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
from fractions import Fraction
from pathlib import Path

WIDTH, HEIGHT, SOURCE_FPS = 640, 360, 25
SCENE_S = 7  # a new background every 7 s
ENCODE_SAMPLE = 512  # frames the encoder-only floor is timed on


def make_video(path: Path, seconds: float) -> Path:
    """Write the benchmark video (YUV frames straight to libx264 ultrafast), atomically."""
    import av
    import numpy as np

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.mp4")
    container = av.open(str(partial), "w")
    stream = container.add_stream("libx264", rate=SOURCE_FPS)
    stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
    stream.options = {"preset": "ultrafast", "crf": "23"}
    planes = np.zeros((HEIGHT * 3 // 2, WIDTH), np.uint8)
    background = planes.copy()
    started = time.perf_counter()
    for i in range(int(seconds * SOURCE_FPS)):
        if i % (SCENE_S * SOURCE_FPS) == 0:
            background = _scene(np.random.default_rng(i))
        planes[:] = background
        x = (i * 4) % (WIDTH - 80)
        y = int((HEIGHT - 80) / 2 * (1 + np.sin(i / 20)))
        planes[y : y + 80, x : x + 80] = 235
        frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
        frame.pts, frame.time_base = i, Fraction(1, SOURCE_FPS)
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    container.close()
    os.replace(partial, path)
    print(f"generated {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def _scene(rng):
    """A smooth luma gradient with flat chroma: compresses well, looks like a scene change."""
    import numpy as np

    luma = np.linspace(0, 1, WIDTH)[None, :] * rng.integers(40, 200) + np.linspace(0, 1, HEIGHT)[
        :, None
    ] * rng.integers(0, 50)
    planes = np.empty((HEIGHT * 3 // 2, WIDTH), np.uint8)
    planes[:HEIGHT] = luma.clip(16, 235).astype(np.uint8)
    planes[HEIGHT:] = rng.integers(60, 200)
    return planes


# Measurements, each run in a child process.


class Stopwatch:
    """Wall time and CPU time (all threads of this process) since it was made."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> dict:
        return {"wall_s": time.perf_counter() - self.wall, "cpu_s": time.process_time() - self.cpu}


def measure_decode(video: Path, fps: float, encoder: str, cache: Path) -> dict:
    from longground.video import sample_frames

    stream = sample_frames(video, fps)
    frames = sum(len(batch) for batch in stream)
    return {"frames": frames, "decoded": stream.n_decoded, "seeks": stream.n_seeks}


def _warm_encoder(name: str):
    """Load the encoder and run it once, so one-time set-up is not counted as indexing."""
    import numpy as np

    from longground.encoders import load_encoder

    started = time.perf_counter()
    model = load_encoder(name)
    model.image_features(np.zeros((2, 224, 398, 3), np.uint8))
    return model, time.perf_counter() - started


def measure_index(video: Path, fps: float, encoder: str, cache: Path, pipeline=True) -> dict:
    from longground.index import FeatureStore, build_timeline

    model, loaded_s = _warm_encoder(encoder)
    watch = Stopwatch()
    if pipeline:  # the real path: through the store, written to disk
        timeline = FeatureStore(cache).get_or_build(video, model, fps, progress=False)
    else:
        timeline = build_timeline(video, model, fps, progress=False, pipeline=False)
    return {"frames": len(timeline), **watch.read(), "load_s": loaded_s}


def measure_serial(video: Path, fps: float, encoder: str, cache: Path) -> dict:
    """Indexing without the decode thread, to show what pipelining buys."""
    return measure_index(video, fps, encoder, cache, pipeline=False)


def measure_encode(video: Path, fps: float, encoder: str, cache: Path) -> dict:
    """The encoder alone (the other floor): timed on up to `ENCODE_SAMPLE` frames and scaled
    to as many frames as the index has."""
    import numpy as np

    from longground.video import probe

    model, _ = _warm_encoder(encoder)
    frames = int(probe(video).duration_s * fps)
    timed = min(frames, ENCODE_SAMPLE)
    batch = np.random.default_rng(0).integers(0, 255, (64, 224, 398, 3), dtype=np.uint8)
    watch = Stopwatch()
    for start in range(0, timed, 64):
        model.image_features(batch[: min(64, timed - start)])
    scale = frames / timed
    return {"frames": frames, **{k: v * scale for k, v in watch.read().items()}}


def measure_lookup(video: Path, fps: float, encoder: str, cache: Path) -> dict:
    from longground.encoders import load_encoder
    from longground.index import FeatureStore

    model = load_encoder(encoder)
    watch = Stopwatch()
    timeline = FeatureStore(cache).get_or_build(video, model, fps, progress=False)
    return {"frames": len(timeline), **watch.read()}


def measure_opencv(video: Path, fps: float, encoder: str, cache: Path) -> dict:
    import cv2

    capture = cv2.VideoCapture(str(video))
    source_fps = capture.get(cv2.CAP_PROP_FPS) or SOURCE_FPS
    every = max(1, round(source_fps / fps))
    read = kept = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        if read % every == 0:
            cv2.resize(frame, (398, 224), interpolation=cv2.INTER_AREA)
            kept += 1
        read += 1
    capture.release()
    return {"frames": kept, "decoded": read}


MEASURES = {
    "decode": measure_decode,
    "encode": measure_encode,
    "index": measure_index,
    "serial": measure_serial,
    "lookup": measure_lookup,
    "opencv": measure_opencv,
}


def child(kind: str, video: Path, fps: float, encoder: str, cache: Path) -> None:
    watch = Stopwatch()
    result = MEASURES[kind](video, fps, encoder, cache)
    result = {**watch.read(), **result}
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def run_child(kind: str, video: Path, args, cache: Path) -> dict | None:
    command = [sys.executable, __file__, "--child", kind, "--video", str(video)]
    command += ["--fps", str(args.fps), "--encoder", args.encoder, "--cache", str(cache)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1:] or ["?"]
        print(f"  {kind}: failed ({reason[0]})", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def find_twice(video: Path, fps: float, cache: Path) -> float | None:
    """Wall time of a second `longground find` (the first one builds or loads the index)."""
    env = {**os.environ, "LONGGROUND_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "longground", "find", str(video), "a car", "--fps", str(fps)]
    first = subprocess.run(command, capture_output=True, text=True, env=env)
    if first.returncode not in (0, 1):
        return None
    started = time.perf_counter()
    second = subprocess.run(command, capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    return took if second.returncode in (0, 1) else None


def report(seconds: float, video: Path, args) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="longground-bench-cache-"))
    load = os.getloadavg()[0]
    kinds = ["decode", "opencv", "encode", "index"] + (["serial"] if args.serial else [])
    rows = {kind: run_child(kind, video, args, cache) for kind in kinds}
    if rows["index"] is not None:
        rows["lookup"] = run_child("lookup", video, args, cache)
        rows["find_s"] = find_twice(video, args.fps, cache)
    print(f"\n{seconds / 3600:.2f} h of {WIDTH}x{HEIGHT} H.264 at {SOURCE_FPS} fps, sampled at "
          f"{args.fps:g} fps ({video})")  # fmt: skip
    print(f"  load average {load:.1f} on {os.cpu_count()} cores at the start")
    for kind in [*kinds, "lookup"]:
        row = rows.get(kind)
        if row is None:
            print(f"  {kind:8s} unavailable")
            continue
        speed = seconds / row["wall_s"]
        print(f"  {kind:8s} {row['wall_s']:8.1f} s  {speed:7.1f}x realtime  "
              f"cpu {row['cpu_s']:7.1f} s  peak RSS {row['peak_rss_mb']:6.0f} MB  "
              f"{row['frames']} frames")  # fmt: skip
    if rows["decode"] and rows["index"]:
        ratio = rows["index"]["wall_s"] / rows["decode"]["wall_s"]
        print(f"  index / decode floor: {ratio:.2f}x  (encoder load {rows['index']['load_s']:.1f} s"
              " not counted)")  # fmt: skip
        if rows.get("encode"):
            floor = max(rows["decode"]["wall_s"], rows["encode"]["wall_s"])
            print(f"  index / max(decode, encode): {rows['index']['wall_s'] / floor:.2f}x"
                  " (1.0 = decoding fully hidden behind encoding)")  # fmt: skip
    if rows.get("find_s") is not None:
        print(f"  second `longground find`, end to end: {rows['find_s']:.2f} s")
    return {"seconds": seconds, "load": load, **rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="video length (quick run)")
    parser.add_argument("--hours", type=float, nargs="*", help="lengths in hours, e.g. 1 2")
    parser.add_argument("--fps", type=float, default=1.0, help="index sampling rate")
    parser.add_argument("--encoder", default="label-bridge")
    parser.add_argument("--video-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "longground-bench")  # fmt: skip
    parser.add_argument("--serial", action="store_true", help="also index without pipelining")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--child", choices=sorted(MEASURES), help=argparse.SUPPRESS)
    parser.add_argument("--video", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.video, args.fps, args.encoder, args.cache)
        return
    lengths = [h * 3600 for h in args.hours] if args.hours else [args.minutes * 60]
    results = []
    for seconds in lengths:
        video = make_video(args.video_dir / f"bench-{int(seconds)}s.mp4", seconds)
        results.append(report(seconds, video, args))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
