"""`format_time`: one way of writing times, rounded half away from zero as people round."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from longground.timecode import format_time


@pytest.mark.parametrize(
    ("seconds", "decimals", "text"),
    [
        (1.25, 1, "00:00:01.3"),  # was 01.2: Python's round() goes to the even digit
        (28.75, 1, "00:00:28.8"),
        (0.15, 1, "00:00:00.2"),  # the float is 0.1499...; people wrote 0.15
        (59.95, 1, "00:01:00.0"),
        (3599.5, 0, "01:00:00"),
        (2.5, 0, "00:00:03"),
        (61.5, 3, "00:01:01.500"),
        (0.0, 1, "00:00:00.0"),
        (-2.0, 1, "00:00:00.0"),
    ],
)
def test_halves_round_away_from_zero(seconds, decimals, text):
    assert format_time(seconds, decimals) == text


@given(st.floats(min_value=0, max_value=1e7, allow_nan=False), st.integers(0, 3))
def test_against_a_naive_decimal_reference(seconds, decimals):
    rounded = Decimal(repr(seconds)).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)
    whole = int(rounded)
    hours, rest = divmod(whole, 3600)
    text = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
    if decimals:
        text += "." + f"{rounded:.{decimals}f}".split(".")[1]
    assert format_time(seconds, decimals) == text
