"""A tiny world for the hostile-input tests (no tests here): a 2 s video, a two-query benchmark
and its predictions, a plain file and a folder, a fake method and a cheap encoder.

`call(argv)` runs the command line in process and returns (exit code, stdout, stderr); an
exception that escapes `main` is returned as a traceback in stderr, so tests can assert that
none ever does.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from longground.cli.main import main
from longground.encoders.base import ENCODERS, ImageTextEncoder
from longground.video import VideoWriter
from tests.support.run_plugin import FAKE, install_plugin

TEST_ENCODER = "lg-test-mean"


class MeanColourEncoder(ImageTextEncoder):
    """Embedding = the normalised mean colour of a frame: costs nothing to load or run."""

    encoder_id = "lg-test-mean/1"
    default_threshold = 0.5

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        mean = frames.reshape(len(frames), -1, 3).astype(np.float32).mean(axis=1) + 1.0
        return mean / np.linalg.norm(mean, axis=1, keepdims=True)

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 3), np.float32) / np.sqrt(3)


def register_test_encoder(monkeypatch) -> str:
    """Make `--encoder lg-test-mean` available for one test (the registry's list of names,
    which messages show, is left as it was afterwards)."""
    monkeypatch.setitem(ENCODERS, TEST_ENCODER, lambda arg: MeanColourEncoder())
    return TEST_ENCODER


@dataclass(frozen=True)
class World:
    """The files of one test: every path is inside `root`."""

    root: Path
    video: Path
    bench: Path
    preds: Path
    durations: Path
    plain_file: Path
    folder: Path
    cache: Path
    plugin: str

    def fill(self, argv: list[str]) -> list[str]:
        """Replace `{video}`, `{bench}`, ... in each argument by the world's paths."""
        names = {k: str(v) for k, v in self.__dict__.items()}
        return [arg.format(**names) for arg in argv]

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        """Bytes and mode of every file outside the cache, to prove nothing was touched."""
        return {
            str(p.relative_to(self.root)): (p.read_bytes(), p.stat().st_mode)
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and self.cache not in p.parents and "__pycache__" not in p.parts
        }


def make_world(root: Path) -> World:
    """Write the tiny video and files into `root` (2 s at 10 fps, 64x48)."""
    video = root / "tiny.mp4"
    with VideoWriter(video, 64, 48, fps=10) as writer:
        for i in range(20):
            writer.write(np.full((48, 64, 3), 10 * i, np.uint8))
    records = [
        {"qid": "q1", "video": video.name, "duration": 2.0, "query": "a dark frame",
         "intervals": [[0.0, 1.0]], "attributes": [], "domain": "test"},
        {"qid": "q2", "video": video.name, "duration": 2.0, "query": "a red car",
         "intervals": [], "attributes": [], "domain": "test"},
    ]  # fmt: skip
    bench = root / "bench.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in records))
    preds = root / "preds.jsonl"
    preds.write_text('{"qid": "q1", "intervals": [[0.0, 1.0]]}\n{"qid": "q2", "intervals": []}\n')
    durations = root / "durations.json"
    durations.write_text(json.dumps({"tiny": 2.0}))
    plain_file = root / "notes.txt"
    plain_file.write_text("my notes\n")
    folder = root / "folder"
    folder.mkdir()
    (root / "plugin").mkdir()
    plugin = install_plugin(root / "plugin")
    return World(root, video, bench, preds, durations, plain_file, folder, root / "cache", plugin)


def add_extras(world: World) -> World:
    """Add what the output and option tests need to `world`: a second copy of the benchmark
    (`bench2.jsonl`), a FIFO (`pipe`) and an annotation database (`ann.db`) that imported the
    benchmark as typed, relative to the world's folder."""
    (world.root / "bench2.jsonl").write_bytes(world.bench.read_bytes())
    os.mkfifo(world.root / "pipe")
    here = Path.cwd()
    os.chdir(world.root)  # the database remembers the benchmark as it was typed: relative
    try:
        assert call(["annotate", "import", "--db", "ann.db", "bench.jsonl"])[0] == 0
    finally:
        os.chdir(here)
    return world


def call(argv: list[str]) -> tuple[int, str, str]:
    """Run `longground ARGV` in process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the point is to report it as a test failure
            traceback.print_exc()
            code = -1
    return code, out.getvalue(), err.getvalue()


__all__ = ["FAKE", "World", "add_extras", "call", "make_world", "register_test_encoder"]
