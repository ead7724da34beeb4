"""The Ray backend on a private local Ray instance with 2 CPUs."""

from __future__ import annotations

import os
import re

import pytest

from longground.errors import UserError
from longground.methods.base import MethodConfig
from longground.run import MethodSpec, NoWorkersLeft, SerialBackend, run_benchmark
from longground.run.ray_backend import RayBackend
from tests.support.run_plugin import (
    FAKE,
    answers,
    install_plugin,
    make_samples,
    make_videos,
    read_lines,
)


class FakeRay:
    def __init__(self, resources):
        self.resources = resources

    def cluster_resources(self):
        return self.resources


@pytest.mark.parametrize(
    "resources, workers, gpus_per_worker, expected",
    [
        ({"CPU": 16.0, "GPU": 4.0}, None, None, (1.0, 4)),
        ({"CPU": 16.0, "GPU": 4.0}, None, 0.5, (0.5, 8)),
        ({"CPU": 6.0}, None, None, (0.0, 6)),
        ({"CPU": 6.0, "GPU": 2.0}, 3, None, (1.0, 3)),
    ],
)
def test_actor_layout_follows_the_cluster(resources, workers, gpus_per_worker, expected):
    backend = RayBackend(
        MethodSpec(FAKE, MethodConfig()), workers=workers, gpus_per_worker=gpus_per_worker
    )
    backend._ray = FakeRay(resources)
    gpus = backend._gpus_per_actor()
    assert (gpus, backend._actor_count(gpus)) == expected


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    ray = pytest.importorskip("ray")
    folder = tmp_path_factory.mktemp("plugin")
    plugin_dir = install_plugin(folder)
    old = os.environ.get("PYTHONPATH")
    # Ray's worker processes inherit this environment, so they can import the plugin.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [plugin_dir, old]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield folder
    ray.shutdown()
    if old is None:
        os.environ.pop("PYTHONPATH")
    else:
        os.environ["PYTHONPATH"] = old


@pytest.mark.slow
def test_ray_answers_equal_a_serial_run(local_ray, tmp_path, monkeypatch):
    install_plugin(local_ray)
    videos = tmp_path / "videos"
    make_videos(videos, 4, broken=(3,))
    log = tmp_path / "index.log"
    monkeypatch.setenv("FAKE_INDEX_LOG", str(log))  # for the serial run in this process
    samples = make_samples(4, 3)
    spec = MethodSpec(FAKE, MethodConfig())
    serial, on_ray = tmp_path / "serial.jsonl", tmp_path / "ray.jsonl"
    run_benchmark(
        samples, spec, serial, backend=SerialBackend(spec), video_roots=[videos], progress=False
    )
    log.write_text("")
    summary = run_benchmark(
        samples,
        spec,
        on_ray,
        video_roots=[videos],
        progress=False,
        backend=RayBackend(spec, workers=2, runtime_env={"env_vars": {"FAKE_INDEX_LOG": str(log)}}),
    )
    assert summary.written == 12 and summary.errors == 3
    assert answers(on_ray) == answers(serial)
    assert sum("error" in r for r in read_lines(on_ray)) == 3
    indexed = [line.split() for line in log.read_text().splitlines()]
    assert sorted(v for v, _ in indexed) == ["v0.mp4", "v1.mp4", "v2.mp4"]
    assert str(os.getpid()) not in {pid for _, pid in indexed}


@pytest.mark.slow
def test_ray_reports_a_method_that_cannot_be_built(local_ray, tmp_path):
    install_plugin(local_ray)
    videos = tmp_path / "videos"
    make_videos(videos, 2)
    spec = MethodSpec(FAKE, MethodConfig(params={"scale": "x"}))
    with pytest.raises(UserError, match="scale must be a number"):
        run_benchmark(
            make_samples(2, 1),
            spec,
            tmp_path / "p.jsonl",
            backend=RayBackend(spec, workers=1),
            video_roots=[videos],
            progress=False,
        )


@pytest.mark.slow
def test_ray_says_in_one_line_when_every_actor_died(local_ray, tmp_path):
    install_plugin(local_ray)
    videos = tmp_path / "videos"
    make_videos(videos, 2)
    spec = MethodSpec(FAKE, MethodConfig())
    crash = {"env_vars": {"FAKE_CRASH_AT": "2"}}  # each actor's process dies on its 2nd query
    out = tmp_path / "p.jsonl"
    backend = RayBackend(spec, workers=2, runtime_env=crash)
    with pytest.raises(NoWorkersLeft) as stop:
        run_benchmark(make_samples(2, 3), spec, out, backend=backend, video_roots=[videos],
                      progress=False)  # fmt: skip
    message = str(stop.value)
    found = re.fullmatch(
        r"every Ray actor was lost \(the last: its process died\); (\d) queries have no answer; "
        r"the answers so far are saved: run the same command again to resume",
        message,
    )
    assert found, message
    # An answer sent just before its actor died may be lost with it, and is then redone.
    assert len(answers(out)) + int(found[1]) == 6
