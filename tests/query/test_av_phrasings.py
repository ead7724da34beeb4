"""The hand-written phrasings of the audio-visual benchmark's queries
(`data/queries/av_phrasings.json`) and `perf/av_wordings.py`, which asks a benchmark in them."""

from __future__ import annotations

import json
import re
import string

import pytest

from longground.query import analyse
from tests.support.perf_scripts import perf_script

av_wordings = perf_script("av_wordings")
SETS = json.loads(av_wordings.PHRASINGS.read_text(encoding="utf-8"))
FIELDS = {"say": {"w"}, "slide": {"t"}, "caption": {"c"}, "score": {"x", "y"},
          "person": set(), "face": set()}  # fmt: skip


def test_each_set_words_every_kind_with_its_own_fields():
    assert list(SETS) == list("ABCDEFGHI")
    for name, kinds in SETS.items():
        assert set(kinds) == set(FIELDS), name
        for kind, forms in kinds.items():
            assert forms, (name, kind)
            for form in forms:
                used = {f for _, f, _, _ in string.Formatter().parse(form) if f}
                assert used == FIELDS[kind], (name, form)


def test_no_phrasing_is_in_two_sets():
    """Each set was written before its own first run: a phrasing shared with an earlier set
    would make a held-out figure partly a tuning one."""
    seen: dict[str, str] = {}
    for name, kinds in SETS.items():
        for forms in kinds.values():
            for form in forms:
                assert form not in seen, f"{form!r} in {seen.get(form)} and {name}"
                seen[form] = name


# Every phrasing of every set, with words the benchmark does not use, is read for its
# channel and its words (the benchmark's scores: docs/find.md).
_WORDS = {"w": "refunds", "t": "Road Map", "c": "SALE", "x": "3", "y": "2"}
_EXPECTED = {"say": ("speech", "refunds"), "slide": ("text", "road map"),
             "caption": ("text", "sale"), "score": ("text", "3-2"),
             "person": ("people", "person"), "face": ("people", "face")}  # fmt: skip


@pytest.mark.parametrize(
    ("form", "kind"),
    [(form, kind) for kinds in SETS.values() for kind, forms in kinds.items() for form in forms],
)
def test_every_phrasing_reaches_its_channel_and_words(form, kind):
    analysis = analyse(form.format(**_WORDS))
    route, channel, needle = analysis.target.route, *_EXPECTED[kind]
    assert (route.channel, route.needle) == (channel, needle) or any(
        needle in a.lower() for a in analysis.alternatives  # said or written: both asked
    )


def test_a_benchmark_is_asked_twice_per_query(tmp_path):
    bench = tmp_path / "benchmark.jsonl"
    rows = [
        {"qid": "av000_say_budget", "query": "someone says budget", "wording": 0},
        {"qid": "av000_say_budget_w1", "query": "the word budget", "wording": 1},
        {"qid": "av000_score_2-1", "query": "the score is 2-1", "wording": 0},
    ]
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "wordA.jsonl"
    assert av_wordings.main([str(bench), "A", "-o", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["qid"] for r in written] == [
        "av000_say_budget_A1", "av000_say_budget_A2", "av000_score_2-1_A1", "av000_score_2-1_A2"]
    assert all(re.search(r"budget|2 ?- ?1|2 to 1", r["query"]) for r in written)
    assert av_wordings.main([str(bench), "A", "-o", str(out)]) == 2  # never overwritten
    assert av_wordings.main([str(bench), "Z", "-o", str(tmp_path / "z.jsonl")]) == 2
    assert av_wordings.main([str(bench), "A", "-o", str(tmp_path / "no" / "w.jsonl")]) == 2
