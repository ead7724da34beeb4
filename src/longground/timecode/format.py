"""Writing times for people: `HH:MM:SS.s`, rounded half away from zero; and which one of
several moments in time order ("2nd")."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def format_time(seconds: float, decimals: int = 1) -> str:
    """`HH:MM:SS.s` for a number of seconds, rounded half away from zero as people round
    (1.25 -> 01.3, 28.75 -> 28.8), on the number as it is written (0.15 -> 00.2, although
    the float is a hair below 0.15).

    >>> format_time(3723.46), format_time(5, decimals=0)
    ('01:02:03.5', '00:00:05')
    >>> format_time(1.25), format_time(28.75), format_time(0.15), format_time(59.95)
    ('00:00:01.3', '00:00:28.8', '00:00:00.2', '00:01:00.0')
    """
    step = Decimal(1).scaleb(-decimals)
    total = int(Decimal(repr(max(float(seconds), 0.0))).quantize(step, ROUND_HALF_UP) / step)
    whole, frac = divmod(total, 10**decimals)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{text}.{frac:0{decimals}d}" if decimals else text


def ordinal(n: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`: a moment's place in time order.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd']
    """
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
