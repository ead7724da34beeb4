"""Query diversity (`longground stats`): hand-worked cases, the naive reference, the CLI."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longground.cli.main import main
from longground.eval import reference_analysis as ref
from longground.eval.diversity import diversity, mattr, tokenize

KEYS = ["n_queries", "n_tokens", "ttr", "mattr", "distinct_1", "distinct_2", "distinct_3",
        "distinct_4", "unique_bigrams", "unique_stems", "top5_stem_coverage"]  # fmt: skip


def test_tokens_follow_the_fixed_pattern():
    assert tokenize("Man's DOG-runs, 3x_fast o'clock 'quoted'") == [
        "man's", "dog", "runs", "3x", "fast", "o'clock", "quoted"]  # fmt: skip


def test_hand_worked_corpus():
    # q1: the dog runs the race   q2: the dog sits   q3: a cat
    d = diversity(["The dog runs the race.", "the dog sits", "A cat"], window=3)
    assert d.n_queries == 3 and d.n_tokens == 10
    assert d.ttr == pytest.approx(7 / 10)  # the dog runs race sits a cat
    # stream: the dog runs the race the dog sits a cat; 8 windows of 3 tokens:
    # [the dog runs]3 [dog runs the]3 [runs the race]3 [the race the]2 [race the dog]3
    # [the dog sits]3 [dog sits a]3 [sits a cat]3 -> 23 / 24
    assert d.mattr == pytest.approx(23 / 24)
    assert d.distinct_1 == pytest.approx(7 / 10)
    # bigrams: the-dog dog-runs runs-the the-race | the-dog dog-sits | a-cat -> 7, 6 unique
    # ("race the" is NOT a bigram: it would cross the boundary between q1 and q2)
    assert d.unique_bigrams == 6
    assert d.distinct_2 == pytest.approx(6 / 7)
    # trigrams: 3 in q1, 1 in q2, 0 in q3 -> all unique; 4-grams: 2 in q1 only
    assert d.distinct_3 == 1.0 and d.distinct_4 == 1.0
    # stems: (the dog runs the) (the dog sits) (a cat): 3 unique, top 5 cover all queries
    assert d.unique_stems == 3 and d.top5_stem_coverage == 1.0


def test_top5_coverage_counts_queries_of_the_five_most_common_stems():
    queries = ["a b c d e"] * 4 + ["x y z w"] * 3 + [f"q{i}" for i in range(6)]
    d = diversity(queries)
    assert d.unique_stems == 8
    # 4 + 3 + three singletons = 10 of 13 queries
    assert d.top5_stem_coverage == pytest.approx(10 / 13)


def test_empty_and_tokenless_queries_give_zero_ratios():
    d = diversity(["!!!", "--"])
    assert (d.n_tokens, d.ttr, d.mattr, d.distinct_4, d.unique_stems) == (0, 0.0, 0.0, 0.0, 1)


def test_mattr_short_stream_is_ttr():
    assert mattr(["a", "a", "b"], window=50) == pytest.approx(2 / 3)


WORDS = st.sampled_from(["a", "b", "c", "the", "dog", "don't", "1", "X", "!"])
QUERIES = st.lists(st.lists(WORDS, max_size=9).map(" ".join), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(QUERIES, st.integers(1, 12))
def test_matches_the_naive_reference(queries, window):
    fast = diversity(queries, window=window).to_dict()
    slow = ref.diversity(queries, window=window)
    assert list(fast) == KEYS
    for key in KEYS:
        assert fast[key] == pytest.approx(slow[key], abs=1e-12), key
        if isinstance(fast[key], float):
            assert 0.0 <= fast[key] <= 1.0


def test_real_file_matches_reference(shared_data):
    from longground.formats import load_samples

    samples = load_samples(shared_data / "qvhighlights" / "highlight_val_release.jsonl")
    queries = [s.query for s in samples]
    fast, slow = diversity(queries).to_dict(), ref.diversity(queries)
    assert fast == pytest.approx(slow)
    assert fast["n_queries"] == 1550


@pytest.mark.parametrize(
    "path",
    ["qvhighlights/highlight_val_release.jsonl", "charades_sta/charades_sta_test.txt",
     "activitynet_captions/val.json"],
)  # fmt: skip
def test_cli_reads_every_shipped_format(shared_data, capsys, path):
    assert main(["stats", str(shared_data / path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out)[: len(KEYS)] == KEYS
    assert out["n_queries"] == sum(out["length_distribution"]["histogram"].values())


def test_cli_table_and_attribute_counts(tmp_path, capsys):
    gt = tmp_path / "gt.jsonl"
    rows = [
        {"qid": "1", "video": "v", "duration": 60, "query": "A dog", "intervals": [[1, 2]],
         "attributes": ["causal", "dynamic"], "domain": "pets"},
        {"qid": "2", "video": "v", "duration": 60, "query": "a cat", "intervals": [],
         "attributes": ["negative"], "domain": "pets"},
    ]  # fmt: skip
    gt.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["stats", str(gt), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["attribute_counts"] == {"causal": 1, "dynamic": 1, "negative": 1}
    assert out["domain_counts"] == {"pets": 2}
    assert main(["stats", str(gt)]) == 0
    table = capsys.readouterr().out
    assert "distinct_2" in table and "attribute negative" in table


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        ("", "empty"),
        ('{"qid": "1", "video": "v"\n', "cannot tell"),
        (
            '{"qid": "1", "video": "v", "duration": 9, "query": "q", "intervals": [[5, 2]]}\n',
            "gt.jsonl:1: qid 1",
        ),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "gt.jsonl"
    if content is not None:
        path.write_text(content)
    assert main(["stats", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("longground: error:") and message in err
