"""The fast reading path gives what the exact per-interval checks give, or leaves the input
to them: tested against those checks on hostile values."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from longground.answers import moments_from_json
from longground.errors import BadInputFile
from longground.formats.fast_json import clean_pairs, loads
from longground.formats.fields import interval
from longground.formats.records import Where

member = st.one_of(
    st.integers(-5, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.just("12.5"), st.none(), st.integers(10**300, 10**310),
)  # fmt: skip
pair = st.one_of(st.lists(member, min_size=2, max_size=2), st.lists(member, max_size=3))
values = st.one_of(st.lists(pair, max_size=6), st.lists(st.tuples(member, member), max_size=3))


def slow_gt(value):
    where = Where("gt.jsonl", 1)
    try:
        return np.array([interval(v, where) for v in value], dtype=np.float64).reshape(-1, 2)
    except BadInputFile:
        return None


@given(values)
def test_clean_pairs_agrees_with_the_exact_checks(value):
    fast = clean_pairs(value)
    if fast is None:
        return  # the exact checks decide
    np.testing.assert_array_equal(fast, slow_gt(value))
    parsed = moments_from_json(value)
    assert parsed.invalid_intervals == 0 and parsed.moments.scores is None
    np.testing.assert_array_equal(parsed.moments.spans, fast)


@given(st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 1e6)), max_size=20))
def test_clean_pairs_takes_every_clean_list(pairs):
    value = [[min(a, b), max(a, b)] for a, b in pairs]
    fast = clean_pairs(value)
    assert fast is not None and fast.shape == (len(value), 2)


def test_loads_falls_back_to_json_for_what_orjson_refuses():
    assert math.isnan(loads('{"a": NaN}')["a"])
    assert loads('{"a": 123456789012345678901234567890}')["a"] == 123456789012345678901234567890
    assert loads('"\\ud800"') == json.loads('"\\ud800"')
