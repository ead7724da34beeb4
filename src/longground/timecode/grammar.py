"""The one grammar of times in longground: units, numbers, clock times and amounts.

Benchmark files (`parse_time`), model answers (`longground.answers.times`) and the agent's
query windows (`longground.query.windows`) all build their patterns from the pieces here
and read a matched token with the readers here, so `75:30` is 4530 s everywhere. What only one
reader allows is added by that reader: percentages of the video and hedges ("about") only in
answers, a bare number only in answers and files (a query's "after 3" is no time).
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
# Several amounts in a row: "2 min 5 s", "1h2m3s".
AMOUNTS = rf"{AMOUNT}(?:\s*{AMOUNT})*"
# As people say them: also "1 hour and 5 minutes".
SPOKEN_AMOUNTS = rf"{AMOUNT}(?:\s*(?:and\s+)?{AMOUNT})*"
# M:SS, MM:SS, MMM:SS (minutes may exceed 59 when no hours are given) or H:MM:SS, each with
# optional decimals.
CLOCK = r"\d+:\d{2}(?::\d{2})?(?:\.\d+)?"
# What a clock time looks like before its fields are checked ("1:5", "1:75:00" too), so a
# reader can say what is wrong with it instead of passing over it.
CLOCK_LIKE = r"\d+(?::\d+){1,2}(?:\.\d+)?"
# "minute 12": a point given by its minute.
MINUTE_N = rf"minute\s+{NUM}"
# A unit and then the next smaller one unsaid, as people write them: "1 min 30", "2m30",
# "2 minutes 15" (seconds), "1h05", "1 hour 30" (minutes).
UNIT_THEN_NUMBER = (
    rf"\d+\s*(?:(?:hours?|hrs?|minutes?|mins?)\s+|[hm]\s*)[0-5]?\d(?![\d:.]|\s*(?:{UNIT}|%))"
)
# Numbers in words, as people say a length: "five minutes", "twenty-five seconds", "an hour".
NUMBER_WORDS = dict(
    zip(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split(),
        range(1, 21),
        strict=True,
    ),
    thirty=30, forty=40, fifty=50, sixty=60, ninety=90,
)  # fmt: skip
# One number in words, the longest first ("sixteen" before "six").
WORD_NUMBER = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_WORD_UNIT = r"(?:hours?|minutes?|mins?|seconds?|secs?)\b"
# "five minutes", "twenty-five seconds", "a minute", "an hour", "half an hour" ("a second" is
# left alone: "before a second cat" is no time).
WORD_AMOUNT = (
    rf"(?:(?:{WORD_NUMBER})(?:[\s-]+(?:{WORD_NUMBER}))?\s*-?\s*{_WORD_UNIT}"
    r"|(?:an?|one)\s+(?:hour|minute)\b|half\s+(?:an?\s+)?(?:hour|minute)\b)"
)
# A point in time as a query or a file writes it; a run of amounts may not stop right before
# a digit ("1h30" is `UNIT_THEN_NUMBER`, not one hour).
TIME = (
    rf"(?:{CLOCK_LIKE}|{UNIT_THEN_NUMBER}|{SPOKEN_AMOUNTS}(?!\d)|{MINUTE_N}|{WORD_AMOUNT})"
)

_AMOUNT_PART = re.compile(rf"({NUM})\s*-?\s*({UNIT})", re.I)
_CLOCK_FIELDS = re.compile(r"(\d+)(?::(\d+))?:(\d+(?:\.\d+)?)")


class TimeError(ValueError):
    """Text that is no time, or a clock time out of range; the message quotes the text, and
    callers add the file, line or query."""


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


def read_clock(token: str) -> float:
    """Seconds of a clock time: `M:SS`, `MM:SS`, `MMM:SS` or `H:MM:SS`, with decimals.

    Raises:
        TimeError: a field after a colon is not two digits, or seconds (or the minutes of
            H:MM:SS) reach 60.

    >>> read_clock("1:02:03.5"), read_clock("75:30"), read_clock("0:00:05.5")
    (3723.5, 4530.0, 5.5)
    >>> read_clock("1:75:00")
    Traceback (most recent call last):
    ...
    longground.timecode.grammar.TimeError: not a valid clock time: '1:75:00' (minutes reach 60)
    """
    text = token.strip()
    match = _CLOCK_FIELDS.fullmatch(text)
    if match is None:
        raise TimeError(f"not a clock time: {text!r}")
    hours, minutes, seconds = match.groups()
    if minutes is None:  # M:SS: minutes may exceed 59
        hours, minutes = None, hours
    if not re.fullmatch(CLOCK, text):
        raise TimeError(f"not a valid clock time: {text!r} (use two digits after each colon)")
    if float(seconds) >= 60:
        raise TimeError(f"not a valid clock time: {text!r} (seconds reach 60)")
    if hours is not None and int(minutes) >= 60:
        raise TimeError(f"not a valid clock time: {text!r} (minutes reach 60)")
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)


def clock_s(token: str) -> float | None:
    """`read_clock`, or None for a clock time out of range (for finding times in prose).

    >>> clock_s("1:02:03.5"), clock_s("75:30"), clock_s("1:75:00")
    (3723.5, 4530.0, None)
    """
    try:
        return read_clock(token)
    except TimeError:
        return None


def _word_amount_s(text: str) -> float:
    """Seconds in one `WORD_AMOUNT` ("twenty-five seconds", "half an hour", "an hour")."""
    words = re.findall(r"[a-z]+", text)
    unit = unit_s(words[-1])
    if words[0] == "half":
        return unit / 2
    return unit * (sum(NUMBER_WORDS.get(w, 0) for w in words[:-1]) or 1)


def read_point(text: str, *, bare_number: bool = True) -> float:
    """Seconds of one point in time written alone: a clock time, amounts with units,
    "minute N", or (when `bare_number`) a plain number of seconds.

    Raises:
        TimeError: anything else, or a clock time out of range; never a silent 0.

    >>> read_point("75:30"), read_point("90s"), read_point("1h2m"), read_point("minute 3")
    (4530.0, 90.0, 3720.0, 180.0)
    >>> read_point("12.5"), read_point("1 hour and 5 minutes"), read_point("1 min 30")
    (12.5, 3900.0, 90.0)
    >>> read_point("2m30"), read_point("1h05")
    (150.0, 3900.0)
    >>> read_point("twenty-five seconds"), read_point("an hour"), read_point("half a minute")
    (25.0, 3600.0, 30.0)
    """
    token = text.strip()
    lowered = token.lower()
    if re.fullmatch(CLOCK_LIKE, token):
        return read_clock(token)
    if re.fullmatch(MINUTE_N, lowered):
        return 60.0 * float(lowered.split()[1])
    if re.fullmatch(SPOKEN_AMOUNTS, token, re.I):
        return float(amount_s(token))
    if re.fullmatch(UNIT_THEN_NUMBER, token, re.I):
        big, small = re.findall(r"\d+", token)
        unit = unit_s(re.search(r"[a-z]+", lowered)[0])
        return unit * int(big) + unit / 60 * int(small)
    if re.fullmatch(WORD_AMOUNT, lowered):
        return _word_amount_s(lowered)
    if bare_number and re.fullmatch(NUM, token):
        return float(token)
    raise TimeError(f"not a time: {text!r} (use seconds, MM:SS, HH:MM:SS or amounts like 1h2m)")
