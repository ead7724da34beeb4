"""The hand-labelled query set data/queries/real_queries.jsonl: well formed, the sampled
queries really drawn from the annotation files in data/, and the agreement script that reads
it (perf/query_agreement.py)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from longground.formats import load_samples
from tests.support.perf_scripts import perf_script

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "data/queries/real_queries.jsonl"
SOURCES = {
    "charades-sta": "data/charades_sta/charades_sta_test.txt",
    "qvhighlights": "data/qvhighlights/highlight_val_release.jsonl",
    "activitynet-captions": "data/activitynet_captions/val.json",
}
CHANNELS = {"people", "speech", "text", "visual"}
RELATIONS = {"after", "before", "while", "until"}
KEYS = ["source", "id", "query", "channel", "target"]


@pytest.fixture(scope="module")
def rows():
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines()]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def test_every_row_is_well_formed(rows):
    for row in rows:
        where = row.get("id")
        assert list(row)[:5] == KEYS, where
        assert set(row) <= {*KEYS, "relation", "conditions", "made_up"}, where
        assert row["channel"] in CHANNELS, where
        assert isinstance(row["target"], str) and row["target"].strip() == row["target"] != ""
        assert ("relation" in row) == ("conditions" in row), where
        if "relation" in row:
            assert row["relation"] in RELATIONS, where
            assert row["conditions"] and all(isinstance(c, str) and c for c in row["conditions"])
        query = set(words(row["query"]))
        for part in [row["target"], *row.get("conditions", [])]:
            assert set(words(part)) <= query, (where, part)  # taken from the query's words
    assert len({(r["source"], r["id"]) for r in rows}) == len(rows)


def test_sizes_and_sources(rows):
    sampled = [r for r in rows if not r.get("made_up")]
    made_up = [r for r in rows if r.get("made_up")]
    assert len(sampled) >= 300 and len(made_up) >= 60
    assert all(r["made_up"] is True and r["source"] == "made-up" for r in made_up)
    for source in SOURCES:
        assert sum(r["source"] == source for r in sampled) >= 100
    assert {r["channel"] for r in made_up} == CHANNELS
    assert {r.get("relation") for r in made_up} >= RELATIONS


def test_sampled_queries_are_the_seeded_draw_from_the_files(rows):
    """Each sampled row is a query of its file, word for word, and the rows are exactly what
    perf/real_query_sample.py draws (seeded, stratified by word count)."""
    sampled = [r for r in rows if not r.get("made_up")]
    for source, path in SOURCES.items():
        queries = {s.qid: " ".join(s.query.split()) for s in load_samples(ROOT / path)}
        for row in (r for r in sampled if r["source"] == source):
            assert queries[row["id"]] == row["query"], row["id"]
    sample = perf_script("real_query_sample")
    drawn = []
    rng = sample.np.random.default_rng(sample.SEED)
    for source, path in sample.SOURCES.items():
        drawn += [(source, qid, q) for qid, q in sample.sample_source(ROOT / path, rng)]
    assert [(r["source"], r["id"], r["query"]) for r in sampled] == drawn


# --- the agreement script --------------------------------------------------------------------


@pytest.fixture(scope="module")
def agreement():
    return perf_script("query_agreement")


def test_content_words_drop_function_words_and_plurals(agreement):
    cw = agreement.content_words
    assert cw("A person opens the doors.") == cw("person open door") == {"person", "open", "door"}
    assert cw("the glass") == {"glass"} and cw("The kitty's bus") == {"kitty", "bus"}
    assert cw("then she walks off") == {"walk"}
    assert cw("a cat") != cw("a dog")


FAKE = """
from types import SimpleNamespace as N
import json
LABELS = {r["query"]: r for r in map(json.loads, open(%r, encoding="utf-8"))}
def echo(query):
    r = LABELS[query]
    return N(target=N(text=r["target"].upper(), route=N(channel=r["channel"])))
def visual(query):
    return N(target=N(text=query, route=N(channel="frames")))
def broken(query):
    return N(text=query)
"""


def run(agreement, capsys, *args) -> tuple[int, str, str]:
    code = agreement.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_agreement_counts_channels_and_targets(agreement, capsys, tmp_path, monkeypatch):
    (tmp_path / "fake_analysis.py").write_text(FAKE % str(FILE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, _ = run(agreement, capsys, "--analyse", "fake_analysis:echo", "--summary")
    assert code == 0 and re.search(r"^all\s+\d+\s+100\.0%\s+100\.0%$", out, re.M), out
    code, out, _ = run(agreement, capsys, "--analyse", "fake_analysis:visual")
    assert code == 0
    rows = [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines()]
    share = sum(r["channel"] == "visual" for r in rows) / len(rows)
    assert re.search(rf"^all\s+{len(rows)}\s+{share:.1%}\s", out, re.M), out
    assert "disagreements (label | analysis):" in out and "made-up-005" in out
    sys.modules.pop("fake_analysis", None)


@pytest.mark.parametrize(
    "analyse, message",
    [
        ("longground.no_such_module:analyse", "cannot import longground.no_such_module"),
        ("json:no_such_function", "json has no function 'no_such_function'"),
        ("fake_analysis:broken", "lacks .target.text/.target.route.channel"),
    ],
)
def test_an_unusable_analysis_is_one_line_and_exit_2(
    agreement, capsys, tmp_path, monkeypatch, analyse, message
):
    (tmp_path / "fake_analysis.py").write_text(FAKE % str(FILE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(agreement, capsys, "--analyse", analyse)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    sys.modules.pop("fake_analysis", None)
