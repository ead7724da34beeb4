"""The rules of an edit (annotate/changes.py), on their own and under Hypothesis."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.annotate import AnnotatedQuery, AnnotationStore, InvalidEdit
from longground.annotate.changes import apply_change, read_change

QUERY = AnnotatedQuery("q1", "v.mp4", 100.0, "a dog", ((1.0, 2.0),), ("static",))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    body=st.dictionaries(
        st.sampled_from(["version", "query", "intervals", "attributes", "review", "annotated"]),
        json_values,
    )
)
def test_any_body_is_either_a_change_or_an_invalid_edit(body):
    try:
        change = read_change(body)
    except InvalidEdit as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    try:
        updated = apply_change(QUERY, change, 100.0)
    except InvalidEdit:
        return
    assert all(
        math.isfinite(s) and math.isfinite(e) and 0 <= s < e <= 100.0 + 1e-6
        for s, e in updated.intervals
    )


spans = st.lists(
    st.tuples(st.floats(0, 1e5, allow_nan=False), st.floats(1e-3, 1e3, allow_nan=False))
    .map(lambda p: (p[0], p[0] + p[1]))
    .filter(lambda p: p[1] > p[0]),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(spans=spans)
def test_valid_intervals_are_stored_exactly(tmp_path_factory, spans):
    body = json.loads(json.dumps({"version": 1, "intervals": [list(p) for p in spans]}))
    updated = apply_change(QUERY, read_change(body), 2e5)
    assert updated.intervals == tuple(spans)
    store = AnnotationStore(tmp_path_factory.mktemp("db") / "a.db")
    store.add([QUERY], "x")
    store.update("q1", 1, lambda q: apply_change(q, read_change(body), 2e5), "h")
    assert store.get("q1").intervals == tuple(spans)
    store.close()


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("00:01:15.5", 75.5), ("01:15", 75.0), ("75.5", 75.5), (" 1:02:03 ", 3723.0), (12, 12.0)],
)
def test_times_may_be_typed_as_clock_text_or_seconds(text, seconds):
    change = read_change({"version": 1, "intervals": [[0, text]]})
    assert change.intervals == ((0.0, seconds),)


def test_an_edit_keeps_fields_it_does_not_name():
    updated = apply_change(QUERY, read_change({"version": 1, "review": "verified"}), 100.0)
    assert (updated.query, updated.intervals, updated.attributes) == (
        QUERY.query,
        QUERY.intervals,
        QUERY.attributes,
    )
    assert updated.review == "verified" and not updated.annotated
