"""`longground cache info|clean` on a real cache built by the real writers."""

from __future__ import annotations

import fcntl
import io
import json
import os
import sqlite3
import time

import numpy as np
import pytest

from longground.agent.graph.cache import GraphCache
from longground.cli.main import main
from longground.encoders.disk_cache import cached_array
from longground.index import CACHE_ENV, FeatureStore, clear_memory_cache, video_fingerprint
from longground.llm.base import Completion
from longground.llm.cache import CACHE_FILE, ResponseCache
from tests.index.test_index import MeanColour, write_scenes

DAY_S = 86400.0


class Cache:
    """A cache root holding two index entries (videos a and b), two agent files, three llm
    answers, one encoder array, and three leftovers: a stale temp file, a fresh one, and a
    lock file without an entry."""

    def __init__(self, tmp_path):
        self.root = tmp_path / "cache"
        self.videos = {n: write_scenes(tmp_path / f"{n}.mp4", seconds=2) for n in "ab"}
        store = FeatureStore(self.root)
        self.index = {}
        for name, video in self.videos.items():
            store.get_or_build(video, MeanColour(), 1.0, progress=False)
            key = store.key(video, MeanColour.encoder_id, 1.0)
            self.index[name] = store.path_for(video, key)
        self.fps = {n: video_fingerprint(v) for n, v in self.videos.items()}
        graphs = GraphCache(self.root / "agent")
        for fp in self.fps.values():
            graphs.put_events(f"{fp}-0123abcd", ("long", 0.8), np.array([[0, 2]]))
        self.agent = {n: self.root / "agent" / f"{fp}-0123abcd.json" for n, fp in self.fps.items()}
        answers = ResponseCache(self.root / CACHE_FILE)
        for i in range(3):
            answers.put(f"k{i}", "model", Completion(f"[[{i}, {i + 1}]]" * 50, prompt_tokens=3))
        answers.close()
        cached_array("demo-0123", (16,), lambda: np.ones(16), self.root)
        self.encoder = self.root / "encoders" / "demo-0123.npy"
        self.library = _touch(self.root / "library" / "0123abcd.usearch", b"ann", age_s=0)
        timelines = self.root / "timelines"
        self.stale_temp = _touch(timelines / ".a.npz.x1y2.tmp", b"half", age_s=2 * 3600)
        self.fresh_temp = _touch(timelines / ".b.npz.z3w4.tmp", b"writing", age_s=0)
        self.orphan_lock = _touch(timelines / "gone.0123.lock", b"", age_s=2 * 3600)
        clear_memory_cache()

    def files(self) -> dict[str, tuple[int, int]]:
        """Every file under the root: relative path -> (size, mtime_ns)."""
        out = {}
        for path in self.root.rglob("*"):
            if path.is_file():
                stat = path.stat()
                out[str(path.relative_to(self.root))] = (stat.st_size, stat.st_mtime_ns)
        return out

    def answers(self) -> int:
        with sqlite3.connect(self.root / CACHE_FILE) as db:
            return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def _touch(path, data: bytes, age_s: float):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _age(path, age_s)
    return path


def _age(path, age_s: float) -> None:
    when = time.time() - age_s
    os.utime(path, (when, when))


def _set_video_path(entry, video_path) -> None:
    """Rewrite an index entry's manifest with (or without) a `video_path` field."""
    with np.load(entry, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    manifest = json.loads(str(arrays.pop("manifest")))
    manifest.pop("video_path", None)
    if video_path is not None:
        manifest["video_path"] = str(video_path)
    np.savez(entry, manifest=np.array(json.dumps(manifest)), **arrays)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal
    built = Cache(tmp_path)
    yield built
    clear_memory_cache()


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def info_json(capsys, cache) -> dict:
    code, out, _ = run(capsys, "cache", "info", "--json", "--cache-dir", str(cache.root))
    assert code == 0
    return json.loads(out)


def test_info_counts_and_sizes_every_kind(cache, capsys):
    kinds = info_json(capsys, cache)["kinds"]
    assert {k: v["entries"] for k, v in kinds.items()} == {
        "index": 2, "agent": 2, "channels": 0, "llm": 3, "encoders": 1, "library": 1, "temp": 3
    }  # fmt: skip
    timelines = [p for p in (cache.root / "timelines").iterdir() if not p.name.startswith(".")]
    index_files = [p for p in timelines if p != cache.orphan_lock]
    assert len(index_files) == 4  # two entries, each with its lock
    assert kinds["index"]["bytes"] == sum(p.stat().st_size for p in index_files)
    assert kinds["agent"]["bytes"] == sum(p.stat().st_size for p in cache.agent.values())
    assert kinds["encoders"]["bytes"] == cache.encoder.stat().st_size == 128 + 16 * 4
    assert kinds["library"]["bytes"] == len(b"ann")
    assert kinds["temp"]["bytes"] == len(b"half") + len(b"writing")
    llm_files = list(cache.root.glob(CACHE_FILE + "*"))
    assert kinds["llm"]["bytes"] == sum(p.stat().st_size for p in llm_files) > 0


def test_info_text_is_short_and_entries_list_each_timeline(cache, capsys):
    code, out, _ = run(capsys, "cache", "list", "--cache", str(cache.root))
    assert code == 0 and out.splitlines()[0] == f"cache root: {cache.root}"
    assert len(out.splitlines()) == 10 and "fake-mean-colour" not in out
    _set_video_path(cache.index["b"], None)  # as written before paths were recorded
    code, out, _ = run(capsys, "cache", "info", "--entries", "--cache-dir", str(cache.root))
    rows = [line for line in out.splitlines() if "fake-mean-colour/1" in line]
    assert len(rows) == 2 and all(" 1  " in row for row in rows)
    assert any(row.endswith(str(cache.videos["a"])) for row in rows)
    assert any(row.endswith("b (path not recorded)") for row in rows)
    (cache.root / "timelines" / "junk.0123.npz").write_bytes(b"not a zip")
    code, out, _ = run(capsys, "cache", "info", "--entries", "--cache-dir", str(cache.root))
    assert "? (unreadable)" in out and out.splitlines()[2].split()[:2] == ["index", "3"]


def test_info_json_entries_and_the_environment_root(cache, capsys, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(cache.root))
    code, out, _ = run(capsys, "cache", "info", "--json", "--entries")
    record = json.loads(out)
    assert code == 0 and record["root"] == str(cache.root)
    entries = sorted(record["index_entries"], key=lambda e: e["path"])
    assert [e["path"] for e in entries] == sorted(str(p) for p in cache.index.values())
    assert {(e["encoder_id"], e["fps"]) for e in entries} == {("fake-mean-colour/1", 1.0)}
    assert {e["video_fingerprint"] for e in entries} == set(cache.fps.values())


def test_dry_run_lists_what_would_go_and_removes_nothing(cache, capsys):
    before = cache.files()
    code, out, _ = run(capsys, "cache", "clean", "--dry-run", "--cache-dir", str(cache.root))
    assert code == 0 and cache.files() == before
    assert str(cache.stale_temp) in out and str(cache.orphan_lock) in out
    assert str(cache.fresh_temp) not in out  # may belong to a write in progress
    assert "3 of 3 stored answers" in out and str(cache.encoder) in out
    would_free = out.splitlines()[-1].split("; dry run")[0].removeprefix("would free ")
    code, out, _ = run(capsys, "cache", "clean", "--yes", "--cache-dir", str(cache.root))
    assert code == 0 and out.strip().endswith(f"freed {would_free}")


def test_clean_without_yes_refuses_when_stdin_is_not_a_terminal(cache, capsys):
    before = cache.files()
    code, out, err = run(capsys, "cache", "clean", "--cache-dir", str(cache.root))
    assert code == 2 and cache.files() == before
    assert err.count("\n") == 1 and "--yes" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("answer, code, removed", [("n\n", 1, False), ("y\n", 0, True)])
def test_clean_asks_on_a_terminal(cache, capsys, monkeypatch, answer, code, removed):
    monkeypatch.setattr("sys.stdin", _Terminal(answer))
    args = ("cache", "clean", "--kind", "encoders", "--cache-dir", str(cache.root))
    assert run(capsys, *args)[0] == code
    assert cache.encoder.exists() is not removed


def test_older_than_goes_by_modification_time(cache, capsys):
    _age(cache.index["a"], 10 * DAY_S)
    _age(cache.agent["a"], 10 * DAY_S)
    _age(cache.stale_temp, 10 * DAY_S)
    _age(cache.encoder, 3 * DAY_S)
    stored_s = time.time() - 9 * DAY_S
    with sqlite3.connect(cache.root / CACHE_FILE) as db:
        db.execute("UPDATE responses SET created_s = ? WHERE key = 'k0'", (stored_s,))
    db.close()
    before = sum(size for size, _ in cache.files().values())
    args = ("cache", "clean", "--older-than", "5", "--cache-dir", str(cache.root))
    out = run(capsys, *args, "--dry-run")[1]
    assert "would remove llm      1 of 3 stored answers" in out and str(cache.encoder) not in out
    args = (*args, "--yes")
    code, out, _ = run(capsys, *args)
    after = sum(size for size, _ in cache.files().values())
    assert before - after > 1024  # the index entry alone is bigger
    assert code == 0 and out.strip().endswith(f"({before - after} bytes)")
    assert not cache.index["a"].exists() and not cache.index["a"].with_suffix(".lock").exists()
    assert not cache.agent["a"].exists() and not cache.stale_temp.exists()
    assert cache.index["b"].exists() and cache.agent["b"].exists() and cache.encoder.exists()
    assert cache.orphan_lock.exists() and cache.fresh_temp.exists()
    assert cache.answers() == 2


def test_kind_limits_what_is_removed(cache, capsys):
    before = cache.files()
    args = ("cache", "clean", "--kind", "temp", "--kind", "encoders", "-y")
    code, out, _ = run(capsys, *args, "--cache-dir", str(cache.root))
    gone = set(before) - set(cache.files())
    rel = {str(p.relative_to(cache.root)) for p in (cache.stale_temp, cache.orphan_lock)}
    assert code == 0 and gone == rel | {"encoders/demo-0123.npy"}
    assert "removed 1 encoders, 2 temp entries" in out


def test_missing_videos_removes_entries_of_gone_or_changed_videos(cache, capsys):
    for name in "ab":  # the store records each entry's video
        with np.load(cache.index[name], allow_pickle=False) as npz:
            recorded = json.loads(str(npz["manifest"]))["video_path"]
        assert recorded == str(cache.videos[name].resolve())
    cache.videos["a"].unlink()
    args = ("cache", "clean", "--missing-videos", "--yes", "--cache-dir", str(cache.root))
    assert run(capsys, *args)[0] == 0
    assert not cache.index["a"].exists() and not cache.agent["a"].exists()
    assert cache.index["b"].exists() and cache.agent["b"].exists()
    assert cache.encoder.exists() and cache.stale_temp.exists() and cache.answers() == 3
    cache.videos["b"].write_bytes(b"re-encoded")  # same path, another file
    assert run(capsys, *args)[0] == 0
    assert not cache.index["b"].exists() and not cache.agent["b"].exists()


def test_missing_videos_keeps_entries_that_do_not_record_their_video(cache, capsys):
    _set_video_path(cache.index["a"], None)
    cache.videos["a"].unlink()
    before = cache.files()
    args = ("cache", "clean", "--missing-videos", "--yes", "--cache-dir", str(cache.root))
    code, out, _ = run(capsys, *args)
    assert code == 0 and out.strip() == "nothing to remove" and cache.files() == before
    code, _, err = run(capsys, *args, "--kind", "llm")
    assert code == 2 and "--missing-videos" in err


def test_clean_everything_then_the_store_rebuilds(cache, capsys):
    code, out, _ = run(capsys, "cache", "clean", "--yes", "--cache-dir", str(cache.root))
    assert code == 0 and "freed" in out
    kinds = info_json(capsys, cache)["kinds"]
    assert {k: v["entries"] for k, v in kinds.items()} == {
        "index": 0, "agent": 0, "channels": 0, "llm": 0, "encoders": 0, "library": 0, "temp": 1
    }  # fmt: skip
    assert cache.fresh_temp.exists() and not list(cache.root.glob(CACHE_FILE + "*"))
    clear_memory_cache()
    encoder = MeanColour()
    timeline = FeatureStore(cache.root).get_or_build(cache.videos["a"], encoder, 1.0, False)
    assert encoder.calls > 0 and len(timeline) == 2 and cache.index["a"].exists()
    clear_memory_cache()
    again = FeatureStore(cache.root).get(cache.videos["a"], encoder.encoder_id, 1.0)
    assert again is not None and np.array_equal(again.features["embedding"],
                                                timeline.features["embedding"])  # fmt: skip


def test_symlinks_are_neither_followed_nor_removed(cache, capsys, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    precious = _touch(outside / "precious.npz", b"keep me", age_s=30 * DAY_S)
    _touch(outside / "weights.npy", b"keep me too", age_s=30 * DAY_S)
    (cache.root / "timelines" / "link.0123.npz").symlink_to(precious)
    (cache.root / "encoders").rename(tmp_path / "real-encoders")
    (cache.root / "encoders").symlink_to(outside, target_is_directory=True)
    kinds = info_json(capsys, cache)["kinds"]
    assert kinds["index"]["entries"] == 2 and kinds["encoders"]["entries"] == 0
    assert run(capsys, "cache", "clean", "--yes", "--cache-dir", str(cache.root))[0] == 0
    assert sorted(p.name for p in outside.iterdir()) == ["precious.npz", "weights.npy"]
    assert (cache.root / "timelines" / "link.0123.npz").is_symlink()
    assert not cache.index["a"].exists()


def test_a_held_build_lock_is_kept(cache, capsys):
    lock = cache.index["a"].with_suffix(".lock")
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        args = ("cache", "clean", "--kind", "index", "--yes", "--cache-dir", str(cache.root))
        assert run(capsys, *args)[0] == 0
    assert lock.exists() and not cache.index["a"].exists()
    assert not cache.index["b"].with_suffix(".lock").exists()
