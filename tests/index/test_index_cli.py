"""`longground index FOLDER`, `--watch`, and the library's search index kept up to date."""

from __future__ import annotations

import json
import os

import pytest

import longground.index.watch as watch
from longground.cli.main import main
from longground.index.indexer import Indexer, IndexJob
from tests.support.hostile import register_test_encoder
from tests.support.videos import write_scenes

pytest.importorskip("faiss")


@pytest.fixture
def encoder(monkeypatch):
    return register_test_encoder(monkeypatch)


def library_manifest(cache):
    (path,) = (cache / "library").glob("*.json")
    return json.loads(path.read_text())


def videos_of(manifest) -> set[str]:
    return {os.path.basename(entry["video"]) for entry in manifest["entries"].values()}


def test_index_a_folder_then_the_library_knows_every_video(tmp_path, capsys, encoder):
    lib = tmp_path / "lib"
    for name in ("a.mp4", "sub/b.mkv"):
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        write_scenes(lib / name, 3, 10)
    cache = tmp_path / "cache"
    assert main(["index", str(lib), "--encoder", encoder, "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(", built in " in line for line in out)
    assert videos_of(library_manifest(cache)) == {"a.mp4", "b.mkv"}
    write_scenes(lib / "a.mp4", 4, 10)  # the file changed: a new entry, the old one leaves
    assert main(["index", str(lib), "--encoder", encoder, "--cache-dir", str(cache)]) == 0
    assert "already indexed" in capsys.readouterr().out
    manifest = library_manifest(cache)
    assert len(manifest["entries"]) == 2 and videos_of(manifest) == {"a.mp4", "b.mkv"}


def test_watch_indexes_new_files_and_drops_removed_ones(tmp_path, capsys, encoder, monkeypatch):
    lib, cache = tmp_path / "lib", tmp_path / "cache"
    lib.mkdir()
    old = write_scenes(lib / "a.mp4", 3, 10)
    new, states = lib / "new.mp4", []

    def changes(folders, seen, interval_s):  # what polling would report, in two polls
        write_scenes(new, 3, 10)
        seen.add(new)
        yield [new], []
        states.append(videos_of(library_manifest(cache)))
        old.unlink()
        seen.discard(old)
        yield [], [old]
        states.append(videos_of(library_manifest(cache)))
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "poll_changes", changes)
    argv = ["index", str(lib), "--watch", "--interval", "0.1", "--encoder", encoder,
            "--cache-dir", str(cache)]  # fmt: skip
    assert main(argv) == 130
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if line.startswith("longground: note:")]
    assert notes == [f"longground: note: watching {lib} (Ctrl-C to stop)",
                     f"longground: note: new video {new}",
                     f"longground: note: {old} is gone; dropped from the library"]  # fmt: skip
    assert states == [{"a.mp4", "new.mp4"}, {"new.mp4"}]
    assert captured.out.count(", built in ") == 2


def test_watch_needs_a_folder(tmp_path, capsys, encoder):
    video = write_scenes(tmp_path / "a.mp4", 2, 10)
    assert main(["index", str(video), "--watch", "--encoder", encoder]) == 2
    assert capsys.readouterr().err.strip() == "longground: error: --watch needs a folder to watch"


def test_a_video_this_node_cannot_read_is_its_own_error_record(tmp_path, encoder):
    indexer = Indexer(IndexJob(encoder, 1.0, tmp_path / "cache"))
    record = indexer.index(tmp_path / "gone.mp4")
    assert record["error"].startswith(f"{tmp_path / 'gone.mp4'}: no such file (on ")
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video")
    assert "not a video FFmpeg can read" in indexer.index(broken)["error"]
    good = indexer.index(write_scenes(tmp_path / "ok.mp4", 2, 10))
    assert good["built"] and good["frames"] == 2 and "error" not in good
    assert indexer.index(tmp_path / "ok.mp4")["built"] is False


def test_an_entry_that_cannot_be_written_is_that_videos_error(tmp_path, encoder, monkeypatch):
    from longground.index import store

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "cache"))

    monkeypatch.setattr(store, "write_timeline", refuse)
    record = Indexer(IndexJob(encoder, 1.0, tmp_path / "cache")).index(
        write_scenes(tmp_path / "ok.mp4", 2, 10)
    )
    expected = f"cannot write {tmp_path / 'cache'}: Permission denied"
    assert record["error"].endswith(expected)
