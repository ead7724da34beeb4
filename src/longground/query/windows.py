"""Explicit time windows in queries ("between 00:16:00 and 00:34:00", "in the last 5 minutes").

A window phrase is found, turned into `[start_s, end_s]` for a video of known duration, and cut
out of the query, so the rest can be parsed as events. Several phrases intersect. The grammar
is summed up in docs/agent.md ("Step 1") and written out in docs/notes/agent-log.md
("Grammar").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import UserError
from ..timecode.grammar import NUM, NUMBER_WORDS, TIME, UNIT, WORD_NUMBER, read_point, unit_s

_MARK = r"(?:\s*(?:-\s*)?mark)?"
# A clock time with two-digit fields ("2:00", "1:02:30"; a score such as "1:0" is none).
_CLOCK = r"\d+:\d\d(?::\d\d)?"
_THE = r"(?:the\s+)?"
# A half more, as people say it: "two and a half minutes", "1 and a half minute", "a minute and
# a half", "an hour and a half", "the first minute and a half" (only query windows read it).
_HALF_UNIT = r"(?<![a-z])(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
_COUNT = rf"(?:{NUM}|an?|(?:{WORD_NUMBER})(?:[\s-]+(?:{WORD_NUMBER}))?)"
_AND_A_HALF = (
    rf"(?:{_COUNT}\s+and\s+a\s+half\s*-?\s*{_HALF_UNIT}"
    rf"|(?:{_COUNT}\s*-?\s*)?{_HALF_UNIT}\s+and\s+a\s+half\b)"
)
# A point in time in a query: the shared grammar's, and a half more.
_TIME = rf"(?:{_AND_A_HALF}|{TIME})"
# Words that hedge a time point before it ("at about 2:00", "approx. 2 minutes in", "~2:00",
# "@ 1:30"; they stack: "at roughly"), and after it ("1:30ish", "2:00 or so").
_HEDGE = r"(?:\b(?:at|around|near|about|approximately|approx\.?|roughly|circa)\s+|[@~]\s*)"
_ROUGHLY = r"(?:\s*-?\s*ish\b|\s+or\s+so\b)*"
# Words that bound a window at a time ("after 2:00", "prior to 2:00"); "no" or "not" turns
# "before", "after" and their comparatives round ("no earlier than 2:00" is from 2:00 on).
_LATER = r"after|later\s+than"
_EARLIER = r"before|earlier\s+than|sooner\s+than"
_SAID = r"(?<!\bno\s)(?<!\bnot\s)"
_NOT = r"\b(?:no|not)\s+"
# "starting at 2:40", "beginning from minute 3", "ending at 5:20": an open end said by a verb
_FROM_WORDS = (rf"(?:{_NOT}(?:{_EARLIER})|\b(?:(?:starting|beginning)\s+(?:at|from)|from|since|"
               rf"past|beyond|{_SAID}(?:{_LATER})))")
_UNTIL_WORDS = (
    rf"(?:{_NOT}(?:{_LATER})|\b(?:(?:ending|stopping)\s+at|until|till|up\s+to|up\s+until|by|"
    rf"prior\s+to|{_SAID}(?:{_EARLIER})))"
)
# "the 3rd minute": the 60 s that end at minute 3, as "in minute 3" says.
_NTH = r"(\d+)(?:st|nd|rd|th)"
#: Seconds either side of a time point ("the car at 2:15", "around the 5 minute mark"): people
#: give the time of a moment roughly, and the moment itself lasts a while.
AROUND_S = 30.0
#: The share of the video that "at the beginning" and "towards the end" name.
EDGE_SHARE = 0.2
#: How many units "a few" is: "the first few seconds" are 5 s, "the last few minutes" 5 min.
FEW = 5
# A length after "first" or "last": a time, "few" units, or one unit ("the last minute").
# ("the first second" is left alone: "the last second" may be an ordinal).
_LENGTH = rf"({_TIME}|(?:few\s+)?(?:seconds|minutes|hours)\b|(?:minute|hour)\b)"


def time_to_s(text: str) -> float:
    """Seconds in a time phrase of a query: clock times, amounts with units, "minute N"
    (`longground.timecode.grammar`; a bare number is no time in a query).

    Raises:
        TimeError: (a `ValueError`) for a clock time out of range ("1:75:00") or anything
            that is not a time.

    >>> time_to_s("1:05:00"), time_to_s("1 hour 5 minutes"), time_to_s("minute 12")
    (3900.0, 3900.0, 720.0)
    >>> time_to_s("a minute and a half"), time_to_s("2 and a half minutes")
    (90.0, 150.0)
    """
    if re.fullmatch(_AND_A_HALF, text.strip(), re.I):
        return _and_a_half_s(text)
    return read_point(text, bare_number=False)


def _and_a_half_s(text: str) -> float:
    """Seconds in `_AND_A_HALF`: its count and a half, of its unit.

    >>> _and_a_half_s("two and a half minutes"), _and_a_half_s("an hour and a half")
    (150.0, 5400.0)
    """
    lowered = text.lower()
    unit = re.search(_HALF_UNIT, lowered)
    count = re.sub(r"\band\s+a\s+half\b", " ", lowered[: unit.start()]).strip(" -")
    if re.fullmatch(NUM, count):
        number = float(count)
    else:  # words: "twenty five", "an", "one"
        number = sum(NUMBER_WORDS.get(w, 0) for w in re.findall(r"[a-z]+", count)) or 1
    return (number + 0.5) * unit_s(unit[0])


def _length_s(text: str) -> float:
    """Seconds in `_LENGTH`: a time, "few seconds" (`FEW` of them) or one unit ("minute")."""
    words = text.lower().split()
    if words[0] in ("few", "seconds", "minute", "minutes", "hour", "hours") and not re.fullmatch(
        _AND_A_HALF, text, re.I
    ):
        return (FEW if words[-1].endswith("s") else 1) * unit_s(words[-1])
    return time_to_s(text)


def _edge(which: str, length_s: float, duration_s: float) -> tuple[float, float]:
    """The first or last `length_s` of the video."""
    first = which.lower() in ("first", "opening", "initial")
    return (0.0, length_s) if first else (duration_s - length_s, duration_s)


def _minutes(first: str, last: str) -> tuple[float, float]:
    """Minutes `first` to `last` of the video, both whole ("the 3rd minute" is 120-180 s)."""
    return 60.0 * (int(first) - 1), 60.0 * int(last)


def _halves(which: str, duration_s: float) -> tuple[float, float]:
    half = duration_s / 2
    return (0.0, half) if which == "first" else (half, duration_s)


_PARTS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5}
_PART_ORDER = {"first": 1, "opening": 1, "second": 2, "third": 3, "fourth": 4}


def _part(which: str, part: str, duration_s: float) -> tuple[float, float]:
    """"The first quarter", "the last third", "the second half": that share of the video.

    >>> _part("last", "third", 600), _part("second", "quarter", 600)
    ((400.0, 600.0), (150.0, 300.0))
    """
    n = _PARTS[part.lower()]
    k = _PART_ORDER.get(which.lower(), n)  # "last", "final", "closing": the n-th of n
    k = min(k, n)
    return (k - 1) / n * duration_s, k / n * duration_s


# (pattern, window builder(match, duration_s)); tried in this order, each may match once.
_RULES: list[tuple[re.Pattern, Callable[[re.Match, float], tuple[float, float]]]] = [
    (
        re.compile(
            rf"\b(?:between|from|(?:looking\s+)?only\s+at)\s+{_THE}({_TIME}){_MARK}"
            r"(?:\s+(?:and|to|until|till|through)\s+|\s*[-–]\s*)"
            rf"{_THE}({_TIME}){_MARK}",
            re.I,
        ),
        lambda m, d: (time_to_s(m[1]), time_to_s(m[2])),
    ),
    (  # a bare clock range, as people jot it: "2:00-3:00 a cat", "a cat 1:30 to 2:45"
        re.compile(rf"(?<![\w:.])({_CLOCK})\s*(?:-|–|to)\s*({_CLOCK})(?![\w:])", re.I),
        lambda m, d: (time_to_s(m[1]), time_to_s(m[2])),
    ),
    (  # one unit for both ends: "between 2 and 3 minutes", "from 1 to 2 min", "2-3 min"
        # "between the 2 and 5 minute marks"
        re.compile(rf"(?<![\w:.])(?:(?:between|from)\s+(?:the\s+)?)?({NUM})\s*(?:and|to|-|–)\s*"
                   rf"(?:the\s+)?({NUM})\s*({UNIT})(?:\s*-?\s*marks?\b)?", re.I),
        lambda m, d: (float(m[1]) * unit_s(m[3]), float(m[2]) * unit_s(m[3])),
    ),
    (  # "in minute 5", "during the 3rd minute": that minute of the video
        re.compile(rf"\b(?:in|during|within)\s+(?:minute\s+(\d+)|the\s+{_NTH}\s+minute)\b", re.I),
        lambda m, d: _minutes(m[1] or m[2], m[1] or m[2]),
    ),
    (  # "between the 3rd and 5th minute", "from minutes 3 to 5": those minutes, both whole
        re.compile(rf"\b(?:between|from|in|during|within)\s+(?:the\s+{_NTH}(?:\s+minute)?\s+"
                   rf"(?:and|to|through)\s+"
                   rf"(?:the\s+)?{_NTH}\s+minutes?|minutes\s+(\d+)\s*(?:and|to|through|-|–)\s*"
                   r"(\d+))\b", re.I),
        lambda m, d: _minutes(m[1] or m[3], m[2] or m[4]),
    ),
    (  # "after the first minute", "past the opening 30 seconds": the rest of the video
        re.compile(rf"\b(?:after|past|beyond)\s+the\s+(?:first|opening|initial)\s+{_LENGTH}", re.I),
        lambda m, d: (_length_s(m[1]), d),
    ),
    (  # "before the last minute": all but its end
        re.compile(rf"\b(?:before|until|prior\s+to)\s+the\s+(?:last|final|closing)\s+{_LENGTH}",
                   re.I),
        lambda m, d: (0.0, d - _length_s(m[1])),
    ),
    (  # "in the first 5 minutes", "first 30 seconds", "the opening minute", "the last few seconds"
        re.compile(rf"(?:\b(?:in|during|within|over|for)\s+)?\b(?:the\s+)?(?:very\s+)?"
                   rf"(first|opening|initial|last|final|closing)\s+{_LENGTH}", re.I),
        lambda m, d: _edge(m[1], _length_s(m[2]), d),
    ),
    (  # "at the beginning", "towards the end", "near the start of the video"
        re.compile(r"\b(?:at|in|near|towards?|around|by)\s+the\s+(?:very\s+)?"
                   r"(beginning|start|end|ending)\b"
                   # not a place: "the cat at the end of the table"
                   r"(?!\s+of\s+(?!(?:the|this)\s+(?:video|clip|footage|recording)\b))", re.I),
        lambda m, d: _edge("first" if m[1].lower() in ("beginning", "start") else "last",
                           EDGE_SHARE * d, d),
    ),
    (  # "the last 10 percent", "in the first 25%"
        re.compile(r"(?:\b(?:in|during|within|over)\s+)?\b(?:the\s+)?(first|opening|initial|last|"
                   r"final|closing)\s+(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)", re.I),
        lambda m, d: _edge(m[1], min(float(m[2]), 100.0) / 100 * d, d),
    ),
    (  # "after the halfway point", "before the midway mark": the second or first half
        re.compile(rf"(?:({_FROM_WORDS})|{_UNTIL_WORDS})\s+(?:the\s+)?(?:halfway|midway)"
                   r"(?:\s+(?:point|mark))?\b", re.I),
        lambda m, d: _halves("second" if m[1] else "first", d),
    ),
    (  # "halfway through", "in the middle of the video": the middle `EDGE_SHARE` of it ("the
        # cat in the middle" is a place in the frame)
        re.compile(r"\b(?:(?:at|around|near)\s+)?(?:the\s+)?(?:halfway|midway)(?:\s+(?:through"
                   r"(?!\s+the\b)|point|mark|in))?\b|\b(?:in|around|near|towards?)\s+the\s+"
                   r"(?:very\s+)?middle(?=\s+of\s+(?:the|this)\s+(?:video|clip|footage|recording)\b)",
                   re.I),
        lambda m, d: ((1 - EDGE_SHARE) / 2 * d, (1 + EDGE_SHARE) / 2 * d),
    ),
    (  # "in the first quarter", "the last third of the video", "during the second half": that
        # share, said as a time ("in", "during") or of the video, and a share other than a half
        # with nothing after it ("the third quarter results" are no time)
        re.compile(r"(?:\b(?:in|during|within|over)\s+the\s+(first|second|third|fourth|last|final|"
                   r"opening|closing)\s+(half|third|quarter|fifth)(?:(?<=half)|(?=\s*(?:,|$|of\s)))"
                   r"|\bthe\s+"
                   r"(first|second|third|fourth|last|final|opening|closing)\s+(half|third|quarter|"
                   r"fifth)(?=\s+of\s+(?:the|this)\s+(?:video|clip|footage|recording|film|movie|"
                   r"match|game)\b))", re.I),
        lambda m, d: _part(m[1] or m[3], m[2] or m[4], d),
    ),
    (  # "half time" is the middle of the video: the break of a match in two halves
        re.compile(rf"(?:({_FROM_WORDS})|{_UNTIL_WORDS})\s+(?:the\s+)?half[\s-]?time\b", re.I),
        lambda m, d: _halves("second" if m[1] else "first", d),
    ),
    (
        re.compile(
            rf"{_FROM_WORDS}\s+{_THE}({_TIME}){_MARK}{_ROUGHLY}"
            r"(?:\s+(?:onwards?|on)\b|\s+(?:until|till|to)\s+the\s+end\b)?",
            re.I,
        ),
        lambda m, d: (time_to_s(m[1]), d),
    ),
    (
        re.compile(
            rf"{_UNTIL_WORDS}\s+{_THE}({_TIME}){_MARK}{_ROUGHLY}", re.I
        ),
        lambda m, d: (0.0, time_to_s(m[1])),
    ),
    (  # "at 1:30 and later", "2:00 onwards", "1:30 or earlier": from or until that time
        re.compile(rf"(?<!\w){_HEDGE}*{_THE}({_TIME}){_MARK}{_ROUGHLY}\s+(?:(?:and|or)\s+"
                   r"(?:(later|after(?:wards?)?|beyond|on)|earlier|before)|(onwards?))\b", re.I),
        lambda m, d: (time_to_s(m[1]), d) if m[2] or m[3] else (0.0, time_to_s(m[1])),
    ),
    (  # "2 minutes in", "around 1 minute in", "3 minutes into the video": a time point
        # counted from the start
        re.compile(rf"(?<!\w){_HEDGE}*({_TIME}){_ROUGHLY}\s+(?:in|into\s+(?:the|this)\s+"
                   r"(?:video|clip|footage|recording|film|movie))\b(?=\s*(?:,|$))", re.I),
        lambda m, d: (time_to_s(m[1]) - AROUND_S, time_to_s(m[1]) + AROUND_S),
    ),
    (  # "till the end", "from the start": the whole video, said
        re.compile(r"\b(?:(?:until|till|to)\s+the\s+(?:very\s+)?end|(?:from|since)\s+the\s+"
                   r"(?:very\s+)?(?:start|beginning))(?:\s+of\s+the\s+(?:video|clip))?\b", re.I),
        lambda m, d: (0.0, d),
    ),
    (
        re.compile(
            # not a hedge inside another window: "after about 90 s" is no time point
            r"(?<!after\s)(?<!before\s)(?<!since\s)(?<!until\s)(?<!from\s)"
            rf"{_HEDGE}+{_THE}({_TIME}){_MARK}{_ROUGHLY}",
            re.I,
        ),
        lambda m, d: (time_to_s(m[1]) - AROUND_S, time_to_s(m[1]) + AROUND_S),
    ),
    (  # a clock time jotted first or last: "1:30 the dog", "the dog 01:02:03" (not what is
        # read or heard: "the clock says 3:30")
        re.compile(rf"^[\[(]?({_CLOCK}){_ROUGHLY}\b[\])]?|(?<!\bsays\s)(?<!\bshows\s)"
                   rf"(?<!\breads\s)(?<!\bis\s)(?<=\s)[\[(]?({_CLOCK}){_ROUGHLY}[\])]?$", re.I),
        lambda m, d: (time_to_s(m[1] or m[2]) - AROUND_S, time_to_s(m[1] or m[2]) + AROUND_S),
    ),
]
_LEFTOVER = re.compile(
    r"\s+(?:of|in|through)\s+the\s+(?:video|clip|footage|recording|film|movie|match|game|race|show|"
    r"episode|broadcast|stream|meeting|talk|lecture|interview)\b",
    re.I,
)


# "a dog within 10 seconds after the cat", "less than a minute before the goal": how far in
# time the condition may lie from the target; "of" and "from" say either side ("a dog within
# 10 seconds of a cat": close in time, read as "around the time of").
_REACH = re.compile(
    r"\b(?:within|in\s+under|under|in\s+less\s+than|less\s+than|(?:no|not)\s+more\s+than|"
    rf"at\s+most|up\s+to)\s+(?:the\s+)?({_TIME})\s+(after|before|following|"
    r"(?:(?:on\s+)?either\s+side\s+)?of|(?:away\s+)?from)\b",
    re.I,
)
#: What a reach either side reads as: the "near" relation's own words.
_NEAR_WORDS = "around the time of"


def _seconds_in(words: str, query: str) -> float:
    """`time_to_s(words)`, or a one-line `UserError` naming `query` for an impossible time."""
    try:
        return time_to_s(words)
    except ValueError as exc:
        raise UserError(f"query {query!r}: {exc}") from None


def reach_words(query: str) -> tuple[float | None, str]:
    """`(seconds, the query with "after", "before" or "around the time of" in place of the
    reach)` for a query that says how far apart in time its events may be; `(None, query)`
    otherwise.

    Raises:
        UserError: the reach names an impossible clock time.

    >>> reach_words("a dog within 10 seconds after the cat")
    (10.0, 'a dog after the cat')
    >>> reach_words("a dog within 10 seconds of a cat")
    (10.0, 'a dog around the time of a cat')
    >>> reach_words("the goal less than a minute before the whistle")
    (60.0, 'the goal before the whistle')
    """
    m = _REACH.search(query)
    if m is None:
        return None, query
    seconds = _seconds_in(m[1], query)
    side = m[2] if m[2].lower() in ("after", "before", "following") else _NEAR_WORDS
    return seconds, f"{query[: m.start()]}{side}{query[m.end():]}"


# How long each moment lasts, said of the thing ("dog shots longer than 5 seconds", "the cat
# for at least 10 seconds", "a dog that stays on screen for over a minute", "shots of the cat
# 3 seconds or shorter"), with the words that say it is there before it ("that stays on
# screen", "visible"). Not a reach ("within 10 seconds after") or a window ("for the first 5
# minutes"): a bound comes first, or "longer", "shorter", "lasting", "long" says it.
_SHOWN = (r"(?:,?\s+(?:(?:that|which)\s+)?(?:stays?|remains?|lasts?|lasting|is|are|appears?|"
          r"appearing)?\s*(?:on[\s-]screen|visible|in\s+(?:the\s+)?(?:frame|shot|view))?)?")
_MORE = r"more\s+than|over|at\s+least|longer\s+than|upwards\s+of|no\s+less\s+than"
_LESS = r"less\s+than|under|at\s+most|shorter\s+than|no\s+(?:more|longer)\s+than|up\s+to"
_LASTING = re.compile(
    rf"{_SHOWN}\s+(?:(?:for|lasting|that\s+lasts?)\s+)?(?:(?P<more>{_MORE})|{_LESS})"
    rf"\s+(?P<t>{_TIME})(?:\s+long)?"
    rf"|{_SHOWN}\s+(?:for\s+)?(?P<t2>{_TIME})\s+or\s+(?:(?P<more2>more|longer)|less|shorter)\b",
    re.I,
)
# "for at least" / "lasting" is said of a length; a bare "over 2 minutes" needs "for" or
# "longer" to be one ("a dog over 2 minutes" is left alone).
_SAID_OF_LENGTH = re.compile(r"\b(?:for|lasting|lasts?|longer|shorter|long|or\s+(?:more|less))\b",
                             re.I)


def length_words(query: str) -> tuple[tuple[float, float | None] | None, str]:
    """`((least_s, most_s or None), the query without them)` for a query that bounds how long
    each moment lasts; `(None, query)` otherwise.

    Raises:
        UserError: the bound names an impossible clock time.

    >>> length_words("dog shots longer than 5 seconds")
    ((5.0, None), 'dog shots')
    >>> length_words("a dog that stays on screen for over a minute")
    ((60.0, None), 'a dog')
    >>> length_words("shots of the cat 3 seconds or shorter"), length_words("a dog over 2:00")
    (((0.0, 3.0), 'shots of the cat'), (None, 'a dog over 2:00'))
    """
    m = _LASTING.search(query)
    if m is None or not _SAID_OF_LENGTH.search(m[0]):
        return None, query
    seconds = _seconds_in(m["t"] or m["t2"], query)
    bound = (seconds, None) if m["more"] or m["more2"] else (0.0, seconds)
    return bound, f"{query[: m.start()]}{query[m.end():]}".strip()


def extract_window(query: str, duration_s: float) -> tuple[tuple[float, float] | None, str]:
    """Find the time window a query asks for and cut it out of the text.

    Args:
        query: the user's query.
        duration_s: the video's duration (for "last N minutes", "after T", halves).

    Returns:
        `((start_s, end_s) or None, rest_of_query)`. The window is clipped to
        `[0, duration_s]`; it may be empty (start == end) when it lies outside the video.

    Raises:
        UserError: the window names an impossible clock time ("after 1:75:00").

    >>> extract_window("Between 00:16:00 and 00:34:00, every time a cat appears", 3600)
    ((960.0, 2040.0), 'every time a cat appears')
    >>> extract_window("a rocket in the last 5 minutes", 1200)
    ((900.0, 1200.0), 'a rocket')
    >>> extract_window("the first time the score changes after half time", 1200)
    ((600.0, 1200.0), 'the first time the score changes')
    >>> extract_window("a cat (2:00-3:00)", 1200)
    ((120.0, 180.0), 'a cat')
    >>> extract_window("the car at 2:15", 1200)
    ((105.0, 165.0), 'the car')
    >>> extract_window("a dog, approx 2 min in", 1200), extract_window("a dog at 1:30ish", 1200)
    (((90.0, 150.0), 'a dog'), ((60.0, 120.0), 'a dog'))
    >>> extract_window("a cat no earlier than 2:00", 1200)
    ((120.0, 1200.0), 'a cat')
    >>> extract_window("any dogs between the 3rd and 5th minute", 1200)
    ((120.0, 300.0), 'any dogs')
    >>> extract_window("a rocket after a cat", 1200)
    (None, 'a rocket after a cat')
    """
    window, rest, _ = _cut_windows(query, duration_s)
    return window, rest


def window_words(query: str) -> tuple[str, str]:
    """`(the window phrases, the rest)`: the words of `query` that name a time window (empty
    when none), which `extract_window` reads again once the video's length is known.

    Raises:
        UserError: the window names an impossible clock time ("after 1:75:00").

    >>> window_words("a rocket in the last 5 minutes")
    ('in the last 5 minutes', 'a rocket')
    """
    _, rest, phrases = _cut_windows(query, 1e9)
    return " ".join(phrases), rest


def _cut_windows(query: str, duration_s: float) -> tuple[tuple[float, float] | None, str, list]:
    window: tuple[float, float] | None = None
    rest, phrases = query, []
    for pattern, build in _RULES:
        match = pattern.search(rest)
        if not match:
            continue
        try:
            start_s, end_s = sorted(build(match, duration_s))
        except ValueError as exc:  # an out-of-range clock time
            raise UserError(f"query {query!r}: {exc}") from None
        if window is not None:
            start_s, end_s = max(start_s, window[0]), min(end_s, window[1])
        window = (start_s, end_s)
        tail = _LEFTOVER.match(rest, match.end())
        cut_end = tail.end() if tail else match.end()
        phrases.append(rest[match.start() : cut_end].strip())
        rest = rest[: match.start()] + " " + rest[cut_end:]
    if window is not None:
        start_s = min(max(window[0], 0.0), duration_s)
        window = (float(start_s), float(min(max(window[1], start_s), duration_s)))
    return window, _tidy(rest), phrases


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)  # the brackets a window was cut out of
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    text = re.sub(r"\s{2,}", " ", text)
    return text.strip(" ,;:-").strip()
