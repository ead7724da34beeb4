"""`longground index --ray`: one Ray task per video on the actor pool `run --ray` uses, the
same entries as a local run, resumable, and what a lost node, a node that cannot write the
cache and a video that cannot be read each cost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from longground.cli.main import main
from longground.index.storage import read_timeline
from tests.support.ray_cluster import LoopbackCluster
from tests.support.videos import write_scenes

pytest.importorskip("ray")
SRC = str(Path(__file__).resolve().parents[2] / "src")

# A driver that indexes through the pool with a work spec whose actor on the node started
# with $HOLD_FILE writes its pid there and blocks on its first video until its node is
# killed; every record goes to the file named last as a JSON line (Ray prints its own notices
# on stdout).
DRIVER = """
import json, os, sys, time
from pathlib import Path
from longground.cluster import WorkerLost
from longground.index.distributed import IndexPool, IndexWork, tasks
from longground.index.indexer import IndexJob


class HoldingWork(IndexWork):
    def records(self, indexer, task):
        hold = os.environ.get("HOLD_FILE")
        if hold:
            Path(hold).write_text(str(os.getpid()))
            while True:
                time.sleep(1)
        yield from super().records(indexer, task)


videos = sorted(Path(sys.argv[1]).glob("*.mp4"))
job = IndexJob("label-bridge", 1.0, Path(sys.argv[2]))
pool = IndexPool(HoldingWork(job), sys.argv[3], workers=2)
try:
    with open(sys.argv[4], "w") as out:
        for item in pool.results(tasks(videos)):
            line = {"lost": item.describe()} if isinstance(item, WorkerLost) else item
            print(json.dumps(line), file=out, flush=True)
finally:
    pool.close()
"""


def make_library(folder: Path, n: int, seconds: float = 3) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    videos = []
    for i in range(n):
        videos.append(write_scenes(folder / f"v{i}.mp4", seconds + i % 3, 10))
    return videos


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "timelines").glob("*.npz"))


def node_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, **extra}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SRC, env.get("PYTHONPATH")]))
    return env


def test_index_on_a_local_ray_indexes_each_video_once_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", node_env()["PYTHONPATH"])  # Ray's workers inherit it
    videos = make_library(tmp_path / "lib", 4)
    (tmp_path / "lib" / "broken.mp4").write_bytes(b"not a video at all")
    cache = tmp_path / "cache"
    argv = ["index", str(tmp_path / "lib"), "--ray", "local", "-j", "2", "--cache-dir", str(cache)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    built = [line for line in out.splitlines() if ", built in " in line]
    assert len(built) == 4 and all(" on " in line for line in built)
    assert sorted(line.split(":")[0] for line in built) == sorted(map(str, videos))
    errors = [line for line in err.splitlines() if line.startswith("longground: error:")]
    assert len(errors) == 1 and "broken.mp4" in errors[0] and "Traceback" not in err
    assert len(entries(cache)) == 4
    assert main(argv) == 2  # again: every entry is found, the broken file is reported again
    out, _ = capsys.readouterr()
    assert out.count("already indexed") == 4 and len(entries(cache)) == 4
    library = json.loads(next((cache / "library").glob("*.json")).read_text())
    assert len(library["entries"]) == 4  # the library's search index knows every video


@pytest.mark.parametrize("address, env", [("127.0.0.1:1", None), ("auto", "127.0.0.1:1")])
def test_an_unreachable_ray_address_is_one_line(tmp_path, capsys, monkeypatch, address, env):
    make_library(tmp_path / "lib", 1)
    if env:
        monkeypatch.setenv("RAY_ADDRESS", env)
    started = time.monotonic()
    argv = ["index", str(tmp_path / "lib"), "--ray", address, "--cache-dir",
            str(tmp_path / "cache")]  # fmt: skip
    assert main(argv) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "cannot reach a Ray cluster at '127.0.0.1:1'" in err
    assert time.monotonic() - started < 30 and not entries(tmp_path / "cache")


@pytest.mark.slow
def test_killing_a_node_mid_run_indexes_its_videos_elsewhere_once(tmp_path):
    videos = make_library(tmp_path / "lib", 8)
    cache, hold = tmp_path / "cache", tmp_path / "hold"
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    with LoopbackCluster(node_env(), {"HOLD_FILE": str(hold)}) as cluster:
        command = [sys.executable, str(driver), str(tmp_path / "lib"), str(cache),
                   cluster.address, str(tmp_path / "records.jsonl")]  # fmt: skip
        run = subprocess.Popen(command, env=cluster.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not hold.exists():
                assert run.poll() is None, run.communicate()
                assert time.monotonic() < deadline, "the second node never took a video"
                time.sleep(0.05)
            os.kill(cluster.raylet_pid(1), signal.SIGKILL)
            _, err = run.communicate(timeout=120)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
    assert run.returncode == 0, err
    lines = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    lost = [line for line in lines if "lost" in line]
    records = [line for line in lines if "qid" in line]
    assert len(lost) == 1 and "videos being indexed go to the 1 remaining" in lost[0]["lost"]
    assert sorted(r["qid"] for r in records) == sorted(str(v.absolute()) for v in videos)
    assert not any("error" in r for r in records)
    assert len({r["node"] for r in records}) == 1  # one host: both nodes are this machine
    found = entries(cache)
    assert len(found) == len(videos)  # one entry per video, none twice
    for path in found:
        from longground.index.cache_kind import read_manifest

        key = read_manifest(path)["key"]
        assert len(read_timeline(path, key)) >= 3  # readable, whole


@pytest.mark.slow
def test_a_node_that_cannot_write_the_cache_drops_out_with_one_line(tmp_path):
    videos = make_library(tmp_path / "lib", 4)
    cache = tmp_path / "cache"
    (tmp_path / "plain").write_text("a file, not a folder")
    second = {"LONGGROUND_CACHE": str(tmp_path / "plain" / "cache")}
    with LoopbackCluster(node_env(LONGGROUND_CACHE=str(cache)), second) as cluster:
        command = [sys.executable, "-m", "longground", "index", str(tmp_path / "lib"), "--ray",
                   cluster.address, "-j", "2"]  # fmt: skip
        done = subprocess.run(command, env=cluster.env, capture_output=True, text=True,
                              timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "longground: warning:" in line]
    assert len(warnings) == 1 and "cannot be created" in warnings[0], done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.count(", built in ") == len(videos) and len(entries(cache)) == len(videos)
