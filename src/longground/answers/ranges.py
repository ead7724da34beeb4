"""Time ranges written in prose ("from 00:01:05 to 00:01:20", "2 - 3 minutes", "[10, 20]").

A range that states the video's own extent ("the video runs 00:00-60:00") is not an answer.
"""

from __future__ import annotations

import math
import re

from ..timecode.grammar import last_unit_s
from .times import ANSWER_TIME, HEDGE, is_explicit, token_value

_START_LABEL = r"\b(?:start(?:s|ing|ed)?|begin(?:s|ning)?|onset|commence[sd]?)\b"
_END_LABEL = (
    r"\b(?:end(?:s|ing|ed)?|finish(?:es|ing|ed)?|stop(?:s|ping|ped)?|conclude[sd]?|"
    r"terminate[sd]?)\b"
)
_SEP = r"\s*(?P<sep>-{1,2}>?|–|—|~|→|to|until|till|through|thru|and)\s*"
# A verb that places the event at a time: "happens at 3 s and ends at 9 s".
_EVENT_AT = (
    r"(?:happen(?:s|ed|ing)?|occur(?:s|red|ring)?|appear(?:s|ed|ing)?|take[sn]?\s+place|"
    r"took\s+place)"
)
# How long it lasts, after its start: "starts at 3 s and lasts for 6 s", "lasting 6 s".
_LASTS = (
    r"\b(?:lasts?|lasting|lasted|runs?\s+for|running\s+for|continues\s+for|"
    r"(?:for|with)\s+a\s+duration\s+of|for)\b(?:\s+for)?\s*"
)
_RANGES = (
    re.compile(
        rf"(?P<between>\bbetween\s+)?{HEDGE}(?P<a>{ANSWER_TIME}){_SEP}"
        rf"{HEDGE}(?P<b>{ANSWER_TIME})",
        re.I,
    ),
    re.compile(rf"[\[(]\s*(?P<a>{ANSWER_TIME})\s*,\s*(?P<b>{ANSWER_TIME})\s*[\])]", re.I),
    # Labels of both ends before the two times: "the start and end times are 3 and 9 s".
    re.compile(
        r"\b(?:start(?:ing)?|begin(?:ning)?)\s+(?:time\s+)?and\s+(?:the\s+)?(?:end(?:ing)?|"
        rf"finish)\s+(?:times?|timestamps?|points?)?[^\d\n]{{0,40}}?{HEDGE}(?P<a>{ANSWER_TIME})"
        rf"\s*(?:,|and|-|–|to)\s*{HEDGE}(?P<b>{ANSWER_TIME})",
        re.I,
    ),
    # A start and how long it lasts: "starts at 3 s and lasts for 6 s".
    re.compile(
        rf"(?:{_START_LABEL}|\b{_EVENT_AT})(?:\s*time)?\W{{0,4}}(?:(?:at|from|around|about|"
        rf"approximately)\s+)?{HEDGE}(?P<a>{ANSWER_TIME})[^\d.\n]{{0,30}}?{_LASTS}"
        rf"{HEDGE}(?P<length>{ANSWER_TIME})",
        re.I,
    ),
    re.compile(
        rf"(?:\b(?:start(?:s|ing|ed)?|begin(?:s|ning)?|onset)\b|\b{_EVENT_AT}\s+(?=at\b))"
        rf"(?:\s*time)?\W{{0,4}}"
        rf"(?:(?:at|from|around|about|approximately)\s+)?{HEDGE}(?P<a>{ANSWER_TIME})[^.\n]{{0,60}}?"
        rf"\b(?:end(?:s|ing|ed)?|finish(?:es|ing|ed)?|stop(?:s|ping|ped)?|until)\b(?:\s*time)?"
        rf"\W{{0,4}}(?:(?:at|around|about|approximately|by)\s+)?{HEDGE}(?P<b>{ANSWER_TIME})",
        re.I,
    ),
    # Start and end named apart, across a line or sentence break: "Starting time: 3.5 s\n
    # Ending time: 11.9 s", "The start time for this event is 4 seconds, and the end time is
    # 10 seconds", "... starts at 3.5 seconds. It ends at 11.9 seconds." No digit may come
    # between a label and its time, nor between the two times, so each pair stays whole.
    re.compile(
        rf"{_START_LABEL}[^\d\n]{{0,40}}?{HEDGE}(?P<a>{ANSWER_TIME})"
        rf"[^\d]{{0,80}}?{_END_LABEL}[^\d\n]{{0,40}}?{HEDGE}(?P<b>{ANSWER_TIME})",
        re.I,
    ),
)

# The opening or closing stretch of the video: "in the first 10 seconds", "the last 5 s".
_FIRST_LAST = re.compile(
    rf"\b(?P<side>first|opening|initial|last|final|closing)\s+{HEDGE}(?P<length>{ANSWER_TIME})",
    re.I,
)
_VIDEO_CUE = re.compile(
    r"\b(?:video|clip|footage|recording|duration|length|runtime|running time)\b", re.I
)
_EXTENT_CUE = re.compile(
    r"\b(?:video|clip|footage|recording)\b.*\b(?:is|runs|lasts|spans|covers|goes)\b"
    r"|\b(?:duration|length|runtime|running time)\b",
    re.I,
)
_EVENT_VERB = re.compile(rf"\b(?:{_EVENT_AT}|event|action)\b", re.I)
_CUE_AFTER = re.compile(r"^\W{0,3}(?:long|in length|in total|video|clip)\b", re.I)


def _explicit(match: re.Match) -> bool:
    """Whether either end of a range match names its unit (a clock time, "12 s", "10%")."""
    groups = match.groupdict()
    return any(is_explicit(groups[name]) for name in ("a", "b", "length") if groups.get(name))


def _range_matches(text: str) -> list[re.Match]:
    """All range matches, left to right, without overlaps (earliest then longest wins)."""
    found = [m for pattern in _RANGES for m in pattern.finditer(text)]
    found.sort(key=lambda m: (m.start(), -m.end()))
    kept: list[re.Match] = []
    for match in found:
        if kept and match.start() < kept[-1].end():
            continue
        if "sep" in match.re.groupindex and match["sep"].lower() == "and" and not match["between"]:
            continue
        kept.append(match)
    return kept


def _is_video_extent(text: str, match: re.Match, span: tuple, duration_s: float | None) -> bool:
    """True when a range from 0 states the video's own extent rather than an answer.

    With a known duration the range must also end at it and a mention of the video is
    enough; without one, the wording must say the video is, runs or lasts that long.
    """
    start_s, end_s = span
    if start_s > 0.5:
        return False
    if duration_s is not None and abs(end_s - duration_s) > max(1.0, 0.01 * duration_s):
        return False
    clause = re.split(r"[.!?;\n]", text[: match.start()])[-1][-80:]
    if _CUE_AFTER.search(text[match.end() : match.end() + 20]):
        return True
    cue = list((_VIDEO_CUE if duration_s is not None else _EXTENT_CUE).finditer(clause))
    # "In the video, the person ... occurs at 0 to 20 seconds": an event placed in the video.
    return bool(cue) and not _EVENT_VERB.search(clause[cue[-1].end() :])


def _match_span(match: re.Match, duration_s: float | None) -> tuple | None:
    """(start_s, end_s) of one range match; None if a side cannot be read.

    A bare number takes the unit of the other side ("2 - 3 minutes"), and so does a missing
    percent sign ("10-20%").
    """
    if "length" in match.re.groupindex:
        start = token_value(match["a"], last_unit_s(match["length"]) or 1.0, duration_s)
        length = token_value(match["length"], last_unit_s(match["a"]) or 1.0, duration_s)
        return None if start is None or length is None else (start, start + length)
    a, b = match["a"], match["b"]
    hint_a = last_unit_s(b) if not is_explicit(a) else None
    hint_b = last_unit_s(a) if not is_explicit(b) else None
    if b.strip().endswith("%") and not is_explicit(a):
        a = a + "%"
    start = token_value(a, hint_a or 1.0, duration_s)
    end = token_value(b, hint_b or 1.0, duration_s)
    return None if start is None or end is None else (start, end)


def text_ranges(text: str, duration_s: float | None = None) -> tuple[list[tuple], int, bool]:
    """Time ranges written in prose.

    Args:
        text: prose that may name time ranges.
        duration_s: the video's length, if known (resolves percentages and tells a statement
            of the video's extent from an answer).

    Returns:
        `(spans, invalid, unresolved)`: `spans` a list of `(start_s, end_s)` in order of
        appearance without exact repeats; `invalid` ranges with end < start; `unresolved`
        True when a range could not be read (a percentage without a known duration).

    >>> text_ranges("It happens from 00:01:05 to 00:01:20, and again at 2:10-2:30.")
    ([(65.0, 80.0), (130.0, 150.0)], 0, False)
    """
    matches = _range_matches(text)
    if any(_explicit(m) for m in matches):
        matches = [m for m in matches if _explicit(m)]
    spans: list[tuple] = []
    invalid, unresolved = 0, False
    for match in matches:
        span = _match_span(match, duration_s)
        if span is None:
            unresolved = True
        elif _is_video_extent(text, match, span, duration_s):
            continue
        elif span[1] < span[0] or not (math.isfinite(span[0]) and math.isfinite(span[1])):
            invalid += 1
        elif span not in spans:
            spans.append(span)
    if not spans and not invalid:
        spans = _first_or_last(text, duration_s)
    return spans, invalid, unresolved


def _first_or_last(text: str, duration_s: float | None) -> list[tuple]:
    """`[(0, N)]` for "the first N seconds" and `[(D - N, D)]` for "the last N seconds" of a
    video of D seconds, when an answer names no range at all; the length must have its unit
    ("the first 2 people" is no time).

    >>> _first_or_last("It happens in the first 10 seconds.", None)
    [(0.0, 10.0)]
    >>> _first_or_last("In the last 5 s of the clip.", 60.0), _first_or_last("the last 5", 60.0)
    ([(55.0, 60.0)], [])
    """
    spans: list[tuple] = []
    for match in _FIRST_LAST.finditer(text):
        if not is_explicit(match["length"]):
            continue
        length = token_value(match["length"], 1.0, duration_s)
        closing = match["side"].lower() in ("last", "final", "closing")
        if length is None or (closing and duration_s is None):
            continue
        span = (max(0.0, duration_s - length), duration_s) if closing else (0.0, length)
        if span not in spans:
            spans.append(span)
    return spans
