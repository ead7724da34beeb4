"""A local worker process killed mid-run: its queries are redone by the others, once each."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from longground.cli.main import main
from longground.methods.base import MethodConfig
from longground.run import MethodSpec, run_benchmark
from tests.support.run_plugin import (
    FAKE,
    answers,
    install_plugin,
    make_samples,
    make_videos,
    write_benchmark,
)

SPEC = MethodSpec(FAKE, MethodConfig())


@pytest.fixture
def setup(tmp_path, monkeypatch):
    install_plugin(tmp_path)
    videos = tmp_path / "videos"
    make_videos(videos, 3)
    for name in ("FAKE_DELAY_S", "FAKE_INTERRUPT_AT", "FAKE_HOLD_AFTER", "FAKE_CRASH_AT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path, videos


def run(samples, out, videos, backend=None):
    return run_benchmark(samples, SPEC, out, backend=backend, video_roots=[videos], progress=False)


def kill_when_held(hold_file: Path, timeout_s: float = 60.0) -> threading.Thread:
    """SIGKILL the worker that writes its pid to `hold_file` (see the fake plugin's hold)."""

    def killer() -> None:
        deadline = time.monotonic() + timeout_s
        while not hold_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if hold_file.exists():
            os.kill(int(hold_file.read_text()), signal.SIGKILL)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


def test_when_every_worker_dies_the_run_ends_with_one_line(setup, monkeypatch, capsys):
    tmp, videos = setup
    bench = write_benchmark(tmp / "bench.jsonl", make_samples(2, 3))
    monkeypatch.setenv("FAKE_CRASH_AT", "2")  # each worker dies on its second query
    out = tmp / "preds.jsonl"
    command = ["run", str(bench), "--method", FAKE, "--videos", str(videos), "--out", str(out)]
    assert main([*command, "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "longground: error: every worker process was lost (the last: killed by signal 9); "
        "4 queries have no answer; the answers so far are saved: "
        "run the same command again to resume"
    )
    assert len(answers(out)) == 2  # each worker's first answer is kept
    monkeypatch.delenv("FAKE_CRASH_AT")
    assert main(command) == 0
    assert len(answers(out)) == 6


def test_a_killed_worker_costs_only_its_unanswered_queries(setup, monkeypatch, capsys):
    tmp, videos = setup
    samples = make_samples(3, 4)
    bench = write_benchmark(tmp / "bench.jsonl", samples)
    reference = tmp / "serial.jsonl"
    run(samples, reference, videos)
    hold = tmp / "hold"
    # The first worker to answer two queries blocks on its third and is killed there.
    monkeypatch.setenv("FAKE_HOLD_AFTER", "2")
    monkeypatch.setenv("FAKE_HOLD_FILE", str(hold))
    out = tmp / "preds.jsonl"
    killer = kill_when_held(hold)
    command = ["run", str(bench), "--method", FAKE, "--videos", str(videos), "--out", str(out)]
    assert main([*command, "--workers", "2"]) == 0
    killer.join()
    assert answers(out) == answers(reference)  # every query once, the same answers
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "longground: warning: worker " in err
    assert "lost (killed by signal 9); its 2 unanswered queries go to the 1 remaining worker" in err
    assert "12/12 queries" in err and "1 workers lost and 2 queries redone" in err
