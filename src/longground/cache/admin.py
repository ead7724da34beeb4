"""Seeing and reclaiming what longground keeps under its cache root (`longground cache`).

The kinds and where each lives are in `kinds`. Only regular files are looked at: symbolic
links are neither followed nor removed, and a file is removed only after checking that it
still sits, unlinked-to, in the folder it was found in.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .fingerprint import video_fingerprint
from .kinds import (
    AGENT_DIR,
    CHANNELS_DIR,
    ENCODERS_DIR,
    INDEX_DIR,
    KINDS,
    LLM_FILE,
    LLM_FILES,
    LOCK_SUFFIX,
    STALE_TEMP_S,
    agent_video_fp,
    is_temp,
    lock_path,
)

# A temporary file younger than this may belong to a write in progress: it is never removed.
TEMP_GRACE_S = STALE_TEMP_S


@dataclass(frozen=True)
class Entry:
    """One removable thing in the cache.

    Attributes:
        kind: one of `KINDS`.
        path: the file (for an llm answer: the database holding it).
        nbytes: bytes on disk (for an llm answer: the size of its row's data, an estimate of
            what removing it frees).
        mtime_s: last modification, seconds since the epoch (llm answer: when it was stored).
        companions: files removed with it (an index entry's `.lock`).
        video_fp: fingerprint of the source video (index and agent entries).
        video_path: the source video as the index manifest records it, if it does.
        encoder_id: index entries: the encoder's id.
        fps: index entries: samples per second.
        row_key: llm answers: the row's key; None for a database that cannot be read.
    """

    kind: str
    path: Path
    nbytes: int
    mtime_s: float
    companions: tuple[Path, ...] = ()
    video_fp: str | None = None
    video_path: str | None = None
    encoder_id: str | None = None
    fps: float | None = None
    row_key: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready fields (paths as strings).

        >>> Entry("temp", Path("/c/.a.tmp"), 3, 0.0).to_dict()["path"]
        '/c/.a.tmp'
        """
        return {
            "kind": self.kind,
            "path": str(self.path),
            "bytes": self.nbytes,
            "mtime_s": self.mtime_s,
            "video_path": self.video_path,
            "video_fingerprint": self.video_fp,
            "encoder_id": self.encoder_id,
            "fps": self.fps,
        }


def scan(root: str | Path) -> list[Entry]:
    """Every entry under `root`, kind by kind in `KINDS` order; nothing when it does not exist.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "encoders").mkdir(), (root / "encoders" / "a.npy").write_bytes(b"12345")
    >>> [(e.kind, e.path.name, e.nbytes) for e in scan(root)]
    [('encoders', 'a.npy', 5)]
    """
    base = Path(root).expanduser().resolve()
    return [entry for kind in KINDS for entry in SCANNERS[kind](base)]


def usage(root: str | Path, entries: list[Entry]) -> dict[str, tuple[int, int]]:
    """`{kind: (entries, bytes on disk)}` for every kind; llm bytes are the database files'.

    >>> import tempfile
    >>> usage(tempfile.mkdtemp(), [Entry("temp", Path("x"), 7, 0.0)])["temp"]
    (1, 7)
    """
    totals = {kind: (0, 0) for kind in KINDS}
    for entry in entries:
        count, nbytes = totals[entry.kind]
        totals[entry.kind] = (count + 1, nbytes + entry.nbytes)
    llm_count = totals["llm"][0]
    totals["llm"] = (llm_count, sum(_size(p) for p in _llm_files(Path(root).expanduser())))
    return totals


def select(
    entries: list[Entry],
    kinds: Iterable[str] = KINDS,
    older_than_s: float | None = None,
    missing_videos: bool = False,
    now_s: float | None = None,
) -> list[Entry]:
    """The entries a clean with these rules removes.

    Args:
        entries: from `scan`.
        kinds: only these kinds.
        older_than_s: only entries last modified more than this many seconds ago.
        missing_videos: only index entries whose recorded video is gone or has changed, and
            agent files of videos that no remaining index entry refers to.
        now_s: the current time (default: now).

    Temporary files younger than `TEMP_GRACE_S` are never selected.

    >>> old, new = Entry("temp", Path("a"), 1, 0.0), Entry("temp", Path("b"), 1, 1e9)
    >>> [e.path.name for e in select([old, new], older_than_s=86400, now_s=1e9)]
    ['a']
    """
    now_s = time.time() if now_s is None else now_s
    kinds = set(kinds)
    chosen = [e for e in entries if e.kind in kinds]
    if older_than_s is not None:
        chosen = [e for e in chosen if now_s - e.mtime_s > older_than_s]
    chosen = [e for e in chosen if e.kind != "temp" or now_s - e.mtime_s > TEMP_GRACE_S]
    if missing_videos:
        chosen = _of_missing_videos(chosen, entries)
    return chosen


def _of_missing_videos(chosen: list[Entry], entries: list[Entry]) -> list[Entry]:
    dead = [e for e in chosen if e.kind == "index" and video_gone(e)]
    dead_paths = {e.path for e in dead}
    kept_fps = {e.video_fp for e in entries if e.kind == "index" and e.path not in dead_paths}
    gone_fps = {e.video_fp for e in dead} - kept_fps
    return dead + [e for e in chosen if e.kind == "agent" and e.video_fp in gone_fps]


def video_gone(entry: Entry) -> bool:
    """True when the entry records its video's path and that file is missing or has changed
    (another fingerprint), so the entry can no longer be found from that path.

    >>> video_gone(Entry("index", Path("a.npz"), 1, 0.0, video_path="/no/such.mp4"))
    True
    >>> video_gone(Entry("index", Path("a.npz"), 1, 0.0))  # path not recorded: unknown
    False
    """
    if entry.video_path is None:
        return False
    try:
        return video_fingerprint(entry.video_path) != entry.video_fp
    except OSError:
        return True


def remove(entries: list[Entry], root: str | Path) -> int:
    """Remove `entries` (from `scan` of the same `root`); the bytes freed.

    Files that vanished meanwhile are skipped; a `.lock` that a build holds is kept.
    llm answers are deleted row by row (the database is then compacted, or removed when no
    answer is left).

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "encoders").mkdir(), (root / "encoders" / "a.npy").write_bytes(b"12345")
    >>> remove(scan(root), root), scan(root)
    (5, [])
    """
    base = Path(root).expanduser().resolve()
    freed = 0
    rows: dict[Path, list[Entry]] = {}
    for entry in entries:
        if entry.kind == "llm":
            rows.setdefault(entry.path, []).append(entry)
            continue
        for path in (entry.path, *entry.companions):
            if path.suffix != LOCK_SUFFIX or _lock_is_free(path):
                freed += _unlink_inside(path, base)
    for db, answers in rows.items():
        freed += _remove_answers(db, answers, base)
    return freed


def estimate_freed(doomed: list[Entry], entries: list[Entry], root: str | Path) -> int:
    """Bytes `remove(doomed, root)` would free: exact for files and for an llm database that
    loses every answer, otherwise the size of the removed answers' data.

    >>> doomed = [Entry("temp", Path("a"), 5, 0.0), Entry("agent", Path("b"), 7, 0.0)]
    >>> estimate_freed(doomed, doomed, "/nonexistent")
    12
    """
    answers = [e for e in doomed if e.kind == "llm"]
    files = sum(e.nbytes for e in doomed if e.kind != "llm")
    if answers and len(answers) == sum(e.kind == "llm" for e in entries):
        return files + usage(root, [])["llm"][1]
    return files + sum(e.nbytes for e in answers)


def format_bytes(nbytes: float) -> str:
    """Sizes for people, in powers of 1024.

    >>> format_bytes(0), format_bytes(1536), format_bytes(5 * 2**30)
    ('0 B', '1.5 KiB', '5.0 GiB')
    """
    units, power = ("B", "KiB", "MiB", "GiB", "TiB"), 0
    while abs(nbytes) >= 1024 and power < len(units) - 1:
        nbytes, power = nbytes / 1024, power + 1
    return f"{nbytes:.0f} B" if power == 0 else f"{nbytes:.1f} {units[power]}"


# Scanners: one per kind, each `(resolved root) -> entries`.


def _index_entries(base: Path) -> list[Entry]:
    files = _regular_files(base / INDEX_DIR, base)
    names = {f.name for f in files}
    out = []
    for path in files:
        if path.name.startswith(".") or path.suffix != ".npz":
            continue
        lock = lock_path(path)
        manifest = _read_manifest(path)
        key = manifest.get("key") if isinstance(manifest.get("key"), dict) else {}
        stat = path.lstat()
        out.append(
            Entry(
                "index",
                path,
                stat.st_size,
                stat.st_mtime,
                companions=(lock,) if lock.name in names else (),
                video_fp=key.get("video"),
                video_path=manifest.get("video_path"),
                encoder_id=manifest.get("encoder_id"),
                fps=fps if isinstance(fps := manifest.get("fps"), (int, float)) else None,
            )
        )
    return out


def _agent_entries(base: Path, kind: str = "agent", folder: str = AGENT_DIR) -> list[Entry]:
    out = []
    for path in _regular_files(base / folder, base):
        if path.name.startswith("."):
            continue
        stat = path.lstat()
        video_fp = agent_video_fp(path.name)
        out.append(Entry(kind, path, stat.st_size, stat.st_mtime, video_fp=video_fp))
    return out


def _channel_entries(base: Path) -> list[Entry]:
    return _agent_entries(base, "channels", CHANNELS_DIR)


def _encoder_entries(base: Path) -> list[Entry]:
    return [_file_entry("encoders", p) for p in _regular_files(base / ENCODERS_DIR, base)
            if not p.name.startswith(".")]  # fmt: skip


def _temp_entries(base: Path) -> list[Entry]:
    out = []
    for folder in (base, base / INDEX_DIR, base / AGENT_DIR, base / CHANNELS_DIR,
                   base / ENCODERS_DIR):
        files = _regular_files(folder, base)
        out += [_file_entry("temp", p) for p in files if is_temp(p.name)]
    index_files = _regular_files(base / INDEX_DIR, base)
    entries = {p.with_suffix("") for p in index_files if p.suffix == ".npz"}
    out += [_file_entry("temp", p) for p in index_files
            if p.suffix == LOCK_SUFFIX and p.with_suffix("") not in entries]  # fmt: skip
    return out


def _llm_entries(base: Path) -> list[Entry]:
    db = base / LLM_FILE
    if db not in _regular_files(base, base):
        return []
    try:  # read-write, so that closing removes the -wal/-shm files that opening creates
        connection = sqlite3.connect(db, timeout=60.0)
        try:
            rows = connection.execute(
                "SELECT key, created_s, length(CAST(key AS BLOB)) + length(CAST(model AS BLOB))"
                " + length(CAST(text AS BLOB)) + 40 FROM responses"
            ).fetchall()
        finally:
            connection.close()
    except sqlite3.Error:  # not a database, or another schema: the file is one entry
        return [_file_entry("llm", db)]
    mtime_s = db.lstat().st_mtime
    return [
        Entry("llm", db, int(nbytes or 0), mtime_s if created is None else float(created),
              row_key=key)
        for key, created, nbytes in rows
    ]  # fmt: skip


SCANNERS: dict[str, Callable[[Path], list[Entry]]] = {
    "index": _index_entries,
    "agent": _agent_entries,
    "channels": _channel_entries,
    "llm": _llm_entries,
    "encoders": _encoder_entries,
    "temp": _temp_entries,
}


# Filesystem helpers: nothing here follows a symbolic link.


def _regular_files(folder: Path, base: Path) -> list[Path]:
    """Regular files directly in `folder`, which must be `base` or a real folder inside it."""
    if folder != base and (folder.is_symlink() or folder.parent != base):
        return []
    try:
        with os.scandir(folder) as items:
            return sorted(folder / i.name for i in items if i.is_file(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _file_entry(kind: str, path: Path) -> Entry:
    stat = path.lstat()
    return Entry(kind, path, stat.st_size, stat.st_mtime)


def _read_manifest(path: Path) -> dict:
    """The JSON manifest of an index entry (see `index.storage`); `{}` when unreadable."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            manifest = json.loads(str(npz["manifest"]))
    except Exception:  # a damaged entry is still an entry; it just tells nothing
        return {}
    return manifest if isinstance(manifest, dict) else {}


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except FileNotFoundError:
        return 0


def _unlink_inside(path: Path, base: Path) -> int:
    """Remove a regular file found under `base`; its size, or 0 when it is gone or unsafe."""
    folder = path.parent
    if folder != base and (folder.is_symlink() or folder.parent != base):
        return 0
    try:
        stat = path.lstat()
        if path.is_symlink() or not path.is_file():
            return 0
        path.unlink()
    except FileNotFoundError:
        return 0
    return stat.st_size


def _lock_is_free(path: Path) -> bool:
    """False while another process holds the build lock on `path` (POSIX `flock`)."""
    try:
        import fcntl
    except ImportError:
        return True
    try:
        with open(path, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


def _llm_files(base: Path) -> list[Path]:
    return [base / name for name in LLM_FILES]


def _remove_answers(db: Path, answers: list[Entry], base: Path) -> int:
    """Delete these rows; compact the database, or remove its files when it is left empty."""
    files = [p for p in _llm_files(base) if p.parent == db.parent]
    before = sum(_size(p) for p in files)
    keys = [(e.row_key,) for e in answers if e.row_key is not None]
    left = 0
    if keys and db.parent == base and not db.is_symlink():
        connection = sqlite3.connect(db, timeout=60.0)
        try:
            with connection:
                connection.executemany("DELETE FROM responses WHERE key = ?", keys)
            left = connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            if left:
                connection.execute("VACUUM")
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    if not left:
        for path in files:
            _unlink_inside(path, base)
    return max(0, before - sum(_size(p) for p in files))
