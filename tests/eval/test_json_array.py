"""JSON-array benchmark and prediction files: the same samples as JSONL, the right line in
every error, and one linear pass (issue 11; the old reader counted lines from the start of
the file for every element)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.errors import BadInputFile
from longground.formats import load_predictions, load_samples
from longground.formats.records import json_array_records

GOOD = {"qid": "q1", "video": "v", "duration": 60, "query": "a dog", "intervals": [[1, 2]]}


def _reference_lines(text: str) -> list[int]:
    """The naive reference: the line each top-level element starts on, counted from the
    start of the file for every element (what the quadratic reader did)."""
    decoder, lines, pos = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return lines
        lines.append(text.count("\n", 0, pos) + 1)
        pos = decoder.raw_decode(text, pos)[1]


ROW = st.fixed_dictionaries(
    {
        "duration": st.floats(10, 1000),
        # valid text only: a NUL or a lone surrogate is refused by every reader (test_formats)
        "query": st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1,
                         max_size=12).filter(str.strip),  # fmt: skip
        "intervals": st.lists(st.tuples(st.floats(0, 5), st.floats(5, 10)).map(list), max_size=3),
    }
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.lists(ROW, min_size=1, max_size=8),
    indent=st.sampled_from([None, 0, 1, 3, "\t"]),
    lead=st.sampled_from(["", "\n", " \r\n  "]),
)
def test_array_reads_like_jsonl(tmp_path, rows, indent, lead):
    rows = [{"qid": f"q{i}", "video": "v.mp4", **row} for i, row in enumerate(rows)]
    text = lead + json.dumps(rows, indent=indent) + "\n"
    array = tmp_path / "b.json"
    array.write_text(text)
    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load_samples(array, fmt="canonical") == load_samples(jsonl, fmt="canonical")
    records = list(json_array_records(text, array))
    assert [r.value for r in records] == rows
    assert [r.line for r in records] == _reference_lines(text)


def _array(*rows: dict) -> str:
    return json.dumps(list(rows), indent=2)


BAD_ARRAYS = [
    # each element of _array(GOOD, ...) takes 12 lines: they start on lines 2, 14, 26, 38
    (_array(GOOD, {**GOOD, "qid": "q2", "intervals": [[5, 3]]}),
     "b.json:14: qid q2: end < start in interval [5, 3]"),
    (_array(GOOD, {**GOOD, "qid": "q2"}, {**GOOD, "qid": "q3"}, GOOD),
     "b.json:38: qid q1: duplicated qid (first on line 2)"),
    ('[\n' + json.dumps(GOOD) + ',\n{"qid": "q2", "video": }\n]',
     "b.json:3: malformed JSON (Expecting value)"),
    ('[\n' + json.dumps(GOOD) + ',\n]', "b.json:3: malformed JSON (Expecting value)"),
    ('[\n' + json.dumps(GOOD) + '\n' + json.dumps(GOOD) + ']',
     "b.json:3: malformed JSON (Expecting ',' delimiter)"),
    ('[' + json.dumps(GOOD) + ']\n\n[]', "b.json:3: malformed JSON (Extra data)"),
    ('[' + json.dumps(GOOD), "b.json:1: malformed JSON (Expecting ',' delimiter)"),
    ('[\n' + json.dumps(GOOD) + ',\n  5\n]', "b.json:3: expected a JSON object"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), BAD_ARRAYS)
def test_errors_in_arrays_name_the_line(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    Path("b.json").write_text(text)
    with pytest.raises(BadInputFile) as err:
        load_samples("b.json", fmt="canonical")
    assert str(err.value) == message


def test_prediction_array_matches_jsonl(tmp_path):
    rows = [{"qid": f"q{i}", "intervals": [[i, i + 1.5]], "scores": [0.5]} for i in range(50)]
    (tmp_path / "p.json").write_text(json.dumps(rows, indent=1))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from_array = load_predictions(tmp_path / "p.json")
    assert list(from_array) == list(load_predictions(tmp_path / "p.jsonl"))
    assert len(from_array) == 50


def test_empty_array_and_nested_too_deeply(tmp_path):
    assert list(json_array_records(" [ \n ] \n", tmp_path / "e.json")) == []
    with pytest.raises(BadInputFile, match=r"e\.json:2: malformed JSON \(nested too deeply\)"):
        list(json_array_records("[1,\n" + "[" * 100_000 + "]" * 100_000 + "]", tmp_path / "e.json"))
