"""Times in model answers: the shared grammar (`longground.timecode.grammar`) plus what only
answers allow: a percentage of the video ("10%"), a bare number whose unit comes from the
other side of a range ("2 - 3 minutes"), hedges ("about 5 s"), ordinals ("the 24th second")
and "second N" (like "minute N").
"""

from __future__ import annotations

import re

from ..timecode.grammar import (
    CLOCK,
    MINUTE_N,
    NUM,
    SPOKEN_AMOUNTS,
    UNIT,
    UNIT_THEN_NUMBER,
    amount_s,
    clock_s,
    read_point,
)

# A hedge before a time: "about 5 s", "~00:10", "the 24th second".
HEDGE = r"(?:(?:about|around|approximately|approx\.|roughly|~)\s*)?(?:the\s+)?"
# An ordinal number ("24th"), read as the number: "the 24th second", "the 3rd and 9th seconds".
_ORDINAL = rf"{NUM}(?:st|nd|rd|th)\b(?:\s*{UNIT})?"
# "second 24": a point given by its second, as "minute 12" by its minute.
SECOND_N = rf"second\s+{NUM}"
# One time in an answer: a clock time, amounts ("1h30" too), "minute N", "second N", an
# ordinal, a percentage of the video, or a bare number.
ANSWER_TIME = (
    rf"(?<![\w.:])(?:{CLOCK}|{UNIT_THEN_NUMBER}|{SPOKEN_AMOUNTS}|{MINUTE_N}|{SECOND_N}|"
    rf"{_ORDINAL}|{NUM}\s*%|{NUM})(?![\d:])"
)
_TIME_ALONE = re.compile(rf"\s*{HEDGE}({ANSWER_TIME})\s*", re.I)
_ORDINAL_SUFFIX = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.I)


def token_value(token: str, hint_s: float, duration_s: float | None) -> float | None:
    """Seconds of one `ANSWER_TIME` token; `hint_s` is the unit of a bare number.

    Returns None for an out-of-range clock time or a percentage without `duration_s`.

    >>> token_value("3", 60.0, None), token_value("10%", 1.0, 600.0), token_value("10%", 1.0, None)
    (180.0, 60.0, None)
    >>> token_value("24th second", 1.0, None), token_value("second 9.5", 1.0, None)
    (24.0, 9.5)
    """
    token = _ORDINAL_SUFFIX.sub("", token.strip())
    if ":" in token:
        return clock_s(token)
    if token.lower().startswith(("minute", "second")):
        return {"m": 60.0, "s": 1.0}[token[0].lower()] * float(token.split()[1])
    if re.fullmatch(UNIT_THEN_NUMBER, token, re.I):
        return read_point(token)
    if token.endswith("%"):
        if duration_s is None:
            return None
        return float(token[:-1].strip()) / 100.0 * duration_s
    amount = amount_s(token)
    return float(token) * hint_s if amount is None else amount


def is_explicit(token: str) -> bool:
    """True for a clock time, an amount with a unit, "minute N" or a percentage (not a bare
    number).

    >>> is_explicit("00:12"), is_explicit("12 s"), is_explicit("12%"), is_explicit("12")
    (True, True, True, False)
    >>> is_explicit("second 12"), is_explicit("12th second"), is_explicit("12th")
    (True, True, False)
    """
    if ":" in token or "%" in token or token.strip().lower().startswith(("minute", "second ")):
        return True
    return amount_s(_ORDINAL_SUFFIX.sub("", token)) is not None


def time_value(text: str, duration_s: float | None = None) -> float | None:
    """Seconds for one time written alone (`"01:02"`, `"62 s"`, `"62"`, `"about 62 s"`);
    None otherwise.

    Args:
        text: the time, alone apart from surrounding white space.
        duration_s: the video's length, to resolve a percentage (`"10%"`).

    >>> time_value("1:02:03"), time_value("2 min 5 s"), time_value("12.5s"), time_value("soon")
    (3723.0, 125.0, 12.5, None)
    """
    match = _TIME_ALONE.fullmatch(text)
    if match is None:
        return None
    return token_value(match[1], 1.0, duration_s)
