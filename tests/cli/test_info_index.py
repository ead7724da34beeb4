"""`longground info` and `longground index`, through the real entry point."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import longground.encoders
from longground.cli.main import main
from longground.encoders.base import ENCODERS
from longground.index import CACHE_ENV, clear_memory_cache
from longground.video import VideoWriter
from tests.index.test_index import MeanColour, write_scenes


@pytest.fixture(scope="module")
def clip(scenes_video):
    return scenes_video(seconds=4)


@pytest.fixture(scope="module")
def ntsc(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "ntsc.mp4"
    with VideoWriter(path, 64, 48, fps=Fraction(30000, 1001)) as writer:
        for i in range(60):
            writer.write(np.full((48, 64, 3), i * 4, np.uint8))
    return path


@pytest.fixture
def fake_encoder(monkeypatch, tmp_path):
    built = []

    def load_encoder(spec="label-bridge", device=None, batch_size=None):
        built.append(spec)
        return MeanColour()

    monkeypatch.setattr(longground.encoders, "load_encoder", load_encoder, raising=False)
    monkeypatch.setitem(ENCODERS, "fake", lambda arg: MeanColour())  # a name --encoder knows
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    clear_memory_cache()
    return built


def test_info_prints_exact_rate_and_size(ntsc, capsys):
    assert main(["info", str(ntsc)]) == 0
    out = capsys.readouterr().out
    assert "29.970 (30000/1001)" in out and "64x48" in out and "frames:    60" in out
    assert "00:00:02.002" in out and "h264" in out


def test_info_json_is_one_object_per_video(ntsc, clip, capsys):
    assert main(["info", "--json", str(ntsc), str(clip)]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["fps"] for r in records] == ["30000/1001", "25"]
    assert records[0]["n_frames"] == 60 and records[1]["duration_s"] == 4.0


BAD = [
    ("missing.mp4", None, "no such file"),
    ("notes.mp4", b"hello\n" * 50, "not a video"),
    ("empty.mp4", b"", "empty"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD)
@pytest.mark.parametrize("command", ["info", "index"])
def test_bad_video_is_one_line_and_exit_2(
    tmp_path, capsys, fake_encoder, command, name, content, message
):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"longground: error: {path}: ") and message in line


def test_one_bad_video_does_not_stop_the_others(tmp_path, clip, capsys, fake_encoder):
    missing = tmp_path / "gone.mp4"
    assert main(["info", str(missing), str(clip)]) == 2
    assert "duration:" in capsys.readouterr().out
    assert main(["index", str(missing), str(clip)]) == 2
    captured = capsys.readouterr()
    assert "4 frames at 1 fps" in captured.out and "gone.mp4: no such file" in captured.err


def test_index_builds_then_reports_already_indexed(clip, tmp_path, capsys, fake_encoder):
    assert main(["index", str(clip), "--fps", "2", "--encoder", "fake", "--channels", "none"]) == 0
    first = capsys.readouterr()
    assert "8 frames at 2 fps with fake-mean-colour/1, built in" in first.out
    assert "frames/s" in first.out and first.err == ""  # no bar when stderr is not a terminal
    assert fake_encoder == ["fake"]
    assert len(list((tmp_path / "cache" / "timelines").glob("*.npz"))) == 1
    clear_memory_cache()
    assert main(["index", str(clip), "--fps", "2"]) == 0
    assert "already indexed" in capsys.readouterr().out


def test_index_cache_dir_option_wins(clip, tmp_path, capsys, fake_encoder):
    assert main(["index", str(clip), "--cache-dir", str(tmp_path / "elsewhere")]) == 0
    assert len(list((tmp_path / "elsewhere" / "timelines").glob("*.npz"))) == 1
    assert not (tmp_path / "cache").exists()


def test_index_turns_a_truncated_file_into_a_one_line_warning(tmp_path, capsys, fake_encoder):
    whole = write_scenes(tmp_path / "whole.mkv", seconds=6)
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert main(["index", str(cut), "--channels", "none"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("longground: warning: ")
    assert "decoding stopped at" in err[0]


def test_ctrl_c_inside_a_command_is_one_line_and_exit_130(clip, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("longground.video.probe", interrupted)
    assert main(["info", str(clip)]) == 130
    assert capsys.readouterr().err == "longground: interrupted\n"
