"""JSON answers: decoded values (`moments_from_json`) and JSON fragments embedded in prose."""

from __future__ import annotations

import json
import math

import numpy as np

from ..moments import Moments
from .ranges import text_ranges
from .result import ParsedAnswer, failure, from_spans
from .times import time_value

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
        return failure("JSON answer holds no list of intervals")
    parsed = [_item_interval(item) for item in items]
    kept = [p for p in parsed if p is not None]
    invalid = len(parsed) - len(kept)
    if items and not kept:
        return failure(f"all {invalid} intervals are invalid", invalid)
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


def _gaps(text: str, frags: list) -> list[tuple[int, int]]:
    bounds = [0] + [x for a, b, _ in frags for x in (a, b)] + [len(text)]
    return list(zip(bounds[::2], bounds[1::2], strict=True))


def json_answer(text: str, duration_s: float | None) -> ParsedAnswer | None:
    """The answer the JSON fragments in `text` give, or None when there are none.

    Several single-interval fragments are joined; otherwise the last fragment wins. An empty
    fragment (`[]`, `{"count": 0}`) is an empty answer unless the prose around it names
    intervals.

    >>> json_answer("First [1, 2], then [5, 8].", None).moments.to_list()
    [[1.0, 2.0], [5.0, 8.0]]
    >>> json_answer("no brackets here", None) is None
    True
    """
    frags = [f for f in _json_fragments(text) if _looks_like_answer(f[2])]
    full = [f for f in frags if _json_items(f[2])]
    if not full:
        if not frags:
            return None
        outside = "".join(text[a:b] for a, b in _gaps(text, frags))
        spans, invalid, _ = text_ranges(outside, duration_s)
        return from_spans(spans, invalid) if spans or invalid else ParsedAnswer(Moments.empty())
    if all(len(_json_items(f[2])) == 1 for f in full):
        return moments_from_json([_json_items(f[2])[0] for f in full])
    return moments_from_json(full[-1][2])
