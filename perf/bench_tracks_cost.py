"""What `find --tracks` adds to the cold first query on a long video, in one run.

    python perf/bench_tracks_cost.py [--minutes 70] [--query "how many cats appear"]
                                     [--method agent] [--work DIR]

Renders one generated video (`longground synth --videos 1 --minutes M --seed 3`, kept in
WORK); fills a new cache folder with the networks' ONNX exports only (a `find` on the first
20 s of the same video and the localiser on two of its frames, in their own process, whose
video caches are then removed: a user's first query on a new video finds the exports made
once per install), then in a fresh process on that cache:

1. the cold first query, `longground.find(video, query)`: index, the method's own caches,
   the answer (what `find` costs without tracks);
2. the tracks step on those moments, as `find --tracks` runs it (`TrackRequest.attach`:
   the target's words, 5 fps inside each moment, the localiser coarse to fine, ByteTrack).

Prints both wall and CPU times, the tracks' share of the first (the issue's target: at most
25 %), how much of the video the moments cover, and how many sampled frames the change
to fine localiser showed the localiser.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 0.25


def render(work: Path, minutes: float) -> Path:
    out = work / f"synth_{minutes:g}min"
    videos = sorted((out / "videos").glob("*.mp4")) if out.exists() else []
    if not videos:
        command = [sys.executable, "-m", "longground", "synth", "--out", str(out), "--videos",
                   "1", "--minutes", f"{minutes:g}", "--seed", "3", "--overwrite"]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True)
        videos = sorted((out / "videos").glob("*.mp4"))
    return videos[0]


def exports_only(video: Path, query: str, cache: Path, env: dict) -> None:
    """Make the networks' exports in `cache` (a search on a 20 s clip of `video`, the
    localiser on two of its frames), then remove everything else it cached."""
    import shutil

    from longground.video import sample_frames
    from longground.video.writer import VideoWriter

    clip = cache / "warm.mp4"
    with VideoWriter(clip, 480, 270, fps=5) as writer:
        for batch in sample_frames(video, 5, 0, 20, short_side=None):
            for frame in batch.frames:
                writer.write(frame[:270, :480])
    subprocess.run([sys.executable, __file__, "--warm", str(clip), "--query", query],
                   capture_output=True, env=env, check=True)  # fmt: skip
    for entry in cache.iterdir():
        if entry.name != "encoders":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def warm(clip: Path, query: str) -> None:
    """The search and the localiser once on `clip` (their networks exported)."""
    import longground
    from longground.tracking.localise import localiser_for
    from longground.tracking.on_moments import target_words
    from longground.video import sample_frames

    longground.find(clip, query)
    words = target_words(query)[0]
    localiser = localiser_for(words)
    batch = next(iter(sample_frames(clip, 1, short_side=localiser.decode_side(words))))
    localiser(batch.frames[:2], words)


def child(video: Path, query: str, method: str) -> None:
    """Both steps in this process (an empty cache is set by the parent); prints JSON."""
    import longground
    from longground.cli.find_tracks import TrackRequest
    from longground.tracking import on_moments
    from longground.video import probe

    calls = {"sampled": 0, "localised": 0}
    sparse_call = on_moments.SparseLocaliser.__call__

    def counting(self, frames):
        before = self.localised
        found = sparse_call(self, frames)
        calls["sampled"] += len(frames)
        calls["localised"] += self.localised - before
        return found

    on_moments.SparseLocaliser.__call__ = counting
    cpu, wall = time.process_time(), time.perf_counter()
    moments = longground.find(video, query, method=method)
    ground = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    cpu, wall = time.process_time(), time.perf_counter()
    tracks, objects = TrackRequest(tracks=True).attach(video, query, moments, None, False)
    track = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    duration_s = float(probe(video).duration_s)
    covered_s = float((moments.spans[:, 1] - moments.spans[:, 0]).sum()) if moments.count else 0
    print(json.dumps({"ground": ground, "tracks": track, "moments": moments.count,
                      "covered": covered_s / duration_s, "duration_s": duration_s,
                      "objects": objects, "n_tracks": sum(len(t) for t in tracks or ()),
                      **calls}))  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=70.0)
    parser.add_argument("--query", default="how many cats appear")
    parser.add_argument("--method", default="agent")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "lg-tracks")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.warm:
        warm(args.warm, args.query)
        return 0
    if args.child:
        child(args.child, args.query, args.method)
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    video = render(args.work, args.minutes)
    with tempfile.TemporaryDirectory(prefix="lgtrackcost") as cache:
        env = {**os.environ, "LONGGROUND_CACHE": cache}
        exports_only(video, args.query, Path(cache), env)
        command = [sys.executable, __file__, "--child", str(video), "--query", args.query,
                   "--method", args.method]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    r = json.loads(done.stdout.strip().splitlines()[-1])
    g, t = r["ground"], r["tracks"]
    print(f"{video.name}: {r['duration_s'] / 60:.1f} min, query {args.query!r}, {args.method}")
    print(f"cold first query: {g['wall_s']:.1f} s wall, {g['cpu_s']:.1f} s CPU; "
          f"{r['moments']} moments covering {r['covered']:.1%} of the video")  # fmt: skip
    print(f"tracks: {t['wall_s']:.1f} s wall, {t['cpu_s']:.1f} s CPU; {r['sampled']} frames "
          f"sampled, {r['localised']} localised (coarse to fine), {r['n_tracks']} tracks, "
          f"{r['objects']} objects")  # fmt: skip
    share = t["wall_s"] / g["wall_s"]
    print(f"tracks add {share:.1%} of the cold first query's wall time "
          f"({t['cpu_s'] / g['cpu_s']:.1%} of its CPU); target at most {TARGET:.0%}: "
          f"{'met' if share <= TARGET else 'not met'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
