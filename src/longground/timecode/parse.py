"""Reading one time from a benchmark or prediction file: a number of seconds or text."""

from __future__ import annotations

import math

from .grammar import TimeError, read_point


def parse_time(text: str | float | int) -> float:
    """Seconds from `"75"`, `"75.5"`, `"01:15"`, `"75:30"`, `"00:01:15.5"`, `"90s"`, `"1h2m"`.

    Raises:
        TimeError: (a `ValueError`) not a time, out of range, negative or not finite.

    >>> parse_time("01:15"), parse_time("1:02:03.5"), parse_time("12.5"), parse_time("75:30")
    (75.0, 3723.5, 12.5, 4530.0)
    """
    if isinstance(text, int | float):
        value = float(text)
    else:
        value = read_point(text)
    if not math.isfinite(value) or value < 0:
        raise TimeError(f"not a time: {text!r}")
    return value
