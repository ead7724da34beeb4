"""Shared helpers for the `longground run` tests (no tests here).

The fake method lives in a plugin module written into the test's folder, the way a user runs
a method of their own (`--method MODULE:FACTORY` with the folder on PYTHONPATH), so worker
processes, subprocesses and Ray actors import it just like the driver does.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from longground.moments import Moments
from longground.samples import Sample

PLUGIN_MODULE = "lg_fake_plugin"
FAKE = f"{PLUGIN_MODULE}:make"

PLUGIN_SOURCE = '''
"""A deterministic fake grounding method for tests.

Answers depend only on (video bytes, query). A video whose bytes start with BROKEN fails with
a UserError, one that starts with BADVIDEO with longground.video.BadVideo. Each time an
instance indexes a video it appends "VIDEO PID" to $FAKE_INDEX_LOG ("VIDEO failed" for
a BadVideo). $FAKE_DELAY_S sleeps per
query; $FAKE_INTERRUPT_AT raises KeyboardInterrupt on that (1-based) call of an instance;
$FAKE_CRASH_AT kills the instance's process (SIGKILL) on that call.

A worker to kill, and the moment: after $FAKE_HOLD_AFTER answers, the first instance to get
there writes its pid to $FAKE_HOLD_FILE and blocks until it is killed.
"""
import hashlib
import os
import signal
import time
from pathlib import Path

from longground.errors import UserError
from longground.methods.base import Grounder, Grounding
from longground.moments import Moments


class Fake(Grounder):
    name = "fake"

    def __init__(self, config):
        try:
            self.scale = float(config.params.get("scale", 1.0))
        except ValueError:
            raise UserError("fake: scale must be a number") from None
        self.delay_s = float(os.environ.get("FAKE_DELAY_S", "0"))
        self.interrupt_at = int(os.environ.get("FAKE_INTERRUPT_AT", "0"))
        self.crash_at = int(os.environ.get("FAKE_CRASH_AT", "0"))
        self.hold_after = int(os.environ.get("FAKE_HOLD_AFTER", "0"))
        self.calls = 0
        self.index = {}

    def _indexed(self, video):
        if video not in self.index:
            data = Path(video).read_bytes()
            if data.startswith(b"BROKEN"):
                raise UserError(f"{Path(video).name}: cannot decode")
            if data.startswith(b"BADVIDEO"):
                from longground.video import BadVideo
                self._log(f"{Path(video).name} failed")
                raise BadVideo(Path(video).name, "no video stream")
            self.index[video] = hashlib.sha256(data).hexdigest()
            self._log(f"{Path(video).name} {os.getpid()}")
        return self.index[video]

    def _log(self, line):
        log = os.environ.get("FAKE_INDEX_LOG")
        if log:
            with open(log, "a") as f:
                f.write(line + "\\n")

    def _hold(self):
        claim = os.environ["FAKE_HOLD_FILE"]
        mine = f"{claim}.{os.getpid()}"
        with open(mine, "w") as f:
            f.write(str(os.getpid()))
        try:
            os.link(mine, claim)  # atomic, and whole: the pid is in the file it names
        except FileExistsError:
            return
        while True:
            time.sleep(1)

    def ground(self, video, query):
        self.calls += 1
        if self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        if self.calls == self.crash_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.hold_after and self.calls == self.hold_after + 1:
            self._hold()
        key = self._indexed(video)
        time.sleep(self.delay_s)
        h = int(hashlib.sha256(f"{key}|{query}".encode()).hexdigest(), 16)
        n = h % 3
        spans = [[10.0 * i + (h >> (4 * i)) % 7, 10.0 * i + 8.0] for i in range(n)]
        scores = [((h >> (8 * i)) % 100) / 100 for i in range(n)]
        spans = [[s * self.scale, e * self.scale] for s, e in spans]
        return Grounding(Moments.from_list(spans, scores), raw=f"{n} moments ({h % 997})")


def make(config):
    return Fake(config)
'''


def install_plugin(folder: Path) -> str:
    """Write the plugin module into `folder`, make it importable here; returns the folder."""
    (folder / f"{PLUGIN_MODULE}.py").write_text(PLUGIN_SOURCE)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    sys.modules.pop(PLUGIN_MODULE, None)
    return str(folder)


def make_videos(folder: Path, n_videos: int, broken: tuple[int, ...] = ()) -> list[Path]:
    """Tiny stand-in files (the fake method reads bytes, never decodes)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n_videos):
        path = folder / f"v{i}.mp4"
        path.write_bytes((b"BROKEN" if i in broken else b"OK") + f" video {i}".encode())
        paths.append(path)
    return paths


def make_samples(n_videos: int, per_video: int) -> list[Sample]:
    """Queries spread over `v{i}.mp4`, interleaved, with small GT (every third negative)."""
    samples = []
    for j in range(per_video):
        for i in range(n_videos):
            k = len(samples)
            gt = Moments.empty() if k % 3 == 2 else Moments.from_list([[2.0 + k % 5, 9.0]])
            samples.append(Sample(f"q{k:03d}", f"v{i}.mp4", 120.0, f"event {j} on {i}", gt))
    return samples


def write_benchmark(path: Path, samples: list[Sample]) -> Path:
    """Canonical benchmark JSONL (see DESIGN.md / longground.formats)."""
    with open(path, "w") as f:
        for s in samples:
            line = {
                "qid": s.qid,
                "video": s.video,
                "duration": s.duration_s,
                "query": s.query,
                "intervals": s.gt.to_list(),
                "attributes": sorted(s.attributes),
                "domain": s.domain,
            }
            f.write(json.dumps(line) + "\n")
    return path


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answers(path: Path) -> dict[str, dict]:
    """qid -> record without timings; asserts no qid appears twice."""
    records = read_lines(path)
    qids = [r["qid"] for r in records]
    assert len(qids) == len(set(qids)), "duplicate qids in the output"
    return {r["qid"]: {k: v for k, v in r.items() if k != "timings"} for r in records}


def subprocess_env(plugin_dir: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [plugin_dir, env.get("PYTHONPATH")]))
    env.update(extra)
    return env
