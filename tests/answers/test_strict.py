"""The JSON-only rule (`parse_strict`) against the lenient reader, case by case."""

from __future__ import annotations

import pytest

from longground.answers import answer_parser, parse_answer, parse_strict
from longground.errors import UserError

FAIL = None
# (answer, strict result, lenient result): spans, [] for "no such event", or FAIL.
CASES = [
    ("[[12, 20], [40, 48]]", [[12, 20], [40, 48]], [[12, 20], [40, 48]]),
    ("  [3.5, 11.9]\n", [[3.5, 11.9]], [[3.5, 11.9]]),
    ("[]", [], []),
    ("```json\n[[0, 5]]\n```", [[0, 5]], [[0, 5]]),
    ("```\n[]\n```", [], []),
    ("The answer is [[12, 20]].", FAIL, [[12, 20]]),
    ("[[12, 20]] because the man opens the door.", FAIL, [[12, 20]]),
    ("<think>hmm</think>[[12, 20]]", FAIL, [[12, 20]]),
    ("12 - 20 seconds", FAIL, [[12, 20]]),
    ("There is no such event.", FAIL, []),
    ('{"start": 12, "end": 20}', FAIL, [[12, 20]]),
    ('[["00:00:12", "00:00:20"]]', FAIL, [[12, 20]]),
    ("[[20, 12]]", FAIL, FAIL),
    ("[[20, 12], [1, 2]]", [[1, 2]], [[1, 2]]),
    ("[[true, 2]]", FAIL, FAIL),
    ("", FAIL, FAIL),
]


@pytest.mark.parametrize(("text", "strict", "lenient"), CASES)
def test_strict_against_lenient(text, strict, lenient):
    for parse, expected in ((parse_strict, strict), (parse_answer, lenient)):
        parsed = parse(text)
        if expected is FAIL:
            assert parsed.moments is None and parsed.error
        else:
            assert parsed.moments is not None, parsed.error
            assert parsed.moments.to_list() == [[float(a), float(b)] for a, b in expected]


def test_reversed_pairs_are_counted():
    assert parse_strict("[[20, 12], [1, 2]]").invalid_intervals == 1


def test_unknown_mode_is_a_user_error():
    with pytest.raises(UserError, match="unknown parse mode 'loose'"):
        answer_parser("loose")
