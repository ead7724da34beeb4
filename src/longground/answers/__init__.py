"""Reading time intervals out of a model's raw answer.

`parse_answer` turns free text (JSON, timestamps, prose) into `Moments`, an explicit
"no such event" into empty `Moments`, and anything else into a parse failure
(`moments is None`), which the metrics score as empty but count separately.

Rules, in order (docs/formats.md has the full list):

1. A `<think>...</think>` block is dropped; if an "answer:" marker is present, the text after
   the last one is tried first, then the whole answer.
2. JSON found anywhere (fenced or inline): a list of `[s, e]` / `[s, e, score]` pairs or of
   objects with start/end keys, a single pair, or an object wrapping such a list. Several
   single intervals are joined; otherwise the last list wins. A bare `[]` is an explicit
   empty answer unless the prose around it names intervals (`structured`).
3. Time ranges in prose: `HH:MM:SS`, `MM:SS`, `12.5`, `12 s`, `2 min 5 s`, `10%` (with a
   known duration), "the 24th second", "second 24", joined by "to", "-", "~", "–", "—",
   "from X to Y", "between X and Y", "starts (or happens) at X ... ends at Y", "the start
   and end times are X and Y", or `[X, Y]`; a start and its length ("starts at X and lasts
   for D"); when no range is named, "the first N seconds" (and "the last N", with a known
   duration). A range that states the video's own extent ("the video runs 00:00-60:00") is
   not an answer (`ranges`, with times from `times`).
4. No interval: a refusal ("I cannot view videos") is a failure; a clear absence ("none",
   "the event does not occur") is an empty answer. Intervals outweigh negative wording.
5. Every interval with end < start, a non-finite value or the wrong shape is dropped and
   counted; an answer whose intervals are all invalid is a failure, never "no event".
"""

from __future__ import annotations

import re

from ..moments import Moments
from .modes import DEFAULT_PARSE, PARSE_MODES, answer_parser
from .ranges import text_ranges
from .result import ParsedAnswer, failure, from_spans
from .strict import parse_strict
from .structured import json_answer, moments_from_json
from .times import time_value

__all__ = [
    "DEFAULT_PARSE",
    "PARSE_MODES",
    "ParsedAnswer",
    "answer_parser",
    "moments_from_json",
    "parse_answer",
    "parse_strict",
    "text_ranges",
    "time_value",
]

_REFUSAL = re.compile(
    r"\b(?:unable\s+to|not\s+able\s+to|can(?:not|'t|\s+not)|could(?:n't|\s+not))\s+"
    r"(?:(?:accurately|precisely|reliably|exactly)\s+)?(?:determine|tell|answer|help|assist|"
    r"watch|view|access|process|analy[sz]e|provide|comply|pinpoint|specify|"
    r"see\s+(?:the\s+)?(?:video|videos|frames|images|content))\b"
    r"|\bas an ai\b|\bnot\s+sure\b|\bunclear\b|\bdon'?t\s+have\s+(?:access|the\s+ability)\b"
    r"|\bcannot\s+be\s+determined\b|\bimpossible\s+to\s+(?:determine|tell)\b",
    re.I,
)
_SEEN = r"(?:occur|happen|appear|exist|take\s+place|present|shown|visible|found|seen|depicted)"
_ABSENCE = re.compile(
    r"^\W*(?:none|nothing|null|no\s+(?:such\s+)?(?:event|moment|match|occurrence)s?)\W*$"
    r"|\bno\s+(?:\w+\s+){0,3}?(?:events?|moments?|segments?|intervals?|clips?|instances?|"
    r"occurrences?|scenes?|matches|timestamps?)\b"
    rf"|\b(?:does|do|did|is|are|was|were)\s*(?:not|n't)\s+(?:\w+\s+)?{_SEEN}"
    rf"|\bnever\s+(?:\w+\s+)?{_SEEN}"
    r"|\bthere\s+(?:is|are|was|were)\s+no\b"
    r"|\b(?:can(?:not|'t|\s+not)|could(?:n't|\s+not)|unable\s+to)\s+(?:find|locate|detect)\s+"
    r"(?:any|a|an)\b"
    r"|\b(?:zero|0)\s+(?:times|occurrences|matches|instances)\b",
    re.I | re.M,
)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_ANSWER_MARK = re.compile(r"\b(?:final\s+answer|answer\s+is|answer\s*\**\s*[:：])", re.I)


def _parse_region(text: str, duration_s: float | None) -> ParsedAnswer | None:
    """The answer `text` gives, or None when it gives none."""
    from_json = json_answer(text, duration_s)
    if from_json is not None:
        return from_json
    spans, invalid, unresolved = text_ranges(text, duration_s)
    if spans or invalid:
        return from_spans(spans, invalid)
    if unresolved:
        return failure("relative times (%) need the video duration")
    if _REFUSAL.search(text):
        return failure("the model declined or could not answer")
    if _ABSENCE.search(text):
        return ParsedAnswer(Moments.empty())
    return None


def parse_answer(text: str | None, duration_s: float | None = None) -> ParsedAnswer:
    """Intervals from a model's raw answer (rules in the module docstring).

    Args:
        text: the raw answer.
        duration_s: the video's length in seconds, if known; resolves percentages and tells
            a statement of the video's extent from an answer.

    Returns:
        `ParsedAnswer`: `moments` `(K, 2)` seconds (K = 0 for "no such event"), or None with
        `error` set on a parse failure.

    >>> parse_answer("```json\\n[[12.5, 20], [40, 48]]\\n```").moments.to_list()
    [[12.5, 20.0], [40.0, 48.0]]
    >>> parse_answer("In this 01:00:00 video it happens from 00:12:05 to 00:12:31.").moments
    Moments([[725.0, 751.0]], scores=None)
    >>> parse_answer("The event does not occur in the video.").moments.count
    0
    >>> parse_answer("A man in a red shirt.").error
    'no time interval and no clear "no such event" found'
    """
    if not isinstance(text, str) or not text.strip():
        return failure("empty answer")
    body = _THINK.sub(" ", text)
    body = re.split(r"</think>", body, flags=re.I)[-1]
    if not body.strip():
        return failure("the answer holds only reasoning")
    marks = list(_ANSWER_MARK.finditer(body))
    regions = [body[marks[-1].end() :], body] if marks else [body]
    for region in regions:
        found = _parse_region(region, duration_s)
        if found is not None:
            return found
    return failure('no time interval and no clear "no such event" found')
