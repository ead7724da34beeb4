"""Speech queries of `synth --av` benchmarks, and words never said on their videos, answered by
the speech channel alone: speech F1@0.5 and Rej-F1 (comet protocol), and how many never-said
words got any moment.

    python perf/speech_null_words.py AV_BENCH.jsonl [AV_BENCH.jsonl ...] [--cache-dir DIR]

Renders nothing: point it at benchmarks from `longground synth --av` (docs/channels.md,
"How each channel answers", gives the seeds measured).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from longground.channels import ChannelStore
from longground.channels.match import speech_moments, spoken_needle
from longground.eval.evaluate import evaluate
from longground.formats import load_samples
from longground.query import analyse
from longground.samples import Prediction

#: Words no `synth --av` video says (its keywords are `synth.audiovisual.KEYWORDS`).
NEVER_SAID = ("submarine", "giraffe", "telescope", "pancake", "orchestra", "weather", "budget")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benches", nargs="+", type=Path)
    parser.add_argument("--cache-dir", type=Path, default=None)
    args = parser.parse_args()
    store = ChannelStore(args.cache_dir)
    for bench in args.benches:
        samples = [s for s in load_samples(bench) if "speech" in s.attributes]
        preds, asked, answered = [], 0, 0
        needles = {s.qid: analyse(s.query).target.route.needle for s in samples}
        for s in samples:
            moments, _ = answer(store, bench.parent / s.video, needles[s.qid])
            preds.append(Prediction(s.qid, moments))
        for video in sorted({s.video for s in samples}):
            said = {needles[s.qid] for s in samples if s.video == video}
            for word in (w for w in NEVER_SAID if w not in said):
                asked += 1
                answered += answer(store, bench.parent / video, word)[0].count > 0
        m = evaluate(samples, preds, protocol="comet").metrics
        print(f"{bench}: speech F1@0.5 {m['f1@0.5']:.3f}  Rej-F1 {m['rej_f1']:.3f}  "
              f"never-said words answered {answered} of {asked}")  # fmt: skip
    return 0


def answer(store: ChannelStore, video: Path, word: str):
    evidence = store.get_or_build(video, ("speech",), 1.0)
    evidence = store.with_spotted(video, evidence, spoken_needle(word))
    return speech_moments(evidence.get("speech"), word, evidence.spotted.get(word))


if __name__ == "__main__":
    raise SystemExit(main())
