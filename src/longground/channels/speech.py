"""The speech channel: speech in cues and a word-timed transcript (pocketsphinx).

The audio is decoded once, a chunk at a time; each speech segment is handed to the
recogniser as soon as the voice-activity detector closes it, so memory holds at most the
open segment and one chunk. A segment of long talk is then cut into cues at its pauses, as
subtitles show it (`cues`): a cue is the unit a speech query answers with.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import require
from ..moments import Moments
from .audio import RATE_HZ, pcm_chunks
from .evidence import Transcript
from .vad import WINDOW, Segmenter, SileroVad

_FILLER = re.compile(r"^(<.*>|\[.*\]|\+\+.*\+\+)$")
MAX_SEGMENT_S = 60.0  # longer speech is cut here so one utterance stays small for the decoder
#: A cue lasts at most this long unless the talk has no pause to cut it at: the longest a
#: subtitle stays on screen in common subtitling style guides (7 s). A pause is a gap of at
#: least `CUE_PAUSE_S` between two recognised words (10 of pocketsphinx's frames).
CUE_MAX_S = 7.0
CUE_PAUSE_S = 0.1
#: The transcript's search settings: no second (flat) pass, and at most 3000 HMMs and 5 word
#: exits per 10 ms frame (pocketsphinx's defaults: a flat pass, 30000 and no limit). On the
#: held-out espeak-ng sentences of `perf/bench_keyword.py` (155 s of speech) this is 0.28x real
#: time instead of 0.59x and writes 116 of their 400 words instead of 107 (4 of the 64 keywords
#: instead of 5). Narrower beams cost less (1e-35, wbeam 1e-22: 0.15x) but lose words the
#: defaults get right ("dinosaur" in `tests/channels/test_cli.py`), so the beams are kept.
SEARCH = {"fwdflat": False, "maxhmmpf": 3000, "maxwpf": 5}


class Recogniser:
    """pocketsphinx's English model: acoustic model, language model and dictionary from its
    wheel."""

    def __init__(self):
        pocketsphinx = require("pocketsphinx", "channels")
        self._decoder = pocketsphinx.Decoder(samprate=RATE_HZ, loglevel="ERROR", **SEARCH)
        self._frate = int(self._decoder.config["frate"])

    def words(self, samples: np.ndarray, offset_s: float) -> list[tuple[float, float, str]]:
        """`(start_s, end_s, word)` of int16 `samples` that start at `offset_s`."""
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(np.ascontiguousarray(samples, np.int16).tobytes(), full_utt=True)
        decoder.end_utt()
        out = []
        for seg in decoder.seg() or []:
            word = re.sub(r"\(\d+\)$", "", seg.word)
            if _FILLER.match(word):
                continue
            start_s = offset_s + seg.start_frame / self._frate
            out.append((start_s, offset_s + (seg.end_frame + 1) / self._frate, word))
        return out


def cues(
    start_s: float, end_s: float, words: list[tuple[float, float, str]]
) -> list[tuple[float, float]]:  # fmt: skip
    """A speech segment `[start_s, end_s)` cut into cues of at most `CUE_MAX_S`: a longer
    one is cut in the middle of its longest pause between `words` `(start_s, end_s, word)`,
    and each side again, until every piece is short enough or has no pause left.

    >>> said = [(0.2, 3.0, "one"), (3.4, 6.0, "two"), (6.1, 9.0, "three")]
    >>> cues(0.0, 9.5, said)
    [(0.0, 3.2), (3.2, 9.5)]
    >>> cues(0.0, 6.5, said[:2]), cues(0.0, 9.5, [(0.2, 9.3, "one")])
    ([(0.0, 6.5)], [(0.0, 9.5)])
    """
    if end_s - start_s <= CUE_MAX_S:
        return [(start_s, end_s)]
    inside = sorted(w for w in words if start_s <= w[0] < end_s)
    pause, cut = max(
        ((b[0] - a[1], (a[1] + b[0]) / 2) for a, b in zip(inside, inside[1:])), default=(0, 0)
    )
    if pause < CUE_PAUSE_S:
        return [(start_s, end_s)]
    return cues(start_s, cut, inside) + cues(cut, end_s, inside)


def extract_speech(video: str | Path, recogniser: Recogniser | None = None) -> Transcript:
    """Speech cues (`cues` of the voice-activity segments) and the words recognised in each
    segment.

    Raises:
        BadAudio: the audio stream cannot be decoded.
    """
    vad, segmenter = SileroVad(), Segmenter()
    recogniser = recogniser or Recogniser()
    buffer, buffer_at, fed = np.zeros(0, np.int16), 0, 0  # sample indices from the start
    segments: list[tuple[float, float]] = []
    words: list[tuple[float, float, str]] = []

    def close(found):
        for start_s, end_s in found:
            first = max(int(start_s * RATE_HZ) - buffer_at, 0)
            clip = buffer[first : int(end_s * RATE_HZ) - buffer_at]
            said = recogniser.words(clip, (buffer_at + first) / RATE_HZ)
            words.extend(said)
            segments.extend(cues(start_s, end_s, said))

    for chunk in pcm_chunks(video):
        buffer = np.concatenate([buffer, chunk])
        usable = (buffer_at + len(buffer) - fed) // WINDOW * WINDOW
        part = buffer[fed - buffer_at : fed - buffer_at + usable]
        probs = vad.probabilities(part.astype(np.float32) / 32768.0)
        fed += usable
        close(segmenter.feed(probs))
        if (
            segmenter.open_since_s is not None
            and fed / RATE_HZ - segmenter.open_since_s > MAX_SEGMENT_S
        ):
            close(segmenter.finish())
        keep_s = segmenter.open_since_s if segmenter.open_since_s is not None else fed / RATE_HZ
        keep = max(int((keep_s - segmenter.pad_s) * RATE_HZ), buffer_at)
        buffer, buffer_at = buffer[keep - buffer_at :], keep
    close(segmenter.finish())
    spans = Moments(np.array(segments, np.float64).reshape(-1, 2)) if segments else Moments.empty()
    return Transcript.from_words(words, spans)
