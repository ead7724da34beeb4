"""`run_benchmark` in process and with a process pool, against a fake plugin method."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from longground.errors import UserError
from longground.methods.base import MethodConfig
from longground.moments import tiou_matrix
from longground.run import (
    MethodSpec,
    PoolBackend,
    RunInterrupted,
    SerialBackend,
    meta_path,
    run_benchmark,
)
from tests.support.run_plugin import (
    FAKE,
    answers,
    install_plugin,
    make_samples,
    make_videos,
    read_lines,
)


@pytest.fixture
def setup(tmp_path, monkeypatch):
    install_plugin(tmp_path)
    videos = tmp_path / "videos"
    make_videos(videos, 4, broken=(3,))
    log = tmp_path / "index.log"
    monkeypatch.setenv("FAKE_INDEX_LOG", str(log))
    monkeypatch.delenv("FAKE_DELAY_S", raising=False)
    monkeypatch.delenv("FAKE_INTERRUPT_AT", raising=False)
    return tmp_path, videos, log


def spec(**params) -> MethodSpec:
    return MethodSpec(FAKE, MethodConfig(params=params))


def run(samples, out, videos, backend=None, **kwargs):
    return run_benchmark(
        samples, spec(), out, backend=backend, video_roots=[videos], progress=False, **kwargs
    )


def test_serial_run_writes_one_canonical_line_per_query(setup):
    tmp, videos, log = setup
    samples = make_samples(4, 3)
    out = tmp / "preds.jsonl"
    summary = run(samples, out, videos)
    records = read_lines(out)
    assert sorted(r["qid"] for r in records) == sorted(s.qid for s in samples)
    ok = [r for r in records if "error" not in r]
    assert len(ok) == 9 and summary.written == 12 and summary.errors == 3
    for r in ok:
        assert len(r["intervals"]) == len(r["scores"]) and r["response"].endswith(")")
        assert r["method"] == FAKE and r["timings"]["ground_s"] >= 0
    assert meta_path(out).exists()
    # Grouped by video: each readable video indexed exactly once by the single instance.
    assert Counter(line.split()[0] for line in log.read_text().splitlines()) == {
        "v0.mp4": 1,
        "v1.mp4": 1,
        "v2.mp4": 1,
    }


def test_failing_video_is_recorded_and_the_run_continues(setup):
    tmp, videos, _ = setup
    samples = make_samples(4, 2)
    (videos / "v0.mp4").unlink()
    out = tmp / "preds.jsonl"
    summary = run(samples, out, videos)
    by_video = {s.qid: s.video for s in samples}
    errors = {r["qid"]: r["error"] for r in read_lines(out) if "error" in r}
    assert {by_video[q] for q in errors} == {"v0.mp4", "v3.mp4"}
    assert all(r["intervals"] is None for r in read_lines(out) if "error" in r)
    assert summary.errors == 4 and summary.complete
    assert any("cannot decode" in e for e in errors.values())
    assert any(e == "video not found: v0.mp4" for e in errors.values())


def test_an_unreadable_video_is_tried_once_for_all_its_queries(setup):
    tmp, videos, log = setup
    (videos / "v1.mp4").write_bytes(b"BADVIDEO")
    samples = make_samples(3, 3)
    out = tmp / "preds.jsonl"
    summary = run(samples, out, videos)
    failed = [r for r in read_lines(out) if "error" in r]
    assert len(failed) == 3 and summary.errors == 3
    assert {r["error"] for r in failed} == {"v1.mp4: no video stream"}
    assert log.read_text().count("v1.mp4 failed") == 1


def test_resume_skips_finished_queries(setup):
    tmp, videos, log = setup
    samples = make_samples(3, 4)
    reference = tmp / "reference.jsonl"
    run(samples, reference, videos)
    out = tmp / "preds.jsonl"
    first = run(samples[:5], out, videos)
    log.write_text("")
    second = run(samples, out, videos)
    assert (first.written, second.resumed, second.written) == (5, 5, 7)
    assert answers(out) == answers(reference)


def test_retry_errors_runs_failed_queries_again(setup):
    tmp, videos, _ = setup
    samples = make_samples(4, 2)
    out = tmp / "preds.jsonl"
    assert run(samples, out, videos).errors == 2
    (videos / "v3.mp4").write_bytes(b"OK fixed")
    summary = run(samples, out, videos, retry_errors=True)
    assert (summary.errors_retried, summary.written, summary.errors) == (2, 2, 0)
    assert len(answers(out)) == len(samples)


def test_other_settings_are_refused_unless_overwrite(setup):
    tmp, videos, _ = setup
    samples = make_samples(2, 2)
    out = tmp / "preds.jsonl"
    run_benchmark(samples, spec(scale="1"), out, video_roots=[videos], progress=False)
    with pytest.raises(UserError, match=r"params\.scale: '1' -> '2'.*--overwrite"):
        run_benchmark(samples, spec(scale="2"), out, video_roots=[videos], progress=False)
    summary = run_benchmark(
        samples, spec(scale="2"), out, video_roots=[videos], progress=False, overwrite=True
    )
    assert (summary.resumed, summary.written) == (0, 4)
    assert '"scale": "2"' in meta_path(out).read_text()


def test_unknown_method_fails_before_touching_the_output(tmp_path):
    out = tmp_path / "preds.jsonl"
    with pytest.raises(UserError, match="cannot import"):
        run_benchmark(make_samples(1, 1), MethodSpec("nope_xyz:make", MethodConfig()), out)
    assert not out.exists()


def test_interrupt_keeps_finished_work_and_resume_completes(setup, monkeypatch):
    tmp, videos, _ = setup
    samples = make_samples(3, 3)
    out = tmp / "preds.jsonl"
    monkeypatch.setenv("FAKE_INTERRUPT_AT", "4")
    with pytest.raises(RunInterrupted) as stop:
        run(samples, out, videos)
    assert stop.value.summary.written == 3 and len(read_lines(out)) == 3
    monkeypatch.delenv("FAKE_INTERRUPT_AT")
    summary = run(samples, out, videos)
    assert (summary.resumed, summary.written) == (3, 6)
    reference = tmp / "reference.jsonl"
    run(samples, reference, videos)
    assert answers(out) == answers(reference)


def test_two_workers_give_the_same_answers_and_index_each_video_once(setup):
    tmp, videos, log = setup
    samples = make_samples(4, 3)
    serial, pooled = tmp / "serial.jsonl", tmp / "pooled.jsonl"
    run(samples, serial, videos, backend=SerialBackend(spec()))
    log.write_text("")
    summary = run(samples, pooled, videos, backend=PoolBackend(spec(), 2))
    assert summary.written == 12
    assert answers(pooled) == answers(serial)
    indexed = [line.split() for line in log.read_text().splitlines()]
    assert sorted(v for v, _ in indexed) == ["v0.mp4", "v1.mp4", "v2.mp4"]
    assert str(os.getpid()) not in {pid for _, pid in indexed}  # the workers did the work


@pytest.mark.parametrize("backend", [SerialBackend, lambda s: PoolBackend(s, 2)])
def test_a_method_that_cannot_be_built_is_a_user_error(setup, backend):
    tmp, videos, _ = setup
    bad = spec(scale="not a number")
    with pytest.raises(UserError, match="scale must be a number"):
        run_benchmark(
            make_samples(2, 2),
            bad,
            tmp / "p.jsonl",
            backend=backend(bad),
            video_roots=[videos],
            progress=False,
        )


def test_running_metrics_match_a_naive_computation(setup):
    tmp, videos, _ = setup
    samples = make_samples(3, 4)
    out = tmp / "preds.jsonl"
    summary = run(samples, out, videos)
    records = {r["qid"]: r for r in read_lines(out)}
    ious, count_errors = [], []
    for s in samples:
        predicted = records[s.qid].get("intervals", [])
        count_errors.append(abs(len(predicted) - len(s.gt)))
        if len(s.gt):
            first = np.array(predicted[:1]).reshape(-1, 2)
            ious.append(tiou_matrix(first, s.gt.spans).max() if len(first) else 0.0)
    assert summary.metrics["mIoU"] == pytest.approx(np.mean(ious))
    assert summary.metrics["count_MAE"] == pytest.approx(np.mean(count_errors))
