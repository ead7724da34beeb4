"""Keyword spotting on held-out sentences: how many said keywords it finds and how many unsaid
ones it fires on, at thresholds around `match.KEYWORD_MATCH`, and its CPU time against the
transcript's language-model search on the same audio.

The keywords and sentence templates are ones the audio-visual benchmark (`synth --av`) never
uses, so the threshold is not chosen on the benchmark. Every sentence is spoken by espeak-ng
and listened to for every keyword.

    python perf/bench_keyword.py            # 16 keywords x 4 templates (a few minutes)
    python perf/bench_keyword.py --words 4  # a quick look
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from scipy.signal import resample_poly

from longground.channels.keyword import Spotter
from longground.channels.match import KEYWORD_MATCH
from longground.channels.speech import Recogniser
from longground.synth.av_render import AUDIO_RATE_HZ, speak

KEYWORDS = ("garden", "rocket", "window", "teacher", "museum", "concert", "hamburger",
            "station", "medicine", "newspaper", "kitchen", "banana", "mountain", "holiday",
            "camera", "diamond")  # fmt: skip
TEMPLATES = ("We have to discuss the {} first.", "Did you see the {} yesterday?",
             "The {} is very important.", "Tell me more about your {} now.")  # fmt: skip
THRESHOLDS = (KEYWORD_MATCH - 0.0007, KEYWORD_MATCH, KEYWORD_MATCH + 0.0005)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=len(KEYWORDS))
    keywords = KEYWORDS[: parser.parse_args().words]
    clips = {}
    for word, template in itertools.product(keywords, TEMPLATES):
        voice = speak(template.format(word)).astype(np.float64)
        clips[word, template] = resample_poly(voice, 16_000, AUDIO_RATE_HZ).astype(np.int16)
    seconds = sum(len(c) for c in clips.values()) / 16_000

    spotter, said, unsaid = Spotter(), [], []
    start = time.process_time()
    for word in keywords:
        spotter.listen_for([word])
        for (spoken, _template), samples in clips.items():
            (said if spoken == word else unsaid).append(spotter.scores(samples)[0])
    spot_s = time.process_time() - start

    recogniser = Recogniser()
    start = time.process_time()
    written = sum(
        word in {w for _a, _b, w in recogniser.words(samples, 0.0)}
        for (word, _template), samples in clips.items()
    )
    transcript_s = time.process_time() - start

    said, unsaid = np.array(said), np.array(unsaid)
    print(f"{len(clips)} sentences, {seconds:.0f} s of speech, {len(keywords)} keywords")
    print(f"transcript: wrote {written}/{len(said)} keywords, {transcript_s:.1f} CPU s "
          f"({transcript_s / seconds:.3f}x real time)")  # fmt: skip
    search_s = spot_s / len(keywords)
    ratio = transcript_s / search_s
    print(f"spotting: {search_s:.1f} CPU s per keyword over all sentences "
          f"({search_s / seconds:.3f}x real time, {ratio:.1f}x cheaper)")  # fmt: skip
    for threshold in THRESHOLDS:
        print(f"  threshold {threshold:+.4f}: found {(said >= threshold).sum()}/{len(said)} said, "
              f"fired on {(unsaid >= threshold).sum()}/{len(unsaid)} unsaid")  # fmt: skip


if __name__ == "__main__":
    main()
