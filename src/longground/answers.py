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
   empty answer unless the prose around it names intervals.
3. Time ranges in prose: `HH:MM:SS`, `MM:SS`, `12.5`, `12 s`, `2 min 5 s`, `10%` (with a
   known duration), joined by "to", "-", "~", "–", "—", "from X to Y", "between X and Y",
   "starts at X ... ends at Y", or `[X, Y]`. A range that states the video's own extent
   ("the video runs 00:00-60:00") is not an answer.
4. No interval: a refusal ("I cannot view videos") is a failure; a clear absence ("none",
   "the event does not occur") is an empty answer. Intervals outweigh negative wording.
5. Every interval with end < start, a non-finite value or the wrong shape is dropped and
   counted; an answer whose intervals are all invalid is a failure, never "no event".
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np

from .moments import Moments


@dataclass(frozen=True)
class ParsedAnswer:
    """What a raw answer says.

    Args:
        moments: the intervals in seconds (empty for "no such event"), or None on failure.
        error: why parsing failed, None on success.
        invalid_intervals: intervals dropped as reversed, non-finite or malformed.
    """

    moments: Moments | None
    error: str | None = None
    invalid_intervals: int = 0


def _failure(message: str, invalid: int = 0) -> ParsedAnswer:
    return ParsedAnswer(None, message, invalid)


# --- time expressions ---------------------------------------------------------------------

_UNIT_S = {"h": 3600.0, "hr": 3600.0, "hour": 3600.0, "m": 60.0, "min": 60.0, "minute": 60.0}
_UNIT = r"(?:hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|sec|s)(?![a-zA-Z])"
_NUM = r"\d+(?:\.\d+)?"
_CLOCK = r"\d+:\d{2}(?::\d{2})?(?:\.\d+)?"
_QTY = rf"{_NUM}\s*{_UNIT}(?:\s*{_NUM}\s*{_UNIT})*"
_TIME = rf"(?<![\w.:])(?:{_CLOCK}|{_QTY}|{_NUM}\s*%|{_NUM})(?![\d:])"
_HEDGE = r"(?:(?:about|around|approximately|approx\.|roughly|~)\s*)?"
_SEP = r"\s*(?P<sep>-{1,2}>?|–|—|~|→|to|until|till|through|thru|and)\s*"
_RANGES = (
    re.compile(
        rf"(?P<between>\bbetween\s+)?{_HEDGE}(?P<a>{_TIME}){_SEP}{_HEDGE}(?P<b>{_TIME})", re.I
    ),
    re.compile(rf"[\[(]\s*(?P<a>{_TIME})\s*,\s*(?P<b>{_TIME})\s*[\])]", re.I),
    re.compile(
        rf"\b(?:start(?:s|ing|ed)?|begin(?:s|ning)?|onset)\b(?:\s*time)?\W{{0,4}}"
        rf"(?:(?:at|from|around|about|approximately)\s+)?{_HEDGE}(?P<a>{_TIME})[^.\n]{{0,60}}?"
        rf"\b(?:end(?:s|ing|ed)?|finish(?:es|ing|ed)?|stop(?:s|ping|ped)?|until)\b(?:\s*time)?"
        rf"\W{{0,4}}(?:(?:at|around|about|approximately|by)\s+)?{_HEDGE}(?P<b>{_TIME})",
        re.I,
    ),
)
_QTY_PART = re.compile(rf"({_NUM})\s*({_UNIT})", re.I)
_TIME_ALONE = re.compile(rf"\s*{_TIME}\s*", re.I)


def _clock_s(token: str) -> float | None:
    """`M:SS`, `MM:SS`, `MMM:SS` or `H:MM:SS(.s)` in seconds; None when out of range."""
    parts = token.split(":")
    secs, mins = float(parts[-1]), int(parts[-2])
    hours = int(parts[0]) if len(parts) == 3 else 0
    if secs >= 60 or (len(parts) == 3 and mins >= 60):
        return None
    return hours * 3600 + mins * 60 + secs


def _unit_factor(unit: str) -> float:
    unit = unit.lower().rstrip("s") or "s"
    return _UNIT_S.get(unit, 1.0)


def _token_value(token: str, hint_s: float, duration_s: float | None) -> float | None:
    """One time token in seconds; `hint_s` is the unit for a bare number. None if unusable."""
    token = token.strip()
    if ":" in token:
        return _clock_s(token)
    if token.endswith("%"):
        if duration_s is None:
            return None
        return float(token[:-1].strip()) / 100.0 * duration_s
    parts = _QTY_PART.findall(token)
    if parts:
        return sum(float(n) * _unit_factor(u) for n, u in parts)
    return float(token) * hint_s


def _last_unit_factor(token: str) -> float | None:
    parts = _QTY_PART.findall(token)
    return _unit_factor(parts[-1][1]) if parts else None


def _is_explicit(token: str) -> bool:
    """True for a clock time, a quantity with a unit or a percentage (not a bare number)."""
    return ":" in token or "%" in token or bool(_QTY_PART.search(token))


def time_value(text: str, duration_s: float | None = None) -> float | None:
    """Seconds for one time written alone (`"01:02"`, `"62 s"`, `"62"`); None otherwise.

    >>> time_value("1:02:03"), time_value("2 min 5 s"), time_value("12.5s"), time_value("soon")
    (3723.0, 125.0, 12.5, None)
    """
    if not _TIME_ALONE.fullmatch(text):
        return None
    return _token_value(text, 1.0, duration_s)


# --- prose ranges -------------------------------------------------------------------------

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
    """(start_s, end_s) of one range match; None if a side cannot be read."""
    a, b = match["a"], match["b"]
    hint_a = _last_unit_factor(b) if not _is_explicit(a) else None
    hint_b = _last_unit_factor(a) if not _is_explicit(b) else None
    if b.strip().endswith("%") and not _is_explicit(a):
        a = a + "%"
    start = _token_value(a, hint_a or 1.0, duration_s)
    end = _token_value(b, hint_b or 1.0, duration_s)
    return None if start is None or end is None else (start, end)


def text_ranges(text: str, duration_s: float | None = None) -> tuple[list[tuple], int, bool]:
    """Time ranges written in prose.

    Returns:
        `(spans, invalid, unresolved)`: `spans` a list of `(start_s, end_s)` in order of
        appearance without exact repeats; `invalid` ranges with end < start; `unresolved`
        True when a range could not be read (a percentage without a known duration).

    >>> text_ranges("It happens from 00:01:05 to 00:01:20, and again at 2:10-2:30.")
    ([(65.0, 80.0), (130.0, 150.0)], 0, False)
    """
    matches = _range_matches(text)
    if any(_is_explicit(m["a"]) or _is_explicit(m["b"]) for m in matches):
        matches = [m for m in matches if _is_explicit(m["a"]) or _is_explicit(m["b"])]
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


# --- JSON ---------------------------------------------------------------------------------

_START_KEYS = ("start", "start_s", "start_time", "start_sec", "start_seconds", "begin", "from")
_END_KEYS = ("end", "end_s", "end_time", "end_sec", "end_seconds", "stop", "finish", "to")
_SCORE_KEYS = ("score", "confidence", "conf", "probability")
_WRAPPER_KEYS = (
    "intervals", "moments", "timestamps", "segments", "windows", "spans", "events",
    "answer", "answers", "result", "results", "predictions", "relevant_windows",
)  # fmt: skip


def _scalar_s(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if abs(value) < 1e300 else math.inf  # huge JSON ints overflow
    if isinstance(value, str):
        return time_value(value)
    return None


def _first_key(obj: dict, keys: tuple) -> object:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    return next((lowered[k] for k in keys if k in lowered), None)


def _has_keys(obj: dict, keys: tuple) -> bool:
    return any(str(k).lower() in keys for k in obj)


def _item_interval(item) -> tuple | None:
    """`(start_s, end_s, score | None)` of one JSON item, or None when malformed."""
    score = None
    if isinstance(item, dict):
        start, end = _first_key(item, _START_KEYS), _first_key(item, _END_KEYS)
        score = _scalar_s(_first_key(item, _SCORE_KEYS))
    elif isinstance(item, list | tuple) and len(item) in (2, 3):
        start, end = item[0], item[1]
        if len(item) == 3:
            score = _scalar_s(item[2])
            if score is None:
                return None
    elif isinstance(item, str):
        spans, invalid, _ = text_ranges(item)
        return (*spans[0], None) if len(spans) == 1 and not invalid else None
    else:
        return None
    start_s, end_s = _scalar_s(start), _scalar_s(end)
    if start_s is None or end_s is None or not (math.isfinite(start_s) and math.isfinite(end_s)):
        return None
    if score is not None and not math.isfinite(score):
        return None
    return (start_s, end_s, score) if end_s >= start_s else None


def _is_flat_pair(value) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(not isinstance(v, list | dict) and _scalar_s(v) is not None for v in value)
    )


def _json_items(value) -> list | None:
    """The list of interval items a JSON value holds, or None if it holds none."""
    if _is_flat_pair(value):
        return [value]
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        if _has_keys(value, _START_KEYS) and _has_keys(value, _END_KEYS):
            return [value]
        for key in _WRAPPER_KEYS:
            inner = _first_key(value, (key,))
            if isinstance(inner, list | dict):
                return _json_items(inner)
        if _first_key(value, ("count",)) == 0:
            return []
    return None


def moments_from_json(value) -> ParsedAnswer:
    """Intervals from a decoded JSON value: pairs, `[s, e, score]` triples, objects with
    start/end keys (numbers or time strings), or an object wrapping such a list.

    Scores are kept only when every kept interval has one.

    >>> parsed = moments_from_json([[10, 20], [30, 25], {"start": "00:01:00", "end": "1:05"}])
    >>> parsed.moments.to_list(), parsed.invalid_intervals
    ([[10.0, 20.0], [60.0, 65.0]], 1)
    """
    items = _json_items(value)
    if items is None:
        return _failure("JSON answer holds no list of intervals")
    parsed = [_item_interval(item) for item in items]
    kept = [p for p in parsed if p is not None]
    invalid = len(parsed) - len(kept)
    if items and not kept:
        return _failure(f"all {invalid} intervals are invalid", invalid)
    spans = np.array([p[:2] for p in kept], dtype=np.float64).reshape(-1, 2)
    scores = [p[2] for p in kept]
    with_scores = bool(kept) and all(s is not None for s in scores)
    return ParsedAnswer(Moments(spans, np.array(scores) if with_scores else None), None, invalid)


def _looks_like_answer(value) -> bool:
    items = _json_items(value)
    if items is None:
        return False
    if not items:
        return isinstance(value, list | dict)
    return all(isinstance(i, list | dict | str) for i in items) and any(
        _item_interval(i) is not None or isinstance(i, list | dict) for i in items
    )


_PAIRS = {"]": "[", "}": "{"}


def _bracket_spans(text: str) -> list[tuple[int, int]]:
    """`(open, close)` index pairs of balanced `[...]` / `{...}`, by opening position.

    Quotes are ignored: prose is full of stray quote marks. Only balanced candidates are
    handed to the JSON decoder, so unbalanced text costs linear time.
    """
    stack: list[tuple[str, int]] = []
    spans = []
    for i, char in enumerate(text):
        if char in "[{":
            stack.append((char, i))
        elif char in _PAIRS:
            while stack and stack[-1][0] != _PAIRS[char]:
                stack.pop()
            if stack:
                spans.append((stack.pop()[1], i))
    return sorted(spans)


def _json_fragments(text: str) -> list[tuple[int, int, object]]:
    """`(start, end, value)` of every top-level JSON list or object embedded in `text`."""
    out, pos = [], 0
    for start, close in _bracket_spans(text):
        if start < pos:
            continue
        try:
            value = json.loads(text[start : close + 1])
        except (ValueError, RecursionError):
            continue
        out.append((start, close + 1, value))
        pos = close + 1
    return out


def _json_answer(text: str, duration_s: float | None) -> ParsedAnswer | None:
    """The answer JSON fragments give, or None when there is none."""
    frags = [f for f in _json_fragments(text) if _looks_like_answer(f[2])]
    full = [f for f in frags if _json_items(f[2])]
    if not full:
        if not frags:
            return None
        outside = "".join(text[a:b] for a, b in _gaps(text, frags))
        spans, invalid, _ = text_ranges(outside, duration_s)
        return _from_spans(spans, invalid) if spans or invalid else ParsedAnswer(Moments.empty())
    if all(len(_json_items(f[2])) == 1 for f in full):
        return moments_from_json([_json_items(f[2])[0] for f in full])
    return moments_from_json(full[-1][2])


def _gaps(text: str, frags: list) -> list[tuple[int, int]]:
    bounds = [0] + [x for a, b, _ in frags for x in (a, b)] + [len(text)]
    return list(zip(bounds[::2], bounds[1::2], strict=True))


# --- refusals and absences ----------------------------------------------------------------

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


# --- the whole answer ---------------------------------------------------------------------

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_ANSWER_MARK = re.compile(r"\b(?:final\s+answer|answer\s+is|answer\s*\**\s*[:：])", re.I)


def _from_spans(spans: list[tuple], invalid: int) -> ParsedAnswer:
    if not spans:
        return _failure(f"all {invalid} intervals are invalid (end before start)", invalid)
    return ParsedAnswer(Moments(np.array(spans, dtype=np.float64)), None, invalid)


def _parse_region(text: str, duration_s: float | None) -> ParsedAnswer | None:
    """The answer `text` gives, or None when it gives none."""
    from_json = _json_answer(text, duration_s)
    if from_json is not None:
        return from_json
    spans, invalid, unresolved = text_ranges(text, duration_s)
    if spans or invalid:
        return _from_spans(spans, invalid)
    if unresolved:
        return _failure("relative times (%) need the video duration")
    if _REFUSAL.search(text):
        return _failure("the model declined or could not answer")
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
        return _failure("empty answer")
    body = _THINK.sub(" ", text)
    body = re.split(r"</think>", body, flags=re.I)[-1]
    if not body.strip():
        return _failure("the answer holds only reasoning")
    marks = list(_ANSWER_MARK.finditer(body))
    regions = [body[marks[-1].end() :], body] if marks else [body]
    for region in regions:
        found = _parse_region(region, duration_s)
        if found is not None:
            return found
    return _failure('no time interval and no clear "no such event" found')
