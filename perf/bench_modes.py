"""What an opt-in indexing mode costs in accuracy: F1@0.5 with and without it, same benchmark.

Runs `longground run BENCH --method M` once with the defaults and once with each mode, each
in its own cache folder: `int8` (`--encoder label-bridge:int8`, the classifier quantised to
int8 with ONNX Runtime) and `keyframes` (`LONGGROUND_INDEX_KEYFRAMES=1`, keyframes-only
decoding, as `longground index --keyframes-only`); scores each with `longground eval
--json` (comet protocol), and prints F1@0.5, R@0.5, mIoU, Rej-F1 and count MAE side by
side with the change. A mode may become a default only when F1 drops by at most 0.01
(issue 37).

The benchmark is any file `longground eval` reads; without `--bench`, the generated
renderings of `longground synth --videos 2 --minutes 3,5 --seed 1` (made once, cached):

    python perf/bench_modes.py                                  # synth renderings
    python perf/bench_modes.py --bench real/bench.jsonl --videos real/videos --method agent

Speed: `perf/bench_index_cost.py` prints each mode's index time against decoding alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: mode: (encoder, environment)
MODES = {"int8": ("label-bridge:int8", {}),
         "keyframes": ("label-bridge", {"LONGGROUND_INDEX_KEYFRAMES": "1"})}  # fmt: skip
METRICS = ("F1@0.5", "R@0.5", "mIoU", "Rej-F1", "MAE")


def longground(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "longground", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})})  # fmt: skip
    if done.returncode not in (0, 1):
        raise SystemExit(f"longground {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done


def synth_bench() -> Path:
    folder = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "longground-bench" / "modes"
    bench = folder / "benchmark.jsonl"
    if not bench.exists():
        longground("synth", "--out", str(folder), "--videos", "2", "--minutes", "3,5",
                   "--seed", "1")  # fmt: skip
    return bench


def scores(bench: Path, videos: Path | None, method: str, mode: str, work: Path) -> dict:
    """Run and score one configuration; the metrics as fractions (MAE as a count)."""
    encoder, env = MODES.get(mode, ("label-bridge", {}))
    preds = work / f"{mode}.jsonl"
    roots = ["--videos", str(videos)] if videos else []
    longground("run", str(bench), "--method", method, "--encoder", encoder, "--out", str(preds),
               "--cache-dir", str(work / mode), *roots, env=env)  # fmt: skip
    result = json.loads(longground("eval", str(bench), str(preds), "--json").stdout)
    return _flat(result)


def _flat(result: dict) -> dict:
    """The metrics this script prints, found by name anywhere in `eval --json`'s object."""
    found: dict = {}

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif key in WANTED and isinstance(value, int | float):
            found.setdefault(WANTED[key], float(value))

    walk(result)
    return found


WANTED = {"f1@0.5": "F1@0.5", "recall@0.5": "R@0.5", "miou": "mIoU", "rej_f1": "Rej-F1",
          "mae": "MAE"}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, help="benchmark file (default: synth renderings)")
    parser.add_argument("--videos", type=Path, help="folder the benchmark's videos are in")
    parser.add_argument("--method", default="retrieval")
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    args = parser.parse_args()
    bench = args.bench or synth_bench()
    videos = args.videos or (None if args.bench else bench.parent / "videos")
    with tempfile.TemporaryDirectory(prefix="lgmodes") as tmp:
        base = scores(bench, videos, args.method, "default", Path(tmp))
        print(f"{bench}; method {args.method}")
        print(f"{'mode':<22}" + "".join(f"{m:>9}" for m in METRICS) + f"{'F1 change':>10}")
        print(f"{'default':<22}" + "".join(f"{base.get(m, float('nan')):9.3f}"
                                           for m in METRICS))  # fmt: skip
        for mode in args.modes:
            got = scores(bench, videos, args.method, mode, Path(tmp))
            change = got.get("F1@0.5", float("nan")) - base.get("F1@0.5", float("nan"))
            verdict = "may be default" if change >= -0.01 else "stays opt-in"
            print(f"{mode:<22}" + "".join(f"{got.get(m, float('nan')):9.3f}"
                                          for m in METRICS)
                  + f"{change:+10.3f}  {verdict}")  # fmt: skip


if __name__ == "__main__":
    main()
