"""One grammar of times: benchmark files, model answers and query windows read a time alike,
and each reader either gives a number or says where and why it is no time (never a silent 0).
"""

from __future__ import annotations

import pytest

from longground.answers import text_ranges, time_value
from longground.errors import UserError
from longground.formats.fields import seconds
from longground.formats.records import Where
from longground.query.windows import extract_window, time_to_s
from longground.timecode import TimeError, parse_time

ERR = "error"  # a located error (file and line, or the query); for answers: no time (None)
NO = "none"  # not a time in this place: an answer gives None, a query keeps it as text
DURATION_S = 600.0
QUERY_END_S = 20_000.0

# text, then seconds (or ERR/NO) as a benchmark file, a model answer, a query window reads it.
TABLE = [
    ("75:30", 4530.0, 4530.0, 4530.0),
    ("123:45", 7425.0, 7425.0, 7425.0),
    ("1:02:03", 3723.0, 3723.0, 3723.0),
    ("0:00:05.5", 5.5, 5.5, 5.5),
    ("01:15", 75.0, 75.0, 75.0),
    ("1:5", ERR, NO, ERR),
    ("1:75:00", ERR, NO, ERR),
    ("12:60", ERR, NO, ERR),
    ("1:02:3", ERR, NO, ERR),
    ("90s", 90.0, 90.0, 90.0),
    ("90 seconds", 90.0, 90.0, 90.0),
    ("1.5 minutes", 90.0, 90.0, 90.0),
    ("1h2m", 3720.0, 3720.0, 3720.0),
    ("2 min 5 s", 125.0, 125.0, 125.0),
    ("1 hour and 5 minutes", 3900.0, 3900.0, 3900.0),
    ("10-minute", 600.0, 600.0, 600.0),
    ("minute 3", 180.0, 180.0, 180.0),
    ("12.5", 12.5, 12.5, NO),  # a bare number: seconds in files and answers only
    ("10%", ERR, 60.0, NO),  # percentages of the video: answers only
    ("about 90 s", ERR, 90.0, NO),  # hedges: answers only
    ("~01:00", ERR, 60.0, NO),
    ("1h30", 5400.0, 5400.0, 5400.0),  # the smaller unit unsaid: 1 hour 30 minutes
    ("2m30", 150.0, 150.0, 150.0),
    ("1h75", ERR, NO, NO),
    ("soon", ERR, NO, NO),
    ("-5", ERR, NO, NO),
]


@pytest.mark.parametrize(("text", "in_file", "in_answer", "in_query"), TABLE)
def test_one_time_grammar(text, in_file, in_answer, in_query):
    where = Where("gt.jsonl", 3)
    if in_file == ERR:
        with pytest.raises(UserError, match=r"^gt\.jsonl:3: start "):
            seconds(text, "start", where)
        with pytest.raises(TimeError, match="not a"):
            parse_time(text)
    else:
        assert seconds(text, "start", where) == parse_time(text) == in_file

    assert time_value(text, DURATION_S) == (None if in_answer == NO else in_answer)
    if in_answer != NO:  # the same time as a side of a range in prose
        assert text_ranges(f"from {text} to 9999 s", DURATION_S)[0] == [(in_answer, 9999.0)]

    query = f"a cat after {text}"
    if in_query == ERR:
        with pytest.raises(UserError, match=rf"^query {query!r}: not a valid clock time"):
            extract_window(query, QUERY_END_S)
        with pytest.raises(TimeError):
            time_to_s(text)
    elif in_query == NO:
        assert extract_window(query, QUERY_END_S) == (None, query)
    else:
        assert extract_window(query, QUERY_END_S)[0] == (in_query, QUERY_END_S)
        assert time_to_s(text) == in_query
