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
_RANGES = (
    re.compile(
        rf"(?P<between>\bbetween\s+)?{HEDGE}(?P<a>{ANSWER_TIME}){_SEP}"
        rf"{HEDGE}(?P<b>{ANSWER_TIME})",
        re.I,
    ),
    re.compile(rf"[\[(]\s*(?P<a>{ANSWER_TIME})\s*,\s*(?P<b>{ANSWER_TIME})\s*[\])]", re.I),
    re.compile(
        rf"\b(?:start(?:s|ing|ed)?|begin(?:s|ning)?|onset)\b(?:\s*time)?\W{{0,4}}"
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

_VIDEO_CUE = re.compile(
    r"\b(?:video|clip|footage|recording|duration|length|runtime|running time)\b", re.I
)
_EXTENT_CUE = re.compile(
    r"\b(?:video|clip|footage|recording)\b.*\b(?:is|runs|lasts|spans|covers|goes)\b"
    r"|\b(?:duration|length|runtime|running time)\b",
    re.I,
)
_CUE_AFTER = re.compile(r"^\W{0,3}(?:long|in length|in total|video|clip)\b", re.I)


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
    return bool((_VIDEO_CUE if duration_s is not None else _EXTENT_CUE).search(clause))


def _match_span(match: re.Match, duration_s: float | None) -> tuple | None:
    """(start_s, end_s) of one range match; None if a side cannot be read.

    A bare number takes the unit of the other side ("2 - 3 minutes"), and so does a missing
    percent sign ("10-20%").
    """
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
    if any(is_explicit(m["a"]) or is_explicit(m["b"]) for m in matches):
        matches = [m for m in matches if is_explicit(m["a"]) or is_explicit(m["b"])]
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
    return spans, invalid, unresolved
