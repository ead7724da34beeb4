"""`longground run` end to end: SIGKILL and resume, Ctrl-C, refusals, --overwrite, --eval."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from longground.cli.main import main
from tests.support.run_plugin import (
    FAKE,
    answers,
    install_plugin,
    make_samples,
    make_videos,
    read_lines,
    subprocess_env,
    write_benchmark,
)


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """A benchmark of 4 videos x 6 queries next to its videos (v3 cannot be decoded)."""
    (tmp_path / "plugin").mkdir()
    plugin_dir = install_plugin(tmp_path / "plugin")
    make_videos(tmp_path, 4, broken=(3,))
    path = write_benchmark(tmp_path / "bench.jsonl", make_samples(4, 6))
    for name in ("FAKE_DELAY_S", "FAKE_INTERRUPT_AT", "FAKE_INDEX_LOG"):
        monkeypatch.delenv(name, raising=False)
    return path, plugin_dir


# v3 cannot be decoded, so its 6 queries have no answer: a finished run exits 2.
UNANSWERED = 2


def cli(bench_path, out, *extra) -> list[str]:
    return ["run", str(bench_path), "--method", FAKE, "--out", str(out), *extra]


def start(bench_path, out, plugin_dir, *extra, delay_s="0.1"):
    command = [sys.executable, "-m", "longground", *cli(bench_path, out, *extra)]
    env = subprocess_env(plugin_dir, FAKE_DELAY_S=delay_s)
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )  # fmt: skip


def _ctrl_c_as_in_a_terminal():
    """SIGINT as a terminal's foreground job has it: a test suite started in the background
    by a shell without job control inherits SIGINT ignored, and Python keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_lines(path, n, proc, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} lines after {timeout_s} s")


def assert_exits(pid, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if _is_zombie(pid):  # exited; waits for a reaper that may never come (PID 1 in CI)
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs {timeout_s} s after the driver died")


def _is_zombie(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def reference(bench_path, tmp_path):
    out = tmp_path / "reference.jsonl"
    assert main(cli(bench_path, out)) == UNANSWERED
    return answers(out)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigkill_then_resume_equals_an_uninterrupted_run(bench, tmp_path, monkeypatch, workers):
    bench_path, plugin_dir = bench
    out, log = tmp_path / "preds.jsonl", tmp_path / "index.log"
    monkeypatch.setenv("FAKE_INDEX_LOG", str(log))
    proc = start(bench_path, out, plugin_dir, "--workers", workers)
    wait_for_lines(out, 5, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    written = out.read_bytes().count(b"\n")
    assert 5 <= written < 24
    for pid in {int(line.split()[1]) for line in log.read_text().splitlines()}:
        assert_exits(pid)
    # Fewer than 6 answers were written, so no one had finished a video; orphaned workers
    # going on to the next videos would have indexed v2.
    assert {line.split()[0] for line in log.read_text().splitlines()} <= {"v0.mp4", "v1.mp4"}
    monkeypatch.delenv("FAKE_INDEX_LOG")
    resumed = subprocess.run(
        [sys.executable, "-m", "longground", *cli(bench_path, out)],
        env=subprocess_env(plugin_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == UNANSWERED, resumed.stderr
    assert f"{written} resumed" in resumed.stderr
    final = answers(out)  # also asserts no duplicate qids
    assert final == reference(bench_path, tmp_path)
    assert len(final) == 24 and sum("error" in r for r in final.values()) == 6


def test_ctrl_c_with_workers_keeps_everything_and_says_how_to_resume(bench, tmp_path):
    bench_path, plugin_dir = bench
    out = tmp_path / "preds.jsonl"
    proc = start(bench_path, out, plugin_dir, "--workers", "2")
    wait_for_lines(out, 3, proc)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "run the same command again to resume" in stderr
    assert "longground: interrupted\n" in stderr and "Traceback" not in stderr
    kept = read_lines(out)  # every line whole
    assert 3 <= len(kept) < 24
    assert main(cli(bench_path, out, "--workers", "2")) == UNANSWERED
    assert answers(out) == reference(bench_path, tmp_path)


def test_a_torn_last_line_is_dropped_on_resume(bench, tmp_path, capsys):
    bench_path, _ = bench
    out = tmp_path / "preds.jsonl"
    assert main(cli(bench_path, out)) == UNANSWERED
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:10]) + lines[10][:17])
    capsys.readouterr()
    assert main(cli(bench_path, out)) == UNANSWERED
    assert "torn last line was dropped" in capsys.readouterr().err
    assert answers(out) == reference(bench_path, tmp_path)


def test_other_settings_are_refused_with_one_line_then_overwrite(bench, tmp_path, capsys):
    bench_path, _ = bench
    out = tmp_path / "preds.jsonl"
    assert main(cli(bench_path, out, "-p", "scale=1")) == UNANSWERED
    before = out.read_bytes()
    capsys.readouterr()
    assert main(cli(bench_path, out, "-p", "scale=2")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "params.scale: '1' -> '2'" in err and "--overwrite" in err
    assert out.read_bytes() == before
    assert main(cli(bench_path, out, "-p", "scale=2", "--overwrite")) == UNANSWERED
    assert out.read_bytes() != before and len(answers(out)) == 24


def test_eval_prints_the_scores_of_the_finished_file(bench, tmp_path, capsys):
    bench_path, _ = bench
    out = tmp_path / "preds.jsonl"
    capsys.readouterr()
    assert main(cli(bench_path, out, "--eval", "--protocol", "comet")) == UNANSWERED
    printed = capsys.readouterr().out
    from longground.eval import evaluate_files
    from longground.eval.table import format_result

    assert printed == format_result(evaluate_files(bench_path, out, protocol="comet")) + "\n"
    assert "parse-failed 6" in printed  # the undecodable video's queries count as failures


def test_the_output_reads_back_through_the_formats_loader(bench, tmp_path):
    from longground.formats import load_predictions, load_samples

    bench_path, _ = bench
    out = tmp_path / "preds.jsonl"
    assert main(cli(bench_path, out)) == UNANSWERED
    samples = {s.qid: s for s in load_samples(bench_path)}
    predictions = {p.qid: p for p in load_predictions(out, samples=samples)}
    assert set(predictions) == set(samples)
    for record in read_lines(out):
        prediction = predictions[record["qid"]]
        if "error" in record:  # a failure is counted, never an empty answer
            assert prediction.moments is None and prediction.parse_error == record["error"]
        else:
            assert prediction.moments.to_list() == record["intervals"]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--method", "nope_xyz:make"], "cannot import nope_xyz"),
        (["--gpus-per-worker", "1"], "need --ray"),
        (["--ray", "local", "--ray-runtime-env", "{bad"], "not valid JSON"),
    ],
)
def test_bad_options_are_one_line_errors(bench, tmp_path, capsys, extra, message):
    bench_path, _ = bench
    capsys.readouterr()
    assert main(cli(bench_path, tmp_path / "p.jsonl") + extra) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "p.jsonl").exists()


def test_summary_line_reports_the_errors(bench, tmp_path, capsys):
    bench_path, _ = bench
    capsys.readouterr()
    assert main(cli(bench_path, tmp_path / "p.jsonl")) == UNANSWERED
    err = capsys.readouterr().err
    assert "24/24 queries" in err and "6 failed" in err and "--retry-errors" in err
    assert err.splitlines()[-1] == (
        "longground: error: 6 of 24 queries have no answer (6 failed, 0 unreadable model "
        f"answers); the 18 answers are kept in {tmp_path / 'p.jsonl'}"
    )
    assert len(answers(tmp_path / "p.jsonl")) == 24
    meta = json.loads((tmp_path / "p.jsonl.meta.json").read_text())
    assert meta["fingerprint"]["method"] == FAKE and meta["benchmark"] == str(bench_path)
