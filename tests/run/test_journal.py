"""The predictions journal: durable appends, torn-line recovery, fingerprint checks."""

from __future__ import annotations

import json
import os

import pytest

from longground.errors import BadInputFile, UserError
from longground.run.journal import Journal, fingerprint_diff, meta_path, scan

FP = {"method": "retrieval", "fps": 1.0, "params": {"k": "3"}, "llm": None}


def record(qid: str, **extra) -> dict:
    return {"qid": qid, "intervals": [[1.0, 2.0]], **extra}


def test_each_append_is_one_fsynced_line(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    out = tmp_path / "p.jsonl"
    with Journal.open(out, FP) as journal:
        before = len(synced)
        journal.append(record("a"))
        assert out.read_text() == json.dumps(record("a")) + "\n"  # on disk before close
        journal.append(record("b", response="é"))
        assert len(synced) - before == 2
    assert [json.loads(line)["qid"] for line in out.read_text().splitlines()] == ["a", "b"]
    assert json.loads(meta_path(out).read_text())["fingerprint"] == FP


def test_reopening_resumes_and_cuts_a_torn_last_line(tmp_path):
    out = tmp_path / "p.jsonl"
    with Journal.open(out, FP) as journal:
        journal.append(record("a"))
        journal.append(record("b"))
    whole = out.read_bytes()
    out.write_bytes(whole + b'{"qid": "c", "intervals": [[1.0, 2')
    with Journal.open(out, FP) as journal:
        assert set(journal.done) == {"a", "b"} and journal.torn_dropped
        assert out.read_bytes() == whole
        journal.append(record("c"))
    assert [r["qid"] for r in map(json.loads, out.read_text().splitlines())] == ["a", "b", "c"]


def test_a_complete_record_missing_only_its_newline_is_also_torn(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_bytes(b'{"qid": "a"}\n{"qid": "b"}')
    found = scan(out)
    assert list(found.records) == ["a"] and found.torn and found.good_bytes == 13


def test_a_bad_line_inside_the_file_is_an_error_naming_it(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text('{"qid": "a"}\nnot json\n{"qid": "b"}\n')
    with pytest.raises(BadInputFile, match=r"p\.jsonl:2:"):
        scan(out)


def test_duplicate_qids_keep_the_first(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text('{"qid": "a", "n": 1}\n{"qid": "a", "n": 2}\n')
    found = scan(out)
    assert found.records["a"]["n"] == 1 and found.duplicates == 1


def test_other_settings_are_refused_with_what_changed(tmp_path):
    out = tmp_path / "p.jsonl"
    with Journal.open(out, FP) as journal:
        journal.append(record("a"))
    changed = {**FP, "params": {"k": "5"}}
    with pytest.raises(UserError) as err:
        Journal.open(out, changed)
    message = str(err.value)
    assert "params.k: '3' -> '5'" in message and "--overwrite" in message
    assert "\n" not in message
    with Journal.open(out, changed, overwrite=True) as journal:
        assert journal.done == {}
    assert out.read_bytes() == b""
    assert json.loads(meta_path(out).read_text())["fingerprint"] == changed


def test_a_file_without_sidecar_is_not_taken_over(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text('{"qid": "x"}\n')
    with pytest.raises(UserError, match="not a resumable run"):
        Journal.open(out, FP)
    assert out.read_text() == '{"qid": "x"}\n'


def test_an_empty_file_starts_fresh_even_with_a_stale_sidecar(tmp_path):
    out = tmp_path / "p.jsonl"
    meta_path(out).write_text(json.dumps({"fingerprint": {"method": "other"}}))
    with Journal.open(out, FP) as journal:
        assert journal.done == {}
    assert json.loads(meta_path(out).read_text())["fingerprint"] == FP


def test_retry_errors_removes_error_records(tmp_path):
    out = tmp_path / "p.jsonl"
    with Journal.open(out, FP) as journal:
        journal.append(record("a"))
        journal.append({"qid": "b", "error": "cannot decode"})
        journal.append(record("c"))
    with Journal.open(out, FP, retry_errors=True) as journal:
        assert set(journal.done) == {"a", "c"} and journal.errors_dropped == 1
        journal.append(record("b"))  # lands in the rewritten file
    assert [json.loads(x)["qid"] for x in out.read_text().splitlines()] == ["a", "c", "b"]
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic rewrite left nothing behind


def test_fingerprint_diff_against_a_flat_comparison():
    old = {"method": "a", "fps": 1.0, "llm": {"model": "m1", "base_url": None}}
    new = {"method": "a", "fps": 2.0, "llm": {"model": "m2", "base_url": None}, "x": 1}
    assert fingerprint_diff(old, new) == [
        "fps: 1.0 -> 2.0",
        "llm.model: 'm1' -> 'm2'",
        "x: None -> 1",
    ]
    assert fingerprint_diff(old, old) == []


def test_a_second_writer_is_refused_while_the_first_runs(tmp_path):
    out = tmp_path / "p.jsonl"
    with Journal.open(out, FP) as journal:
        journal.append(record("a"))
        with pytest.raises(UserError, match="being written by another run"):
            Journal.open(out, FP)
        journal.append(record("b"))
    with Journal.open(out, FP) as journal:  # free again once closed
        assert set(journal.done) == {"a", "b"}
