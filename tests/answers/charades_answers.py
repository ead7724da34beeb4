"""Free-text answers to Charades-STA's 3,720 test queries, written the way Video-LLMs answer
lmms-eval's Charades-STA prompt, and their score against the oracle (no tests here).

lmms-eval asks: "... The format should be: 'The event happens in the start time - end time'.
For example, The event 'person turn a light on' happens in the 24.3 - 30.4 seonds. ..."; the
shapes below are what models write back (the template, with or without the quoted caption
and the prompt's "seonds", units or none, clock times, labels on separate lines, a start
and a length, ordinals, "first N seconds"), beside the 25 general phrasings of
tests/answers/test_free_text.py. Each query gets one interval near its ground truth (noise
of 3 s, rounded as models round), stated in the next shape in turn, and written as an
lmms-eval `--log_samples` line; the oracle scores the stated intervals directly.

Run `python -m tests.answers.charades_answers` to print both mIoUs and the shapes that lose
the most.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from longground.eval import evaluate, evaluate_files
from longground.formats import load_samples
from longground.moments import Moments
from longground.samples import Prediction, Sample
from tests.answers.test_free_text import PHRASINGS

CHARADES = Path(__file__).resolve().parents[2] / "data" / "charades_sta" / "charades_sta_test.txt"


def _s(x: float) -> str:
    return f"{x:g}"


def _mmss(x: float) -> str:
    seconds = f"{x % 60:04.1f}" if x % 1 else f"{int(x % 60):02d}"
    return f"{int(x // 60):02d}:{seconds}"


def _ordinal(x: float) -> str:
    n = round(x)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _event(caption: str) -> str:
    return caption.rstrip(". ")


# (name, shape): shape(start_s, end_s, caption) -> the answer text.
Shape = Callable[[float, float, str], str]
CHARADES_SHAPES: list[tuple[str, Shape]] = [
    ("template", lambda a, b, c: f"The event happens in the {_s(a)} - {_s(b)} seconds."),
    ("template, caption, seonds",
     lambda a, b, c: f"The event '{_event(c)}' happens in the {_s(a)} - {_s(b)} seonds."),
    ("template, of the video",
     lambda a, b, c: f"The event happens in the {_s(a)} - {_s(b)} seconds of the video."),
    ("template, no unit", lambda a, b, c: f"The event happens in the {_s(a)} - {_s(b)}."),
    ("template, units on both", lambda a, b, c: f"The event happens in {_s(a)}s - {_s(b)}s."),
    ("template, singular", lambda a, b, c: f"The event happens in the {_s(a)} - {_s(b)} second."),
    ("bare pair", lambda a, b, c: f"{_s(a)} - {_s(b)}"),
    ("from to, in the video",
     lambda a, b, c: f"The event happens from {_s(a)} to {_s(b)} seconds in the video."),
    ("starts and lasts",
     lambda a, b, c: f"The event starts at {_s(a)} seconds and lasts for {_s(round(b - a, 1))} "
                     "seconds."),
    ("start, lasting",
     lambda a, b, c: f"{_event(c).capitalize()} begins at {_s(a)}s, lasting "
                     f"{_s(round(b - a, 1))}s."),
    ("ordinal seconds",
     lambda a, b, c: f"The event happens from the {_ordinal(a)} second to the {_ordinal(b)} "
                     "second."),
    ("between ordinals",
     lambda a, b, c: f"'{_event(c)}' takes place between the {_ordinal(a)} and {_ordinal(b)} "
                     "seconds."),
    ("first N seconds",
     lambda a, b, c: f"The event happens in the first {_s(b)} seconds of the video." if a == 0
     else f"The event happens in the {_s(a)} - {_s(b)} seconds."),
    ("happens at, ends at",
     lambda a, b, c: f"The event happens at {_s(a)} seconds and ends at {_s(b)} seconds."),
    ("start and end times are",
     lambda a, b, c: f"The start and end times of the event are {_s(a)} and {_s(b)} seconds."),
    ("clock", lambda a, b, c: f"The event occurs from {_mmss(a)} to {_mmss(b)}."),
    ("second N", lambda a, b, c: f"From second {_s(a)} to second {_s(b)}."),
    ("sec", lambda a, b, c: f"{_s(a)} sec - {_s(b)} sec"),
    ("mark", lambda a, b, c: f"It starts around the {_s(a)}-second mark and ends around the "
                             f"{_s(b)}-second mark."),
    ("caption first",
     lambda a, b, c: f"In the video, {_event(c)} occurs at around {_s(a)} to {_s(b)} seconds."),
    ("start end lines", lambda a, b, c: f"Start time: {_s(a)}\nEnd time: {_s(b)}"),
    ("two decimals", lambda a, b, c: f"The event happens in the {a:.2f} - {b:.2f} seconds."),
    ("answer mark", lambda a, b, c: f"Answer: The event happens in the {_s(a)} - {_s(b)} seconds."),
    ("segment", lambda a, b, c: f"The relevant segment spans {_s(a)}s to {_s(b)}s."),
    ("into the video",
     lambda a, b, c: f"The event begins {_s(a)} seconds into the video and ends {_s(b)} seconds "
                     "into the video."),
]  # fmt: skip
GENERAL_SHAPES: list[tuple[str, Shape]] = [
    (f"general {i + 1}", lambda a, b, c, p=p: p(a, b)) for i, p in enumerate(PHRASINGS)
]
ALL_SHAPES = CHARADES_SHAPES + GENERAL_SHAPES


def stated_intervals(samples: list[Sample], seed: int = 38, noise_s: float = 3.0) -> np.ndarray:
    """`(Q, 2)` intervals near each query's ground truth, as a model would state them: GT plus
    Gaussian noise, rounded to a tenth (a third of them to whole seconds), at least 0.5 s
    long and starting at 0 or later."""
    rng = np.random.default_rng(seed)
    gt = np.array([s.gt.spans[0] for s in samples])
    stated = gt + rng.normal(0.0, noise_s, gt.shape)
    stated = np.where(rng.random((len(gt), 1)) < 1 / 3, np.round(stated), np.round(stated, 1))
    stated[:, 0] = np.clip(stated[:, 0], 0.0, None)
    stated[:, 1] = np.maximum(stated[:, 1], stated[:, 0] + 1.0)
    return stated


def write_log(path: Path, samples: list[Sample], stated: np.ndarray) -> list[str]:
    """An lmms-eval `--log_samples` file answering every query, shape i % len(ALL_SHAPES) for
    query i; returns the shape name of each line."""
    names, lines = [], []
    for i, (sample, (a, b)) in enumerate(zip(samples, stated, strict=True)):
        name, shape = ALL_SHAPES[i % len(ALL_SHAPES)]
        answer = shape(float(a), float(b), sample.query)
        doc = {"video": f"{sample.video}.mp4", "caption": sample.query, "timestamp": [0, 1]}
        lines.append(json.dumps({"doc_id": i, "doc": doc, "filtered_resps": [answer]}))
        names.append(name)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return names


def measure(folder: Path) -> dict:
    """mIoU (fractions) of the oracle and of the parsed log, and per-query IoUs of both."""
    samples = load_samples(CHARADES)
    stated = stated_intervals(samples)
    log = folder / "samples_charades_sta.jsonl"
    names = write_log(log, samples, stated)
    parsed = evaluate_files(CHARADES, log, protocol="single")
    oracle = evaluate(
        samples,
        [Prediction(s.qid, Moments(stated[i : i + 1])) for i, s in enumerate(samples)],
        protocol="single",
    )
    return {
        "oracle": oracle.metrics["miou"],
        "parsed": parsed.metrics["miou"],
        "parse_failures": parsed.metrics["parse_failures"],
        "names": names,
        "iou_oracle": oracle.queries["iou"],
        "iou_parsed": parsed.queries["iou"],
    }


if __name__ == "__main__":
    import tempfile
    from collections import defaultdict

    with tempfile.TemporaryDirectory() as tmp:
        m = measure(Path(tmp))
    print(f"oracle {100 * m['oracle']:.2f}  parsed {100 * m['parsed']:.2f}  "
          f"parse failures {m['parse_failures']}")  # fmt: skip
    lost: dict[str, float] = defaultdict(float)
    for name, o, p in zip(m["names"], m["iou_oracle"], m["iou_parsed"], strict=True):
        lost[name] += (o - p) / len(m["names"])
    for name, points in sorted(lost.items(), key=lambda kv: -kv[1])[:12]:
        print(f"{100 * points:6.2f}  {name}")
