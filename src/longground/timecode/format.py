"""Writing times for people: `HH:MM:SS.s`."""

from __future__ import annotations


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
