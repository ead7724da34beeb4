"""Keyword spotting: listening again, in each speech cue, for the words of one query and for
its null words, so that a word the transcript wrote down as something else can still be
found, where it fits better than words that were not said.

pocketsphinx's keyphrase search (`kws`) runs the needle's phones against a free phone loop
over the segment's audio; a detection's log-likelihood ratio (keyword path against the best
phone path; pocketsphinx reports it, scaled, as `seg.prob`, and `log(seg.prob)` is used)
grows with the length of the word, so it is divided by the detection's length in frames:
`score` is the mean ratio per 10 ms frame (0 at best, more negative as the phones fit
worse). A cue's score is its best detection's; a cue with none scores `-inf`.

The search is cheap next to the transcript (keyphrases and a phone loop, not a language
model: about 0.03x real time over the speech; the needle and its 28 null words in one
pass took 0.93 s over 30 s of speech here, one phrase alone 0.86 s), but it runs once per
(video, needle) and decodes the audio track again, so the store caches its scores.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import require
from ..moments import Moments
from .audio import RATE_HZ, pcm_chunks
from .match import null_words
from .phonetic import words

#: Detections are gathered at this very permissive threshold and scored afterwards.
GATHER_THRESHOLD = 1e-80
#: The search's beam: paths scoring below the best by more than this factor are dropped.
#: pocketsphinx's default (1e-48) drops a long keyword spoken unclearly before its last phone,
#: so it is never detected to be scored, even where it was said; this wider beam lets it
#: finish and the null words judge it (docs/channels.md, "Keyword spotting").
SPOT_BEAM = 1e-120


class Spotter:
    """pocketsphinx's keyphrase search with the English acoustic model and dictionary,
    listening for several phrases in one pass, each against the same free phone loop (so
    the phrases do not compete; a phrase scores within 1% of a pass for it alone)."""

    def __init__(self):
        pocketsphinx = require("pocketsphinx", "channels")
        self._decoder = pocketsphinx.Decoder(
            samprate=RATE_HZ, loglevel="ERROR", kws_threshold=GATHER_THRESHOLD, beam=SPOT_BEAM
        )
        self._phrases: tuple[str, ...] = ()

    def unknown_words(self, needle: str) -> list[str]:
        """The needle's words the dictionary does not know (the search cannot spell them)."""
        return [w for w in words(needle) if self._decoder.lookup_word(w) is None]

    def listen_for(self, phrases: list[str]) -> None:
        """Make `phrases` (words the dictionary knows) what the next `scores` look for."""
        phrases = tuple(" ".join(words(p)) for p in phrases)
        if phrases != self._phrases:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "phrases.txt"
                path.write_text("".join(f"{p} /{GATHER_THRESHOLD:g}/\n" for p in phrases))
                self._decoder.add_kws("phrases", str(path))
            self._decoder.activate_search("phrases")
            self._phrases = phrases

    def scores(self, samples: np.ndarray) -> list[float]:
        """Per phrase, its best detection's mean log-likelihood ratio per frame (see above)
        in int16 `samples` `(n,)` at 16 kHz; `-inf` when it was not detected."""
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(np.ascontiguousarray(samples, np.int16).tobytes(), full_utt=True)
        decoder.end_utt()
        best = dict.fromkeys(self._phrases, -math.inf)
        for seg in decoder.seg() or []:
            frames = max(1, seg.end_frame - seg.start_frame + 1)
            phrase = seg.word.strip()
            if seg.prob > 0.0 and phrase in best:
                best[phrase] = max(best[phrase], math.log(seg.prob) / frames)
        return list(best.values())


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
    """The keyword-spotting scores of `needle` and of its null words (`match.null_words`)
    in each of `segments` of `video`, from one pass.

    Returns:
        `{"scores": [K] floats or None (no detection), "null_best": [K] the best null
        word's `[word, score]` or None, "unknown": words the dictionary lacks}`; with
        unknown words nothing is searched and every score is None.
    """
    spotter = spotter or Spotter()
    unknown = spotter.unknown_words(needle)
    tokens = words(needle)
    if unknown or not tokens:
        return {"scores": [None] * len(segments), "null_best": [None] * len(segments),
                "unknown": unknown}  # fmt: skip
    nulls = [w for w in null_words(tokens) if not spotter.unknown_words(w)]
    spotter.listen_for([needle, *nulls])
    scores, null_best = [], []
    for samples in segment_audio(video, segments):
        found = spotter.scores(samples) if len(samples) else [-math.inf] * (len(nulls) + 1)
        scores.append(None if found[0] == -math.inf else round(found[0], 6))
        heard = [(score, word) for word, score in zip(nulls, found[1:]) if score > -math.inf]
        best = max(heard, default=None)
        null_best.append(None if best is None else [best[1], round(best[0], 6)])
    return {"scores": scores, "null_best": null_best, "unknown": []}
