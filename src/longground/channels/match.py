"""Reading moments off a channel for a routed query: pure functions of the channel's value
type and the needle, each returning `(Moments, details)` where details go to the trace.

- speech: the cues (`speech.cues`) whose words hold the needle, or where the keyword
  spotter hears it better than it hears each of the needle's null words
  (`speech_moments`).
- text: each on-screen line scores 1.0 when it holds the needle, else the best
  `difflib` ratio of the needle against a stretch of the line as long as it, or how well the
  lines read on its frame together cover the needle's words (`word_cover`); lines at
  `TEXT_MATCH` or above are on screen over their reading's interval.
- people: the runs of sampled frames with a face (needle "face"), a body ("body") or either,
  or with nobody (`absent`), of at least `MIN_RUN` samples, joined across `PEOPLE_GAP_S`;
  each scores the share of its frames that show one.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import numpy as np

from ..moments import Moments
from .evidence import People, Readings, Transcript
from .phonetic import phones, words

SPEECH_MATCH = 0.75
#: Everyday words no query is likely to ask for: the keyword spotter listens for them beside
#: the needle, and a spotted needle counts only where it scores above every one of them (a
#: word that was not said still fits some speech well). A needle is judged against the
#: `NULL_COUNT` of them closest to it in number of phones (`null_words`), since a short word
#: fits some stretch of almost any talk and a long one seldom does. The first 28 (two to
#: four syllables) were chosen on a `synth --av` rendering (seed 3) and checked on another
#: (seed 11), docs/channels.md; the short and long ones that follow give short and long
#: needles nulls of their own length.
NULL_WORDS = (
    "window", "garden", "letter", "morning", "number", "person", "station", "problem",
    "picture", "family", "question", "answer", "paper", "market", "travel", "river", "animal",
    "business", "minute", "doctor", "kitchen", "mountain", "summer", "island", "village",
    "energy", "history", "country",
    "ice", "egg", "oak", "key", "tea", "shoe", "pie", "toe", "owl", "ash", "jaw", "zoo", "inn",
    "bee", "ink", "fig", "gum", "mug", "web", "moth", "yak", "kite", "dove",
    "television", "photography", "temperature", "agriculture", "electricity", "refrigerator",
    "university", "vocabulary", "helicopter", "kindergarten", "thermometer", "encyclopedia",
)  # fmt: skip
NULL_COUNT = 28
#: Keyword spotting: the mean log-likelihood ratio per frame from which a cue may hold the
#: needle (chosen with the search's beam, `keyword.SPOT_BEAM`, on words and sentences no
#: benchmark uses and on counted cues; docs/channels.md), and the speech score gained per
#: unit of ratio above it.
KEYWORD_MATCH = -0.0063
KEYWORD_SLOPE = 100.0
#: A spotted needle must also stand out from the rest of the video's speech: its score in the
#: cue at least this much above its median score over the other cues (a word not said still
#: wins some cue against its null words in a long video, fitting there about as well as it
#: fits every cue; a word said fits its cue better than the talk around it). Applied where
#: there are at least `STANDOUT_CUES` other cues to take a median of (docs/channels.md).
KEYWORD_STANDOUT = 0.0025
STANDOUT_CUES = 5
TEXT_MATCH = 0.8
TEXT_GAP_S = 1.0
MIN_RUN = 2
PEOPLE_GAP_S = 2.0
#: A gap between speech segments shorter than this is a pause inside talk, not silence.
SILENCE_MIN_S = 2.0
_ARTICLES = {"a", "an", "the", "some"}


def _core_words(needle: str) -> list[str]:
    tokens = words(needle)
    while tokens and tokens[0] in _ARTICLES:
        tokens = tokens[1:]
    return tokens


def spoken_needle(needle: str) -> str:
    """The words of a speech needle that are listened for (leading articles dropped).

    >>> spoken_needle("the Budget!")
    'budget'
    """
    return " ".join(_core_words(needle))


def spotted_score(kws: float | None) -> float:
    """A keyword-spotting score (mean log-likelihood ratio per frame, `keyword.Spotter`) on
    the scale of the other speech scores: `SPEECH_MATCH` at `KEYWORD_MATCH`, rising by
    `KEYWORD_SLOPE` per unit of ratio, clipped to [0, 1]; 0 for no detection.

    >>> spotted_score(None), spotted_score(KEYWORD_MATCH) == SPEECH_MATCH
    (0.0, True)
    """
    if kws is None:
        return 0.0
    return float(np.clip(SPEECH_MATCH + (kws - KEYWORD_MATCH) * KEYWORD_SLOPE, 0.0, 1.0))


def speech_moments(
    transcript: Transcript, needle: str, spotted: dict | None = None, absent: bool = False,
    duration_s: float | None = None,
) -> tuple[Moments, dict]:  # fmt: skip
    """The cues (`speech.cues`) where the needle is said, and the trace's details.

    With no needle, any speech: every stretch of it, or with `absent` the silences, the gaps
    of at least `SILENCE_MIN_S` between cues and the video's ends (`duration_s`).

    A cue holds the needle when the transcript has it word for word (a plural too), or
    when the keyword spotter hears it there (`spotted`: mean log-likelihood ratio at least
    `KEYWORD_MATCH`) better than it hears any of the needle's null words (`null_words`,
    listened for in the same pass), and by `KEYWORD_STANDOUT` more than it fits the video's
    other cues (their median; `_standout`). The spotter alone fires on words that fit any
    speech well; the null words say how well a word that was not said fits this cue, the
    other cues how well this word fits the talk that does not hold it.

    Args:
        transcript: the speech channel.
        needle: the words to listen for (articles are dropped).
        spotted: the keyword spotter's scores per cue (`keyword.spot`), if any.
    """
    tokens = _core_words(needle)
    spans = transcript.segments.spans
    if not tokens:
        return _any_speech(spans, absent, duration_s)
    if not len(spans):
        return Moments.empty(), {"segments": len(spans)}
    phrase = " ".join(tokens)
    texts = [transcript.text_between(float(a), float(b)) for a, b in spans]
    said = re.compile(rf"\b{re.escape(phrase)}(?:s|es|'s)?\b")  # "budget", "budgets"
    exact = np.array([bool(said.search(" ".join(words(t)))) for t in texts])
    spotted = spotted or {}
    kws = _finite(spotted.get("scores"), len(spans))
    null_best = spotted.get("null_best") or [None] * len(spans)
    nulls = _finite([n and n[1] for n in null_best], len(spans))
    spotted_ok = kws >= KEYWORD_MATCH
    standout = _standout(kws)
    keep = exact | (spotted_ok & (kws > nulls) & (standout >= KEYWORD_STANDOUT))
    scores = np.where(exact, 1.0, [spotted_score(v) if np.isfinite(v) else 0.0 for v in kws])

    def rounded(value: float) -> float | None:
        return round(float(value), 5) if np.isfinite(value) else None

    def heard(i: int) -> dict:
        return {"segment": int(i), "words": texts[i][:120], "exact": bool(exact[i]),
                "spotted": rounded(kws[i]), "null": null_best[i],
                "standout": rounded(standout[i])}  # fmt: skip

    details = {
        "segments": len(spans), "needle": phrase,
        "rule": f"said word for word, or spotted (log-likelihood ratio >= {KEYWORD_MATCH}) "
                f"above each of {NULL_COUNT} null words and >= {KEYWORD_STANDOUT} above its "
                f"median over the other cues",
        "matched": [heard(i) for i in np.flatnonzero(keep)],
        "rejected": [heard(i) for i in np.flatnonzero(spotted_ok & ~keep)],
    }  # fmt: skip
    if spotted.get("unknown"):
        details["not_spotted"] = f"not in the dictionary: {', '.join(spotted['unknown'])}"
    return Moments(spans[keep].reshape(-1, 2), scores[keep]), details


def _standout(kws: np.ndarray) -> np.ndarray:
    """Per cue, its spotting score less the median of the other cues' (`-inf`, no detection,
    counts as the lowest); `inf` with fewer than `STANDOUT_CUES` other cues.

    >>> _standout(np.array([-0.003, -0.008, -0.009, -np.inf, -0.007, -0.008])).round(4).tolist()
    [0.005, 0.0, -0.001, -inf, 0.001, 0.0]
    >>> _standout(np.array([-0.003, -0.008])).tolist()
    [inf, inf]
    """
    if len(kws) <= STANDOUT_CUES:
        return np.full(len(kws), np.inf)
    others = np.array([np.delete(kws, i) for i in range(len(kws))])
    median = np.quantile(others, 0.5, axis=1, method="lower")  # no interpolation with -inf
    with np.errstate(invalid="ignore"):
        return np.where(np.isneginf(median), np.inf, kws - median)


def _finite(values: list | None, n: int) -> np.ndarray:
    """`(n,)` scores with None (or no list at all) as `-inf`."""
    return np.array([-np.inf if v is None else v for v in values or [None] * n], np.float64)


def _any_speech(
    spans: np.ndarray, absent: bool, duration_s: float | None
) -> tuple[Moments, dict]:  # fmt: skip
    """Every stretch of speech (scored 1; the cues of one segment joined again), or the
    silences between them (see `speech_moments`).

    >>> cues = np.array([[1.0, 4.0], [5.0, 7.0], [7.0, 9.0]])
    >>> _any_speech(cues, False, 20.0)[0].to_list(), _any_speech(cues, True, 20.0)[0].to_list()
    ([[1.0, 4.0], [5.0, 9.0]], [[9.0, 20.0]])
    """
    details = {"segments": len(spans), "any": "speech"}
    if not absent:
        talk = Moments(spans.reshape(-1, 2)).merge()
        return Moments(talk.spans, np.ones(len(talk))), details
    details.update(any="silence", min_s=SILENCE_MIN_S)
    end_s = float(duration_s if duration_s is not None else (spans[-1, 1] if len(spans) else 0))
    gaps = Moments(spans.reshape(-1, 2)).gaps(0.0, end_s, SILENCE_MIN_S)
    return Moments(gaps.spans, np.ones(len(gaps))), details


def null_words(tokens: list[str]) -> tuple[str, ...]:
    """The `NULL_COUNT` null words closest to the needle `tokens` in number of phones (in
    `NULL_WORDS`' order among equals), the needle's own words left out.

    >>> null_words(["ace"])[:3], sorted(null_words(["budget"])) == sorted(NULL_WORDS[:28])
    (('ice', 'egg', 'oak'), True)
    """
    length = len(phones(" ".join(tokens)))
    pool = [w for w in NULL_WORDS if w not in tokens]
    return tuple(sorted(pool, key=lambda w: abs(len(phones(w)) - length))[:NULL_COUNT])


def _normalise(text: str) -> str:
    text = " ".join(text.lower().split()).replace("–", "-")
    text = re.sub(r"\s*([-:])\s*(?=[\do])", r"\1", text)
    text = re.sub(r"(?<=\d):(?=[\do])", "-", text)  # a score is shown "1-0" or "1:0"
    # OCR reads a score's 0 as the letter o: "homeo-oaway" is "home0-0away".
    return re.sub(r"o(?=[-:][\do])|(?<=[\do][-:])o", "0", text)


def text_similarity(needle: str, line: str) -> float:
    """1.0 when `line` holds `needle`, else the best ratio against an equally long stretch.

    >>> text_similarity("goal", "GOAL!"), text_similarity("2-1", "HOME 2 - 1 AWAY")
    (1.0, 1.0)
    >>> text_similarity("0-0", "HOMEO-OAWAY"), text_similarity("2-1", "HOME1-1AWAY") < 0.8
    (0.9, True)
    >>> text_similarity("1:0", "HOME 1-0 AWAY")
    1.0
    >>> round(text_similarity("budget review", "Budgct Reviev"), 2)
    0.85
    """
    needle, line = _normalise(needle), _normalise(line)
    if not needle or not line:
        return 0.0
    if re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", line):
        return 1.0
    if needle in line:
        return 0.9
    width = len(needle)
    starts = range(max(1, len(line) - width + 1))
    return max(SequenceMatcher(None, needle, line[i : i + width]).ratio() for i in starts)


def word_cover(needle: str, words_read: list[str]) -> float:
    """How well the words read on one frame cover the needle's words: the mean, over the
    needle's words, of each one's best `difflib` ratio against a word read. OCR boxes single
    words apart ("HALF", "TIME"), so a phrase is looked for across the lines of a frame.

    >>> word_cover("half time", ["TIME", "HALF", "HOME0-1AWAY"])
    1.0
    >>> round(word_cover("safety rules", ["Safety"]), 2)
    0.59
    """
    wanted = _normalise(needle).split()
    have = [w for line in words_read for w in _normalise(line).split()]
    if not wanted or not have:
        return 0.0
    best = [max(SequenceMatcher(None, w, h).ratio() for h in have) for w in wanted]
    return sum(best) / len(best)


def _holds_a_word(needle: str, line: str) -> bool:
    """True when a word of `line` is one of the needle's words, as `word_cover` compares.

    >>> _holds_a_word("half time", "HALF"), _holds_a_word("half time", "HOME0-1AWAY")
    (True, False)
    """
    have = _normalise(line).split()
    return any(
        SequenceMatcher(None, w, h).ratio() >= TEXT_MATCH
        for w in _normalise(needle).split()
        for h in have
    )


#: Kinds of text asked for without their words ("a phone number on screen",
#: `query.Route.kind`): the pattern a line read must hold.
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*"
TEXT_KINDS = {
    "phone": re.compile(r"(?<![\w.])\+?(?:\d[\s().-]{0,2}){7,15}(?![\w.])"),
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"(?:https?://|www\.)\S+|(?<![@\w.-])[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|"
                      r"io|co|uk|de|fr|tv|gov|edu|info)\b", re.I),  # not an e-mail's domain
    "price": re.compile(r"[$€£¥]\s?\d|\d(?:[.,]\d\d)?\s?(?:[$€£¥]|usd|eur|gbp)\b", re.I),
    # "12/03/2024", "2024-03-12", "March 12", "12th March 2024" (not a score "2-1")
    "date": re.compile(rf"\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b|\b\d{{4}}-\d\d-\d\d\b|"
                       rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
                       rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.I),
}


def text_moments(readings: Readings, needle: str, kind: str = "") -> tuple[Moments, dict]:
    """The intervals during which the needle is on screen: a line that holds it, or the
    lines read on one frame that together hold its words; with no needle, any line read, or
    with a `kind` (`TEXT_KINDS`) any line of that kind.

    >>> phone, date = TEXT_KINDS["phone"], TEXT_KINDS["date"]
    >>> bool(phone.search("Call 0800 123 4567")), bool(phone.search("HOME 2-1 AWAY"))
    (True, False)
    >>> [bool(date.search(t)) for t in ("Opens 12 March", "03/12/2024", "HOME 2-1 AWAY")]
    [True, True, False]
    """
    details: dict = {"lines": len(readings), "frames_read": readings.n_read}
    if kind:
        keep = np.array([TEXT_KINDS[kind].search(line) is not None for line in readings.text],
                        bool)  # fmt: skip
        scores, details["kind"] = np.ones(len(keep)), kind
    elif not needle.strip():
        keep, scores, details["any"] = np.ones(len(readings), bool), np.ones(len(readings)), "text"
    else:
        scores = np.array([text_similarity(needle, line) for line in readings.text])
        for start_s in np.unique(readings.start_s):
            same = readings.start_s == start_s
            cover = word_cover(needle, [t for t, k in zip(readings.text, same) if k])
            # Only the lines that hold one of its words are the phrase's moments (others read
            # on that frame, such as a slide title under a new caption, may stay on screen
            # longer).
            helps = same & np.array([_holds_a_word(needle, t) for t in readings.text], bool)
            scores[helps] = np.maximum(scores[helps], cover)
        keep = scores >= TEXT_MATCH if len(scores) else np.zeros(0, bool)
    spans = np.stack([readings.start_s, readings.end_s], axis=1).reshape(-1, 2)[keep]
    moments = _merged(Moments(spans, scores[keep]), TEXT_GAP_S)
    if "any" not in details:
        details["matched"] = sorted({t for t, k in zip(readings.text, keep) if k})[:20]
    return moments, details


def people_moments(
    people: People, needle: str, absent: bool, least: int = 1, most: int | None = None
) -> tuple[Moments, dict]:
    """Runs of frames with (or, `absent`, without) a face (needle "face"), a whole body seen
    by the pedestrian detector ("body") or either (any other needle); with `least` to `most`
    of them at once ("two people")."""
    counts = {"face": people.faces, "body": people.bodies}.get(needle, people.persons)
    mask = counts == 0 if absent else (counts >= least) & (counts <= (most or np.inf))
    spans = []
    edges = np.flatnonzero(np.diff(np.r_[0, mask.astype(np.int8), 0]))
    for first, stop in zip(edges[::2], edges[1::2]):
        if stop - first >= MIN_RUN:
            spans.append([people.times_s[first], people.times_s[stop - 1] + people.step_s])
    moments = _merged(Moments(np.array(spans).reshape(-1, 2)), PEOPLE_GAP_S)
    moments = Moments(moments.spans, _share_inside(moments.spans, people.times_s, mask))
    what = {"face": "faces", "body": "bodies"}.get(needle, "persons")
    details = {"frames": len(counts), "counted": what, "frames_with": int(mask.sum())}
    if (least, most) != (1, None) and not absent:
        details["at_once"] = [least, most]
    return moments, details


def _share_inside(spans: np.ndarray, times_s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`(K,)` the share of sampled frames inside each span where the mask holds (a run
    joined across gaps scores below one whose every frame shows the person)."""
    out = np.ones(len(spans))
    for k, (start_s, end_s) in enumerate(spans):
        inside = (times_s >= start_s) & (times_s < end_s)
        if inside.any():
            out[k] = float(mask[inside].mean())
    return out


def _merged(moments: Moments, gap_s: float) -> Moments:
    """Spans closer than `gap_s` joined (each keeps its best score; 1.0 when unscored)."""
    if moments.scores is None:
        moments = Moments(moments.spans, np.ones(len(moments)))
    return moments.merge(gap_s)
