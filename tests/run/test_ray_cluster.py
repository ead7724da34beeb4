"""A Ray run survives losing a node: a two-node cluster on loopback, the second node killed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.ray_cluster import LoopbackCluster
from tests.support.run_plugin import (
    FAKE,
    answers,
    install_plugin,
    make_samples,
    make_videos,
    subprocess_env,
    write_benchmark,
)

pytest.importorskip("ray")


def wait_for(path: Path, proc: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {path.name} after {timeout_s} s"
        time.sleep(0.02)


@pytest.mark.slow
def test_killing_the_second_node_mid_run_loses_no_query(tmp_path):
    plugin_dir = install_plugin(tmp_path)
    make_videos(tmp_path, 4)
    bench = write_benchmark(tmp_path / "bench.jsonl", make_samples(4, 4))
    hold = tmp_path / "hold"
    env = subprocess_env(plugin_dir)
    for name in ("FAKE_DELAY_S", "FAKE_INTERRUPT_AT", "FAKE_INDEX_LOG", "FAKE_CRASH_AT"):
        env.pop(name, None)
    # One 1-CPU actor per node. Only the second node's actor (its workers inherit this
    # environment) holds, on its second query, until its node is killed; the driver is
    # attached to the head node (Ray prefers it among nodes on one host), so it lives on.
    second = {"FAKE_HOLD_AFTER": "1", "FAKE_HOLD_FILE": str(hold)}
    out = tmp_path / "preds.jsonl"
    with LoopbackCluster(env, second) as cluster:
        command = [sys.executable, "-m", "longground", "run", str(bench), "--method", FAKE,
                   "--ray", cluster.address, "--workers", "2", "--out", str(out)]  # fmt: skip
        run = subprocess.Popen(
            command, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            wait_for(hold, run)
            os.kill(cluster.raylet_pid(1), signal.SIGKILL)
            _, stderr = run.communicate(timeout=60)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
    assert run.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert re.search(r"longground: warning: Ray actor \d lost \(its ", stderr), stderr
    assert "16/16 queries" in stderr and "1 workers lost" in stderr
    final = answers(out)  # asserts no qid twice
    assert sorted(final) == sorted(json.loads(line)["qid"] for line in bench.open())
    assert not any("error" in record for record in final.values())
