"""Content-adaptive indexing against the naive loop and the every-frame index, same video.

Generates a synthetic-benchmark video (`longground.synth`: scripted shots with pans, zooms,
moving objects and playing clips) at 640x360, 25 fps, of the requested length (cached under
`$TMPDIR/longground-bench`), then runs each measurement in its own child process:

- naive: `cv2.VideoCapture` reads every frame; the frame on screen at each sample time is
  resized to 224 on its short side and encoded, 64 at a time (the decode-then-embed loop);
- every: `FeatureStore.get_or_build` encoding every sampled frame (decoding in a thread,
  keyframe-aware seeking, frames scaled inside FFmpeg);
- adaptive: the same with the change gate (only frames whose thumbnail changed are encoded).

The encoder is loaded and run once before each clock starts. Prints wall and CPU seconds,
frames encoded, and each against the naive loop. Target (issue 24): adaptive <= 0.15x the
naive loop on 20 minutes.

    python perf/bench_adaptive.py                # 20 minutes (the target case)
    python perf/bench_adaptive.py --minutes 3    # quick

Then, unless `--no-parts`, the adaptive index's parts alone, each in its own process:
decoding the samples (non-reference frames on screen at no sample time left undecoded, as
the index does), decoding every frame (`decode-all`), decoding plus the change gate, and the
encoder on as many frames as the gate let through, so that the time of the whole can be read
against its parts.

The synthetic benchmark's files have no B-frames (x264 "ultrafast"), so skipping
non-reference frames cannot help there; `--x264` runs everything on a copy re-encoded with
x264's "veryfast" preset (3 B-frames, as most H.264 files), where it does:

    python perf/bench_adaptive.py --minutes 20 --x264
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
TARGET = 0.15
KINDS = ("naive", "every", "adaptive", "adaptive-1t")
# adaptive-1t: the adaptive index with the encoder on one ONNX Runtime thread, leaving the
# other core to the decoding thread (is the overlap lost to three threads on two cores?).
# Where the adaptive index's time goes, each alone: decoding the samples, the change gate's
# thumbnails and decisions on them, and the encoder on as many frames as the gate let through.
PARTS = ("decode", "decode-all", "gate", "encode")


def make_video(minutes: float) -> Path:
    """The benchmark video, rendered once and cached (written atomically)."""
    from longground.synth.generate import Preset, plan_video
    from longground.synth.writer import write_video

    folder = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "longground-bench"
    path = folder / f"synth_{WIDTH}x{HEIGHT}_{SOURCE_FPS}fps_{minutes:g}min.mp4"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    preset = Preset(WIDTH, HEIGHT, Fraction(SOURCE_FPS), (2.0, 60.0), (minutes,))
    planned = plan_video(0, minutes, 0, preset, path.name)
    partial = path.with_suffix(".partial.mp4")
    started = time.perf_counter()
    write_video(planned.script, partial, WIDTH, HEIGHT, preset.crf, preset.x264_preset)
    partial.rename(path)
    print(f"generated {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def x264_copy(video: Path) -> Path:
    """`video` re-encoded with libx264's "veryfast" preset (B-frames), cached beside it."""
    import av

    path = video.with_name(f"{video.stem}_x264veryfast.mp4")
    if path.exists():
        return path
    partial = path.with_suffix(".partial.mp4")
    with av.open(str(video)) as source, av.open(str(partial), "w") as out:
        decoder = source.streams.video[0]
        encoder = out.add_stream("libx264", rate=decoder.average_rate)
        encoder.width, encoder.height, encoder.pix_fmt = decoder.width, decoder.height, "yuv420p"
        encoder.options = {"crf": "23", "preset": "veryfast"}
        for frame in source.decode(decoder):
            frame.pict_type = av.video.frame.PictureType.NONE  # let x264 choose each type
            out.mux(encoder.encode(frame))
        out.mux(encoder.encode(None))
    partial.rename(path)
    return path


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _warm(encoder_spec: str):
    import numpy as np

    from longground.encoders import load_encoder

    encoder = load_encoder(encoder_spec)
    encoder.image_features(np.zeros((2, 224, 398, 3), np.uint8))
    return encoder


def naive(video: Path, fps: float, encoder_spec: str) -> dict:
    """Every frame decoded by OpenCV; the sampled ones resized and encoded in batches."""
    import cv2
    import numpy as np

    encoder = _warm(encoder_spec)
    started, cpu = time.perf_counter(), _cpu_s()
    capture = cv2.VideoCapture(str(video))
    source_fps = capture.get(cv2.CAP_PROP_FPS)
    batch, encoded, index, next_sample = [], 0, 0, 0.0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        if index / source_fps + 1e-9 >= next_sample:  # the first frame at or past the sample
            h, w = frame.shape[:2]
            scale = 224 / min(h, w)
            small = cv2.resize(frame, (round(w * scale), round(h * scale)), cv2.INTER_AREA)
            batch.append(cv2.cvtColor(small, cv2.COLOR_BGR2RGB))
            next_sample += 1 / fps
        if len(batch) == 64:
            encoder.image_features(np.stack(batch))
            encoded, batch = encoded + len(batch), []
        index += 1
    if batch:
        encoder.image_features(np.stack(batch))
        encoded += len(batch)
    capture.release()
    return {"wall_s": time.perf_counter() - started, "cpu_s": _cpu_s() - cpu,
            "frames": encoded, "encoded": encoded}  # fmt: skip


def indexed(video: Path, fps: float, encoder_spec: str, adaptive: bool) -> dict:
    """`FeatureStore.get_or_build` from an empty cache, with or without the change gate."""
    from longground.index import FeatureStore
    from longground.index.store import DEFAULT_GATE

    encoder = _warm(encoder_spec)
    with tempfile.TemporaryDirectory() as cache:
        store = FeatureStore(cache, gate=DEFAULT_GATE if adaptive else None)
        started, cpu = time.perf_counter(), _cpu_s()
        timeline = store.get_or_build(video, encoder, fps, progress=False)
        wall_s, cpu_s = time.perf_counter() - started, _cpu_s() - cpu
        entry_bytes = sum(p.stat().st_size for p in Path(cache).rglob("*.npz"))
    return {"wall_s": wall_s, "cpu_s": cpu_s, "frames": len(timeline),
            "encoded": int(timeline.encoded.sum()), "entry_bytes": entry_bytes,
            "duration_s": timeline.duration_s}  # fmt: skip


def part(kind: str, video: Path, fps: float, encoder_spec: str, n_encode: int) -> dict:
    """One part of the adaptive index alone: `decode` (`sample_frames` at the encoder's
    size), `decode-all` (the same decoding every frame), `gate` (decoding plus thumbnails and
    decisions) or `encode` (the encoder on `n_encode` frames, 64 at a time)."""
    import numpy as np

    from longground.index.store import DEFAULT_GATE, decode_side
    from longground.video import sample_frames

    encoder = _warm(encoder_spec)
    side = decode_side(encoder)
    started, cpu = time.perf_counter(), _cpu_s()
    if kind == "encode":
        frames = np.random.default_rng(0).integers(0, 256, (64, side, side * 16 // 9, 3), np.uint8)
        for start in range(0, n_encode, 64):
            encoder.image_features(frames[: min(64, n_encode - start)])
        return {"wall_s": time.perf_counter() - started, "cpu_s": _cpu_s() - cpu,
                "frames": n_encode, "encoded": n_encode}  # fmt: skip
    stream = sample_frames(video, fps, short_side=side, skip_unshown=kind != "decode-all")
    last, encoded, frames = None, 0, 0
    for batch in stream:
        frames += len(batch)
        if kind == "gate":
            chosen, last = DEFAULT_GATE.select(DEFAULT_GATE.thumbnails(batch.frames), last)
            encoded += int(chosen.sum())
    return {"wall_s": time.perf_counter() - started, "cpu_s": _cpu_s() - cpu, "frames": frames,
            "encoded": encoded, "decoded": stream.n_decoded}  # fmt: skip


def child(kind: str, video: Path, fps: float, encoder_spec: str, n_encode: int) -> None:
    if kind == "naive":
        result = naive(video, fps, encoder_spec)
    elif kind in PARTS:
        result = part(kind, video, fps, encoder_spec, n_encode)
    else:
        result = indexed(video, fps, encoder_spec, adaptive=kind.startswith("adaptive"))
    print(json.dumps(result))


def run_child(kind: str, video: Path, args, n_encode: int = 0) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--video", str(video),
               "--fps", str(args.fps), "--encoder", args.encoder,
               "--n-encode", str(n_encode)]  # fmt: skip
    env = {**os.environ, **({"LONGGROUND_ONNX_THREADS": "1"} if kind == "adaptive-1t" else {})}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--fps", type=float, default=1.0)
    parser.add_argument("--encoder", default="label-bridge")
    parser.add_argument("--x264", action="store_true",
                        help="run on a copy re-encoded by x264 'veryfast' (B-frames)")  # fmt: skip
    parser.add_argument("--no-parts", action="store_true",
                        help="skip the breakdown of the adaptive index into its parts")  # fmt: skip
    parser.add_argument("--child", choices=KINDS + PARTS, help=argparse.SUPPRESS)
    parser.add_argument("--video", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n-encode", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.video, args.fps, args.encoder, args.n_encode)
        return
    video = make_video(args.minutes)
    if args.x264:
        video = x264_copy(video)
    load = os.getloadavg()[0]
    print(f"{video.name}: {args.minutes:g} min at {args.fps:g} fps, {args.encoder}, "
          f"load average {load:.1f} at the start")  # fmt: skip
    results = {kind: run_child(kind, video, args) for kind in KINDS}
    if not args.no_parts:
        n_encode = results["adaptive"]["encoded"]
        results.update({kind: run_child(kind, video, args, n_encode) for kind in PARTS})
    base = results["naive"]
    print(f"{'':9} {'wall s':>8} {'cpu s':>8} {'encoded':>12} {'x naive (wall)':>15} "
          f"{'x naive (cpu)':>14} {'x realtime':>11}")  # fmt: skip
    for kind, r in results.items():
        realtime = args.minutes * 60 / r["wall_s"]
        encoded = f"{r['encoded']}/{r['frames']}"
        print(f"{kind:9} {r['wall_s']:8.1f} {r['cpu_s']:8.1f} {encoded:>12} "
              f"{r['wall_s'] / base['wall_s']:15.3f} {r['cpu_s'] / base['cpu_s']:14.3f} "
              f"{realtime:11.1f}")  # fmt: skip
    if not args.no_parts:
        decoded, every = results["decode"]["decoded"], results["decode-all"]["decoded"]
        print(
            f"parts alone (decode: {decoded} frames decoded for {results['decode']['frames']} "
            f"samples, non-reference frames skipped; decode-all: {every} frames decoded; "
            "gate: decoding plus the gate; encode: the frames the gate let through)"
        )
    one_thread = results["adaptive-1t"]["wall_s"] / base["wall_s"]
    print(f"adaptive with the encoder on one thread / naive: {one_thread:.3f}x wall")
    ratio = results["adaptive"]["wall_s"] / base["wall_s"]
    print(f"adaptive / naive: {ratio:.3f}x wall; target <= {TARGET}x "
          f"{'met' if ratio <= TARGET else 'MISSED'}")  # fmt: skip
    hours = results["adaptive"]["duration_s"] / 3600
    for kind in ("every", "adaptive"):
        per_hour = results[kind]["entry_bytes"] / hours / 1e6
        print(f"index entry ({kind}): {per_hour:.2f} MB per hour of video")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
