"""The papers' JSON-only rule: an answer is read only when the whole of it is the JSON the
prompt asked for.

CoMET-Bench's evaluation prompt asks for "a strict JSON array of [start_seconds, end_seconds]
pairs ... directly parseable ... without post-processing" (App. B.7), and ExtremeWhenBench
counts every answer that does not parse as IoU 0 (§3; 50.7 % parse failures for GPT-5.4 at
512 frames, App. C). Under this rule the answer, with surrounding white space removed and at
most one enclosing Markdown code fence (```` ```json ... ``` ````) unwrapped, must decode as
one JSON value of these shapes, and nothing else:

- `[]`: no such event;
- `[s, e]`: one interval;
- `[[s, e], ...]`: intervals, each a pair of numbers in seconds.

Prose, reasoning, time strings, objects and trailing text are parse failures. A pair whose
end is before its start is dropped and counted, as in the lenient reader; an answer of only
such pairs is a failure, never "no such event".
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ..moments import Moments
from .result import ParsedAnswer, failure

_FENCE = re.compile(r"\A```[a-zA-Z]*[ \t]*\n(?P<body>.*?)\n?```\Z", re.S)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _pair(value) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)


def parse_strict(text: str | None, duration_s: float | None = None) -> ParsedAnswer:
    """Intervals from an answer that is exactly the JSON asked for (rules in the module
    docstring); `duration_s` is accepted for the same signature as `parse_answer` and unused.

    >>> parse_strict("[[12, 20], [40, 48]]").moments.to_list()
    [[12.0, 20.0], [40.0, 48.0]]
    >>> parse_strict("```json\\n[3.5, 11.9]\\n```").moments.to_list()
    [[3.5, 11.9]]
    >>> parse_strict("[]").moments.count
    0
    >>> parse_strict("The answer is [[12, 20]].").error
    'strict: the answer is not only JSON'
    """
    if not isinstance(text, str) or not text.strip():
        return failure("strict: empty answer")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced is not None:
        body = fenced["body"].strip()
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return failure("strict: the answer is not only JSON")
    if _pair(value):
        value = [value]
    if not isinstance(value, list) or not all(_pair(item) for item in value):
        return failure("strict: JSON is not [[start_s, end_s], ...]")
    spans = [(float(s), float(e)) for s, e in value]
    kept = [(s, e) for s, e in spans if math.isfinite(s) and math.isfinite(e) and e >= s]
    invalid = len(spans) - len(kept)
    if spans and not kept:
        return failure(f"strict: all {invalid} intervals are invalid", invalid)
    return ParsedAnswer(Moments(np.array(kept, dtype=np.float64).reshape(-1, 2)), None, invalid)
