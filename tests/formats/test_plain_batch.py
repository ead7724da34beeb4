"""Reading canonical files a batch at a time gives exactly what reading them record by
record gives: the same samples and predictions to the bit, or the same error, on generated
files with hostile lines and values among plain ones."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.errors import UserError
from longground.formats import canonical, fields, load_predictions, load_samples
from longground.formats.fast_json import clean_pair_lists, clean_pairs

number = st.one_of(
    st.floats(0, 1e5), st.integers(0, 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 5), st.just(10**400), st.just(10**301), st.just(2**53 + 1),
)  # fmt: skip
hostile = st.sampled_from([True, None, "12.5", "01:15", "x", [], {}, [1, 2]])
clean_pair = st.tuples(st.floats(0, 1e4), st.floats(0, 1e4)).map(lambda p: sorted(p))
any_pair = st.one_of(
    st.lists(st.one_of(number, hostile), min_size=2, max_size=2),
    st.lists(number, max_size=3),
)
pair_list = st.one_of(
    st.lists(clean_pair, max_size=5),  # mostly plain
    st.lists(clean_pair, max_size=5),
    st.lists(st.one_of(clean_pair, any_pair), max_size=4),
    hostile,
)
text = st.one_of(
    st.sampled_from(["v.mp4", "a dog", "é ü", " padded "]),
    st.sampled_from(["", "  ", 12, True, None, "a\ud800", "a\x00b", 2.5]),
)
qid = st.one_of(
    st.integers(0, 40).map(lambda i: f"q{i}"),
    st.sampled_from([" q1 ", "", " ", 7, 3.0, True, None, "q\x00", [1]]),
)
duration = st.one_of(
    st.floats(1, 7200), st.integers(1, 7200),
    st.sampled_from([0, -1, 1e300, 1e301, 10**400, 10**300 + 1, "01:15", "60", True, None,
                     math.nan, math.inf]),
)  # fmt: skip
attributes = st.sampled_from(
    [None, "", [], ["static"], ["negative"], ["Static", "causal"], "static,causal",
     ["funny"], [1], "funny", 3, [["static"]]]
)  # fmt: skip
OPTIONAL = object()


@st.composite
def sample_line(draw) -> str:
    """One line of a benchmark file: mostly a plain record, sometimes anything."""
    kind = draw(st.integers(0, 40))
    if kind == 0:
        return draw(st.sampled_from(['{"qid": "q9", "intervals": [[1, 2]', "not json", "[1]"]))
    record = {}
    for key, values in (("qid", qid), ("video", text), ("duration", duration),
                        ("query", text), ("intervals", pair_list)):  # fmt: skip
        if draw(st.integers(0, 30)):  # a field is sometimes missing
            record[key] = draw(values)
    for key, values in (("attributes", attributes), ("domain", st.sampled_from(["s", None, 3]))):
        if draw(st.booleans()):
            record[key] = draw(values)
    return json.dumps(record)


@st.composite
def prediction_line(draw) -> str:
    """One line of a prediction file: mostly a plain answer, sometimes anything."""
    kind = draw(st.integers(0, 40))
    if kind == 0:
        return draw(st.sampled_from(['{"qid": "q9", "intervals": [[1, 2]', "not json", "[1]"]))
    record = {"qid": draw(qid)} if draw(st.integers(0, 30)) else {}
    record["intervals"] = draw(st.one_of(pair_list, st.none()))
    optional = {
        "scores": st.one_of(st.none(), st.lists(st.floats(0, 1), max_size=5)),
        "response": st.sampled_from(["from 1 to 2 s", '{"intervals": [[1, 2]]}', 5, None]),
        "invalid_intervals": st.sampled_from([2, 0, -1, True, "3"]),
        "parse_error": st.sampled_from(["bad", None]),
        "ms": st.integers(0, 9),
    }
    for key, values in optional.items():
        if draw(st.integers(0, 3)) == 0:
            record[key] = draw(values)
    if isinstance(record["intervals"], list) and draw(st.integers(0, 3)) == 0:
        size = len(record["intervals"])
        record["scores"] = draw(st.lists(st.floats(0, 1), min_size=size, max_size=size))
    return json.dumps(record)


def read_both(reader, lines: list[str], batch: int, layout: str = "jsonl"):
    """`reader(path)` through the batch path and through the record-by-record path, the
    lines written as JSON Lines or as a JSON array (one element a line); each result as
    comparable data, or the error's text."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"file.{'json' if layout == 'array' else 'jsonl'}"
        text = "\n".join(lines) if layout == "jsonl" else "[\n" + ",\n".join(lines) + "\n]"
        path.write_text(text + "\n", encoding="utf-8")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(fields, "_BATCH", batch)
            fast = _outcome(reader, path)
            patch.setattr(fields, "clean_pair_lists", lambda values: [None] * len(values))
            patch.setattr(canonical, "plain_samples", lambda batch: None)
            patch.setattr(canonical, "plain_predictions", lambda batch, **_: None)
            slow = _outcome(reader, path)
    return fast, slow


def _outcome(reader, path):
    try:
        return reader(path)
    except UserError as exc:
        return f"{type(exc).__name__}: {exc}"


def _spans(moments) -> tuple | None:
    if moments is None:
        return None
    spans = moments.spans
    scores = None if moments.scores is None else moments.scores.tobytes()
    return spans.dtype.str, spans.shape, spans.tobytes(), scores


def samples_of(path):
    return [
        (s.qid, s.video, s.duration_s, s.query, _spans(s.gt), s.attributes, s.domain)
        for s in load_samples(path, fmt="canonical")
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(sample_line(), min_size=1, max_size=12),
    st.sampled_from([2, 1024]),
    st.sampled_from(["jsonl", "array"]),
)
def test_benchmark_batches_read_as_records_do(lines, batch, layout):
    fast, slow = read_both(samples_of, lines, batch, layout)
    assert fast == slow


def test_in_an_array_the_first_bad_record_is_reported_before_a_later_syntax_error(tmp_path):
    path = tmp_path / "gt.json"
    good = {"qid": "q1", "video": "v", "duration": 60, "query": "a", "intervals": [[1, 2]]}
    bad = {**good, "qid": "q2", "duration": -1}
    path.write_text(f"[\n{json.dumps(good)},\n{json.dumps(bad)},\n{{nope\n]\n")
    with pytest.raises(UserError, match=r"gt.json:3: qid q2: negative duration"):
        load_samples(path, fmt="canonical")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(prediction_line(), min_size=1, max_size=12),
    st.sampled_from([2, 1024]),
    st.sampled_from([None, "lenient", "strict"]),
)
def test_prediction_batches_read_as_records_do(lines, batch, parse):
    def predictions_of(path):
        preds = load_predictions(path, fmt="canonical", parse=parse)
        rows = [
            (p.qid, _spans(p.moments), p.raw, p.parse_error, p.invalid_intervals, p.extra)
            for p in preds
        ]
        return rows, preds.skipped, preds.duplicates

    fast, slow = read_both(predictions_of, lines, batch)
    assert fast == slow


@given(st.lists(st.one_of(pair_list, st.none(), st.just("x")), max_size=8))
def test_clean_pair_lists_is_clean_pairs_item_by_item_or_the_exact_value(values):
    bulk = clean_pair_lists(values)
    assert len(bulk) == len(values)
    for value, spans in zip(values, bulk, strict=True):
        one = clean_pairs(value)
        if spans is None:
            assert one is None
        elif one is not None:
            np.testing.assert_array_equal(spans, one)
        else:  # e.g. an integer and a float that compare unequal but convert equal
            exact = fields.intervals(value, fields.Where(Path("x"), 1))
            assert spans.tobytes() == exact.tobytes()


def test_a_plain_file_takes_the_batch_path(tmp_path, monkeypatch):
    """The equality tests above would pass with a batch path that never runs."""
    path = tmp_path / "gt.jsonl"
    rows = [{"qid": f"q{i}", "video": "v", "duration": 60, "query": "a", "intervals": [[1, 2]]}
            for i in range(3)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    calls = []
    monkeypatch.setattr(canonical, "sample_from_record", lambda *a, **k: calls.append(a))
    assert [s.qid for s in load_samples(path, fmt="canonical")] == ["q0", "q1", "q2"]
    assert calls == []
