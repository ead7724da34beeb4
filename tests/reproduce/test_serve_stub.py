"""`longground serve-stub`: the tests' scripted server as a command, so a person can try a
table of `reproduce` without a model; it runs from the installed package, without pytest."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from longground.cli.main import main
from tests.reproduce.test_reproduce import bench  # noqa: F401 - the tiny benchmark fixture
from tests.support.curate_videos import register_colour_encoder

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


@pytest.fixture()
def served():
    """`python -m longground serve-stub --reply [[4, 10]]` in a process of its own; yields
    (process, URL) and stops it by its pid."""
    argv = [sys.executable, "-m", "longground", "serve-stub", "--reply", "[[4, 10]]"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_env(), cwd=SRC)  # fmt: skip
    try:
        line = process.stdout.readline()
        assert line.startswith("serving scripted answers at http://127.0.0.1:"), line
        yield process, line.split()[4]
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_the_stub_module_needs_no_pytest():
    code = "import sys, longground.llm.stub_server; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), check=True).stdout  # fmt: skip
    assert out.strip() == "False"


def test_a_table_runs_against_the_served_stub(served, bench, tmp_path, monkeypatch):  # noqa: F811
    process, url = served
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    argv = ["reproduce", "ewb-table1", str(bench), "--out", str(tmp_path / "o"), "--base-url",
            url, "--model", "stub", "--encoder", register_colour_encoder()]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    record = json.loads((tmp_path / "o" / "ewb-table1.json").read_text())
    # the stub's [[4, 10]] on q1 (GT [4, 10]) and q2 (GT [0, 8]): mIoU (1 + 0.4) / 2
    assert record["values"]["ours"]["monolithic"] == pytest.approx(0.7)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert process.stderr.read().strip() == "longground: stopped after 3 requests"


def test_a_port_in_use_is_one_line_exit_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "longground", "serve-stub", "--port", str(port)],
            capture_output=True, text=True, env=_env(), timeout=30,
        )  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("longground: error: cannot listen")
    assert len(done.stderr.strip().splitlines()) == 1
