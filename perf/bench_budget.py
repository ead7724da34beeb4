"""What larger verification budgets cost per query on a long video (docs/agent.md, "Budgets and
N_max"; the runs: docs/notes/agent-log.md, "What larger budgets cost").

One long video (70 minutes by default, rendered at 320x180 and 10 fps like footage users
bring), three queries, four budgets, one method instance per budget sharing the disk caches:

- `paper`: N_max = 3, fixed (CoMET App. D, `-p scale_budget=false`): the baseline;
- `scaled`: N_max = 3 grown by the candidates that stand out and the minutes searched;
- `10`: N_max = 10, scaled;
- `all`: no budget, every action node covered (the default, `max_iterations=0`).

The first line is the cold query (index, event graph, region features and flow built); the
table is warm, so the differences are the verifier's. Ratios are against `paper` in the
same run.

Run:  python perf/bench_budget.py [--video PATH | --minutes 70] [--work DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from longground.methods import MethodConfig, build_method

QUERIES = (
    "Find every moment showing the tabby cat.",
    "Give all the intervals showing the cat on a green background.",
    "Show me every part of the video with a rocket sliding across the frame.",
)
BUDGETS = {
    "paper": {"max_iterations": "3", "scale_budget": "false"},
    "scaled": {"max_iterations": "3"},
    "10": {"max_iterations": "10"},
    "all": {"max_iterations": "0"},
}


def make_video(work: Path, minutes: float) -> Path:
    from longground.synth import generate, rendering_preset

    preset = rendering_preset(size=(320, 180), fps=Fraction(10))
    samples = generate(work / "synth", 1, minutes, seed=3, preset=preset)
    return Path(samples[0].video)


def timed(method, video: Path, query: str):
    start = time.perf_counter()
    grounding = method.ground(video, query)
    return time.perf_counter() - start, grounding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--video", type=Path)
    parser.add_argument("--minutes", type=float, default=70.0)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lg-budget-"))
    video = args.video or make_video(work, args.minutes)
    cache = work / "cache"

    def method(params):
        return build_method(
            "agent", MethodConfig(params={"roles": "offline", **params}, cache_dir=cache)
        )

    wall, g = timed(method(BUDGETS["all"]), video, QUERIES[0])
    print(
        f"cold first query (index + graph + verification): {wall:.1f} s, {len(g.moments)} moments"
    )
    rows = {}
    for name, params in BUDGETS.items():
        m = method(params)
        for q in QUERIES:
            timed(m, video, q)  # warm this instance's memory caches
        rows[name] = [timed(m, video, q) for q in QUERIES]
    base = sum(w for w, _ in rows["paper"])
    print("\n| budget | query | wall s | verifications | moments | examined | ratio to paper |")
    print("|---|---|---|---|---|---|---|")
    for name, results in rows.items():
        for k, (w, g) in enumerate(results):
            t = g.trace
            seen = t.get("unexamined", {}).get("examined_fraction", 0.0)
            print(
                f"| {name} | {k + 1} | {w:.2f} | {t['loop']['iterations']} | {len(g.moments)} "
                f"| {seen:.2f} | |"
            )
        total = sum(w for w, _ in results)
        print(f"| {name} | all | {total:.2f} | | | | {total / base:.2f} |")


if __name__ == "__main__":
    main()
