"""A two-node Ray cluster on loopback for tests, started and stopped by its own pids.

Each node is a `ray start --block` subprocess in a session of its own, so every process Ray
starts for that node (GCS, raylet, agents, workers) stays in its process group: stopping the
cluster signals those two groups and nothing else (`ray stop` would stop every Ray on the
machine). Each cluster has a private temp folder, so `ray.init()` elsewhere never finds it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTED = "Ray runtime started"


class LoopbackCluster:
    """A head node and a second node on 127.0.0.1, one CPU each (so two 1-CPU actors split).

    Args:
        env: environment of both nodes (their workers inherit it).
        second_env: extra variables for the second node alone.
    """

    def __init__(self, env: dict[str, str], second_env: dict[str, str] | None = None):
        self.port = _free_port()
        # Short: Ray's unix socket paths under it must stay below 108 bytes.
        self.temp_dir = Path(tempfile.mkdtemp(prefix="lgray", dir="/tmp"))
        self.env = {**env, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        self.second_env = second_env or {}
        self.nodes: list[subprocess.Popen] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> LoopbackCluster:
        try:
            # Both at once: the second node waits for the head's GCS by itself.
            head = ["--head", "--port", str(self.port), "--include-dashboard", "false",
                    "--no-monitor"]  # fmt: skip
            self._start_node(head, self.env, "head")
            self._start_node(["--address", self.address], {**self.env, **self.second_env}, "node2")
            for name, node in zip(("head", "node2"), self.nodes, strict=True):
                self._wait_started(name, node)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start_node(self, args: list[str], env: dict[str, str], name: str) -> None:
        ray = str(Path(sys.executable).parent / "ray")
        log = self.temp_dir / f"{name}.log"
        command = [ray, "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
                   "--temp-dir", str(self.temp_dir), "--disable-usage-stats",
                   "--object-store-memory", str(100 * 2**20), "--include-log-monitor", "false",
                   "--dashboard-agent-listen-port", str(_free_port()), *args]  # fmt: skip
        with open(log, "w") as out:
            node = subprocess.Popen(
                command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.nodes.append(node)

    def _wait_started(self, name: str, node: subprocess.Popen) -> None:
        log = self.temp_dir / f"{name}.log"
        deadline = time.monotonic() + 90
        while STARTED not in log.read_text(errors="replace"):
            if node.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray start ({name}) failed:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)

    def raylet_pid(self, node: int) -> int:
        """The pid of node `node`'s raylet (0: the head)."""
        group = self.nodes[node].pid
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _group_of(entry) == group and _name_of(entry) == "raylet":
                return int(entry.name)
        raise RuntimeError(f"no raylet in process group {group}")

    def stop(self) -> None:
        """Kill every process of both nodes (their process groups), then remove the files.

        SIGKILL, not a graceful stop: the cluster's state dies with its temp folder.
        """
        for node in self.nodes:
            _kill_group(node.pid, signal.SIGKILL)
        for node in self.nodes:
            node.wait()
        self.nodes = []
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def processes(self) -> list[int]:
        """Pids still alive (not zombies) in the nodes' process groups."""
        groups = {node.pid for node in self.nodes}
        return [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _group_of(entry) in groups and not _zombie(entry)
        ]


def _kill_group(group: int, sig: signal.Signals) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stat(entry: Path) -> list[str]:
    try:
        return entry.joinpath("stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _group_of(entry: Path) -> int | None:
    fields = _stat(entry)
    return int(fields[2]) if len(fields) > 2 else None


def _zombie(entry: Path) -> bool:
    fields = _stat(entry)
    return bool(fields) and fields[0] == "Z"


def _name_of(entry: Path) -> str:
    try:
        return entry.joinpath("comm").read_text().strip()
    except OSError:
        return ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
