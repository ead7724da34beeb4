"""`ParsedAnswer`: what a raw answer says (intervals, "no such event", or a failure)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..moments import Moments


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


def failure(message: str, invalid: int = 0) -> ParsedAnswer:
    """A parse failure saying why, with the count of intervals dropped as invalid.

    >>> failure("empty answer")
    ParsedAnswer(moments=None, error='empty answer', invalid_intervals=0)
    """
    return ParsedAnswer(None, message, invalid)


def from_spans(spans: list[tuple], invalid: int) -> ParsedAnswer:
    """The answer `(start_s, end_s)` spans give; a failure when none is left but some were
    dropped as invalid.

    >>> from_spans([(1.0, 2.0)], 1).moments.to_list(), from_spans([], 2).invalid_intervals
    ([[1.0, 2.0]], 2)
    """
    if not spans:
        return failure(f"all {invalid} intervals are invalid (end before start)", invalid)
    return ParsedAnswer(Moments(np.array(spans, dtype=np.float64)), None, invalid)
