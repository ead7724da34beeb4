"""Seeing and reclaiming what longground keeps under its cache root (`longground cache`).

What is common to every kind of entry lives here: the `Entry` record, the `CacheKind`
interface and its registry, the selection rules, and the careful file removal. Each kind is
registered by the package that owns its files (`index.cache_kind`, `agent.graph.cache_kind`,
`llm.cache_kind`, `encoders.cache_kind`); only leftovers of interrupted writes (`temp`) are
this module's own. Only regular files are looked at: symbolic links are neither followed nor
removed, and a file is removed only after checking that it still sits, unlinked-to, in the
folder it was found in.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from .fingerprint import video_fingerprint
from .kinds import KINDS, LOCK_SUFFIX, STALE_TEMP_S, agent_video_fp, is_temp

# A temporary file younger than this may belong to a write in progress: it is never removed.
TEMP_GRACE_S = STALE_TEMP_S


@dataclass(frozen=True)
class Entry:
    """One removable thing in the cache.

    Attributes:
        kind: the name of its `CacheKind`.
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


class CacheKind:
    """One kind of cache entry: how to find, measure, describe and remove its entries.

    The defaults suit a kind whose entries are plain files in folders of the root; a kind
    stored otherwise (rows of a database) overrides `remove`, `disk_bytes`,
    `estimate_freed` and `describe`.

    Attributes:
        name: the kind's name in `KINDS` and on the command line (`--kind`).
        folders: folders of the root its files live in (where leftovers are looked for).
        records_video: its entries record their video's path, so `--missing-videos` can tell
            when the video is gone.
        follows_video: its entries belong to a video known only by fingerprint; they go with
            the last entry that recorded the video.
        grace_s: entries younger than this are never selected.
        lists_entries: `cache info --entries` lists each of its entries (`entry_lines`).
    """

    name: ClassVar[str]
    folders: ClassVar[tuple[str, ...]] = ()
    records_video: ClassVar[bool] = False
    follows_video: ClassVar[bool] = False
    grace_s: ClassVar[float] = 0.0
    lists_entries: ClassVar[bool] = False

    def scan(self, base: Path) -> list[Entry]:
        """Every entry of this kind under the resolved root `base`."""
        raise NotImplementedError

    def leftovers(self, base: Path) -> list[Entry]:
        """Files of this kind's that are no entry (e.g. a lock without its entry), as `temp`."""
        return []

    def disk_bytes(self, base: Path, entries: list[Entry]) -> int:
        """Bytes on disk of `entries` (all of this kind)."""
        return sum(e.nbytes for e in entries)

    def remove(self, entries: list[Entry], base: Path) -> int:
        """Remove `entries` (all of this kind); the bytes freed. A held `.lock` is kept."""
        freed = 0
        for entry in entries:
            for path in (entry.path, *entry.companions):
                if path.suffix != LOCK_SUFFIX or lock_is_free(path):
                    freed += unlink_inside(path, base)
        return freed

    def estimate_freed(self, doomed: list[Entry], entries: list[Entry], base: Path) -> int:
        """Bytes `remove(doomed)` would free; `entries` are all of this kind found."""
        return sum(e.nbytes for e in doomed)

    def describe(self, doomed: list[Entry], entries: list[Entry], base: Path) -> list[str]:
        """Lines for `clean --dry-run`, one per entry by default."""
        return [
            f"would remove {e.kind:<8} {e.path} ({format_bytes(e.nbytes)}, "
            f"modified {format_when(e.mtime_s)})"
            for e in doomed
        ]

    def entry_lines(self, entries: list[Entry]) -> list[str]:
        """A table of `entries` for `cache info --entries` (kinds with `lists_entries`)."""
        return [str(e.path) for e in entries]


class FilesKind(CacheKind):
    """A kind of one entry per file in its folder."""

    def scan(self, base: Path) -> list[Entry]:
        files = regular_files(base / self.folders[0], base)
        return [file_entry(self.name, p) for p in files if not p.name.startswith(".")]


class FingerprintFilesKind(CacheKind):
    """A kind of one file per entry in its folder, each named after its video's fingerprint
    (`<fingerprint>-...`): the file belongs to that video."""

    follows_video = True

    def scan(self, base: Path) -> list[Entry]:
        out = []
        for path in regular_files(base / self.folders[0], base):
            if path.name.startswith("."):
                continue
            stat = path.lstat()
            video_fp = agent_video_fp(path.name)
            out.append(Entry(self.name, path, stat.st_size, stat.st_mtime, video_fp=video_fp))
        return out


CACHE_KINDS: dict[str, CacheKind] = {}


def register_cache_kind(kind: CacheKind) -> CacheKind:
    """Make `kind` one of the kinds `scan`, `select` and `remove` know (its package calls
    this when imported; `cli.cache_cmd` imports every owning package)."""
    CACHE_KINDS[kind.name] = kind
    return kind


def kinds() -> list[CacheKind]:
    """The registered kinds, in `KINDS` order (others after them, by name)."""
    order = {name: i for i, name in enumerate(KINDS)}
    return sorted(CACHE_KINDS.values(), key=lambda k: (order.get(k.name, len(order)), k.name))


class TempKind(CacheKind):
    """Leftovers of interrupted writes: `atomic_open`'s temporary files beside any entry, and
    what each kind reports as leftover (`CacheKind.leftovers`)."""

    name = "temp"
    grace_s = TEMP_GRACE_S

    def scan(self, base: Path) -> list[Entry]:
        out = []
        folders = [base, *(base / f for k in kinds() for f in k.folders)]
        for folder in dict.fromkeys(folders):
            out += [file_entry("temp", p) for p in regular_files(folder, base) if is_temp(p.name)]
        for kind in kinds():
            out += kind.leftovers(base)
        return out


register_cache_kind(TempKind())


def scan(root: str | Path) -> list[Entry]:
    """Every entry under `root`, kind by kind in `KINDS` order; nothing when it does not exist.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / ".a.npz.x1y2.tmp").write_bytes(b"12345")
    >>> [(e.kind, e.path.name, e.nbytes) for e in scan(root)]
    [('temp', '.a.npz.x1y2.tmp', 5)]
    """
    base = Path(root).expanduser().resolve()
    return [entry for kind in kinds() for entry in kind.scan(base)]


def by_kind(entries: Iterable[Entry]) -> dict[str, list[Entry]]:
    """`entries` grouped by kind name, every registered kind present (possibly empty).

    >>> sorted(by_kind([Entry("temp", Path("x"), 7, 0.0)])["temp"][0].path.parts)
    ['x']
    """
    out: dict[str, list[Entry]] = {kind.name: [] for kind in kinds()}
    for entry in entries:
        out.setdefault(entry.kind, []).append(entry)
    return out


def usage(root: str | Path, entries: list[Entry]) -> dict[str, tuple[int, int]]:
    """`{kind: (entries, bytes on disk)}` for every kind (each kind measures its own bytes).

    >>> import tempfile
    >>> usage(tempfile.mkdtemp(), [Entry("temp", Path("x"), 7, 0.0)])["temp"]
    (1, 7)
    """
    base = Path(root).expanduser()
    groups = by_kind(entries)
    return {
        name: (len(group), CACHE_KINDS[name].disk_bytes(base, group))
        for name, group in groups.items()
    }


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
        missing_videos: only entries that record a video that is gone or has changed, and
            entries that follow a video no remaining entry records.
        now_s: the current time (default: now).

    Entries younger than their kind's `grace_s` (temporary files: `TEMP_GRACE_S`) are never
    selected.

    >>> old, new = Entry("temp", Path("a"), 1, 0.0), Entry("temp", Path("b"), 1, 1e9)
    >>> [e.path.name for e in select([old, new], older_than_s=86400, now_s=1e9)]
    ['a']
    """
    now_s = time.time() if now_s is None else now_s
    kinds = set(kinds)
    chosen = [e for e in entries if e.kind in kinds]
    if older_than_s is not None:
        chosen = [e for e in chosen if now_s - e.mtime_s > older_than_s]
    chosen = [e for e in chosen if now_s - e.mtime_s > _kind_of(e).grace_s]
    if missing_videos:
        chosen = _of_missing_videos(chosen, entries)
    return chosen


def video_kinds() -> tuple[str, ...]:
    """The kinds `--missing-videos` applies to (their entries belong to one video)."""
    return tuple(k.name for k in kinds() if k.records_video or k.follows_video)


def _kind_of(entry: Entry) -> CacheKind:
    return CACHE_KINDS[entry.kind]


def _of_missing_videos(chosen: list[Entry], entries: list[Entry]) -> list[Entry]:
    dead = [e for e in chosen if _kind_of(e).records_video and video_gone(e)]
    dead_paths = {e.path for e in dead}
    kept_fps = {
        e.video_fp for e in entries if _kind_of(e).records_video and e.path not in dead_paths
    }
    gone_fps = {e.video_fp for e in dead} - kept_fps
    return dead + [e for e in chosen if _kind_of(e).follows_video and e.video_fp in gone_fps]


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
    """Remove `entries` (from `scan` of the same `root`), each kind its own way; the bytes
    freed. Files that vanished meanwhile are skipped.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / ".a.npz.x1y2.tmp").write_bytes(b"12345")
    >>> remove(scan(root), root), scan(root)
    (5, [])
    """
    base = Path(root).expanduser().resolve()
    groups = by_kind(entries)
    return sum(CACHE_KINDS[name].remove(group, base) for name, group in groups.items() if group)


def estimate_freed(doomed: list[Entry], entries: list[Entry], root: str | Path) -> int:
    """Bytes `remove(doomed, root)` would free, each kind estimating its own.

    >>> doomed = [Entry("temp", Path("a"), 5, 0.0), Entry("temp", Path("b"), 7, 0.0)]
    >>> estimate_freed(doomed, doomed, "/nonexistent")
    12
    """
    base = Path(root).expanduser()
    found = by_kind(entries)
    return sum(
        CACHE_KINDS[name].estimate_freed(group, found.get(name, []), base)
        for name, group in by_kind(doomed).items()
        if group
    )


def describe(doomed: list[Entry], entries: list[Entry], root: str | Path) -> list[str]:
    """What `clean --dry-run` prints: each kind's lines for its doomed entries."""
    base = Path(root).expanduser()
    found = by_kind(entries)
    lines = []
    for name, group in by_kind(doomed).items():
        if group:
            lines += CACHE_KINDS[name].describe(group, found.get(name, []), base)
    return lines


def summary(doomed: list[Entry]) -> str:
    """`3 index, 1 temp entries`: how many entries of each kind.

    >>> summary([Entry("temp", Path("a"), 1, 0.0)] * 2)
    '2 temp entries'
    """
    counts = Counter(e.kind for e in doomed)
    return ", ".join(f"{counts[k.name]} {k.name}" for k in kinds() if counts[k.name]) + " entries"


def format_bytes(nbytes: float) -> str:
    """Sizes for people, in powers of 1024.

    >>> format_bytes(0), format_bytes(1536), format_bytes(5 * 2**30)
    ('0 B', '1.5 KiB', '5.0 GiB')
    """
    units, power = ("B", "KiB", "MiB", "GiB", "TiB"), 0
    while abs(nbytes) >= 1024 and power < len(units) - 1:
        nbytes, power = nbytes / 1024, power + 1
    return f"{nbytes:.0f} B" if power == 0 else f"{nbytes:.1f} {units[power]}"


def format_when(mtime_s: float) -> str:
    """A modification time for people, local time to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime_s))


# Filesystem helpers: nothing here follows a symbolic link.


def regular_files(folder: Path, base: Path) -> list[Path]:
    """Regular files directly in `folder`, which must be `base` or a real folder inside it."""
    if folder != base and (folder.is_symlink() or folder.parent != base):
        return []
    try:
        with os.scandir(folder) as items:
            return sorted(folder / i.name for i in items if i.is_file(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []


def file_entry(kind: str, path: Path) -> Entry:
    stat = path.lstat()
    return Entry(kind, path, stat.st_size, stat.st_mtime)


def file_size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except FileNotFoundError:
        return 0


def unlink_inside(path: Path, base: Path) -> int:
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


def lock_is_free(path: Path) -> bool:
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
