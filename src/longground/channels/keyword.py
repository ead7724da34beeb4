"""Keyword spotting: listening again, in each voice-activity segment, for the words of one
query, so that a word the transcript wrote down as something else can still be found.

pocketsphinx's keyphrase search (`kws`) runs the needle's phones against a free phone loop
over the segment's audio; a detection's log-likelihood ratio (keyword path against the best
phone path; pocketsphinx reports it, scaled, as `seg.prob`, and `log(seg.prob)` is used)
grows with the length of the word, so it is divided by the detection's length in frames:
`score` is the mean ratio per 10 ms frame (0 at best, more negative as the phones fit
worse). A segment's score is its best detection's; a segment with none scores `-inf`.

The search is cheap next to the transcript (one keyword and a phone loop, not a language
model: about 0.035x real time over the speech), but it runs once per (video, needle) and
decodes the audio track again (most of the 3.4 CPU s one needle took on a 15-minute video),
so the store caches its scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..errors import require
from ..moments import Moments
from .audio import RATE_HZ, pcm_chunks
from .phonetic import words

#: Detections are gathered at this very permissive threshold and scored afterwards.
GATHER_THRESHOLD = 1e-80


class Spotter:
    """pocketsphinx's keyphrase search with the English acoustic model and dictionary."""

    def __init__(self):
        pocketsphinx = require("pocketsphinx", "channels")
        self._decoder = pocketsphinx.Decoder(
            samprate=RATE_HZ, loglevel="ERROR", kws_threshold=GATHER_THRESHOLD
        )
        self._needle: str | None = None

    def unknown_words(self, needle: str) -> list[str]:
        """The needle's words the dictionary does not know (the search cannot spell them)."""
        return [w for w in words(needle) if self._decoder.lookup_word(w) is None]

    def listen_for(self, needle: str) -> None:
        """Make `needle` (words the dictionary knows) the phrase the next `score` looks for."""
        phrase = " ".join(words(needle))
        if phrase != self._needle:
            self._decoder.add_keyphrase("needle", phrase)
            self._decoder.activate_search("needle")
            self._needle = phrase

    def score(self, samples: np.ndarray) -> float:
        """The best detection's mean log-likelihood ratio per frame (see above) in int16
        `samples` `(n,)` at 16 kHz; `-inf` when nothing was detected."""
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(np.ascontiguousarray(samples, np.int16).tobytes(), full_utt=True)
        decoder.end_utt()
        best = -math.inf
        for seg in decoder.seg() or []:
            frames = max(1, seg.end_frame - seg.start_frame + 1)
            if seg.prob > 0.0:
                best = max(best, math.log(seg.prob) / frames)
        return best


def segment_audio(video, spans: Moments) -> Iterator[np.ndarray]:
    """The int16 16 kHz samples of each span `(start_s, end_s)`, spans in time order (as the
    voice-activity detector makes them), decoding the audio once and holding at most one
    chunk and the span being gathered."""
    bounds = [(int(a * RATE_HZ), int(b * RATE_HZ)) for a, b in spans.spans]
    buffer, buffer_at, i = np.zeros(0, np.int16), 0, 0
    for chunk in pcm_chunks(video):
        buffer = np.concatenate([buffer, chunk])
        while i < len(bounds) and bounds[i][1] <= buffer_at + len(buffer):
            first, stop = bounds[i]
            yield buffer[max(first - buffer_at, 0) : stop - buffer_at]
            i += 1
        keep = bounds[i][0] if i < len(bounds) else buffer_at + len(buffer)
        keep = min(max(keep, buffer_at), buffer_at + len(buffer))
        buffer, buffer_at = buffer[keep - buffer_at :], keep
    for first, stop in bounds[i:]:  # spans past the end of the audio
        yield buffer[max(first - buffer_at, 0) : max(stop - buffer_at, 0)]


def spot(video, segments: Moments, needle: str, spotter: Spotter | None = None) -> dict:
    """The keyword-spotting scores of `needle` in each of `segments` of `video`.

    Returns:
        `{"scores": [K] floats or None (no detection), "unknown": words the dictionary
        lacks}`; with unknown words nothing is searched and every score is None.
    """
    spotter = spotter or Spotter()
    unknown = spotter.unknown_words(needle)
    if unknown or not words(needle):
        return {"scores": [None] * len(segments), "unknown": unknown}
    spotter.listen_for(needle)
    scores = []
    for samples in segment_audio(video, segments):
        value = spotter.score(samples) if len(samples) else -math.inf
        scores.append(None if value == -math.inf else round(value, 6))
    return {"scores": scores, "unknown": []}
