"""Time expressions: units, amounts ("2 min 5 s", "10-minute"), clock times, single time tokens.

The unit table, `UNIT`, `AMOUNT` and `CLOCK` are the one grammar of times in longground: the
answer parser builds its tokens from them here, and the agent's query windows
(`longground.agent.windows`) build their phrases from them.
"""

from __future__ import annotations

import re

# Seconds per unit, keyed by the unit word's first letter (every word `UNIT` accepts starts
# with h, m or s).
UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0}
# No letter may follow, but a digit may: "2m30s", "1h2m3s".
UNIT = r"(?:hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-zA-Z])"
NUM = r"\d+(?:\.\d+)?"
# One number with its unit: "90 s", "1.5 minutes", "10-minute".
AMOUNT = rf"{NUM}\s*-?\s*{UNIT}"
# M:SS, MM:SS, MMM:SS (minutes may exceed 59) or H:MM:SS, each with optional decimals.
CLOCK = r"\d+:\d{2}(?::\d{2})?(?:\.\d+)?"

_AMOUNT_PART = re.compile(rf"({NUM})\s*-?\s*({UNIT})", re.I)

# --- the answer parser's time tokens ------------------------------------------------------

# Several amounts in a row: "2 min 5 s", "1h2m3s".
_QTY = rf"{AMOUNT}(?:\s*{AMOUNT})*"
# One time in an answer: a clock time, amounts, a percentage of the video, or a bare number.
TIME = rf"(?<![\w.:])(?:{CLOCK}|{_QTY}|{NUM}\s*%|{NUM})(?![\d:])"
_TIME_ALONE = re.compile(rf"\s*{TIME}\s*", re.I)


def unit_s(unit: str) -> float:
    """Seconds in one unit word matched by `UNIT`.

    >>> unit_s("Hours"), unit_s("min"), unit_s("secs")
    (3600.0, 60.0, 1.0)
    """
    return UNIT_S[unit[0].lower()]


def amount_s(text: str) -> float | None:
    """Seconds in all the amounts written in `text` (summed); None when it holds none.

    >>> amount_s("1 hour 5 minutes"), amount_s("2m30s"), amount_s("10-minute"), amount_s("12")
    (3900.0, 150.0, 600.0, None)
    """
    parts = _AMOUNT_PART.findall(text)
    return sum(float(n) * unit_s(u) for n, u in parts) if parts else None


def last_unit_s(text: str) -> float | None:
    """Seconds per unit of the last amount in `text`; None when it holds none.

    >>> last_unit_s("1 min 5 s"), last_unit_s("2 - 3 minutes"), last_unit_s("12")
    (1.0, 60.0, None)
    """
    parts = _AMOUNT_PART.findall(text)
    return unit_s(parts[-1][1]) if parts else None


def clock_s(token: str) -> float | None:
    """Seconds of a `CLOCK` token; None when out of range (seconds, or H:MM:SS minutes, >= 60).

    >>> clock_s("1:02:03.5"), clock_s("75:30"), clock_s("1:75:00")
    (3723.5, 4530.0, None)
    """
    parts = token.strip().split(":")
    secs, mins = float(parts[-1]), int(parts[-2])
    hours = int(parts[0]) if len(parts) == 3 else 0
    if secs >= 60 or (len(parts) == 3 and mins >= 60):
        return None
    return hours * 3600 + mins * 60 + secs


def token_value(token: str, hint_s: float, duration_s: float | None) -> float | None:
    """Seconds of one `TIME` token; `hint_s` is the unit of a bare number.

    Returns None for an out-of-range clock time or a percentage without `duration_s`.

    >>> token_value("3", 60.0, None), token_value("10%", 1.0, 600.0), token_value("10%", 1.0, None)
    (180.0, 60.0, None)
    """
    token = token.strip()
    if ":" in token:
        return clock_s(token)
    if token.endswith("%"):
        if duration_s is None:
            return None
        return float(token[:-1].strip()) / 100.0 * duration_s
    amount = amount_s(token)
    return float(token) * hint_s if amount is None else amount


def is_explicit(token: str) -> bool:
    """True for a clock time, an amount with a unit or a percentage (not a bare number).

    >>> is_explicit("00:12"), is_explicit("12 s"), is_explicit("12%"), is_explicit("12")
    (True, True, True, False)
    """
    return ":" in token or "%" in token or bool(_AMOUNT_PART.search(token))


def time_value(text: str, duration_s: float | None = None) -> float | None:
    """Seconds for one time written alone (`"01:02"`, `"62 s"`, `"62"`); None otherwise.

    Args:
        text: the time, alone apart from surrounding white space.
        duration_s: the video's length, to resolve a percentage (`"10%"`).

    >>> time_value("1:02:03"), time_value("2 min 5 s"), time_value("12.5s"), time_value("soon")
    (3723.0, 125.0, 12.5, None)
    """
    if not _TIME_ALONE.fullmatch(text):
        return None
    return token_value(text, 1.0, duration_s)
