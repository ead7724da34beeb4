"""Parsing and formatting times: plain seconds, `MM:SS` and `HH:MM:SS(.s)`."""

from __future__ import annotations

import math
import re

_CLOCK = re.compile(r"^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)\s*$")


def parse_time(text: str | float | int) -> float:
    """Seconds from `"75"`, `"75.5"`, `"01:15"` or `"00:01:15.5"`.

    >>> parse_time("01:15"), parse_time("1:02:03.5"), parse_time("12.5")
    (75.0, 3723.5, 12.5)
    """
    if isinstance(text, int | float):
        value = float(text)
    else:
        match = _CLOCK.match(text)
        if match:
            hours, minutes, seconds = match.groups()
            if int(minutes) >= 60 or float(seconds) >= 60:
                raise ValueError(f"not a valid clock time: {text!r}")
            value = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
        else:
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"not a time: {text!r} (use seconds, MM:SS or HH:MM:SS)") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"not a time: {text!r}")
    return value


def format_time(seconds: float, decimals: int = 1) -> str:
    """`HH:MM:SS.s` for a number of seconds.

    >>> format_time(3723.46), format_time(5, decimals=0)
    ('01:02:03.5', '00:00:05')
    """
    scale = 10**decimals
    total = round(max(seconds, 0.0) * scale)
    whole, frac = divmod(total, scale)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{text}.{frac:0{decimals}d}" if decimals else text
