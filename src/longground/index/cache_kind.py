"""The `index` kind of cache entry: feature timelines (`timelines/<stem>.<digest>.npz` and
their build `.lock`), registered with `cache.admin` by the package that writes them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..cache.admin import (
    CacheKind,
    Entry,
    FilesKind,
    file_entry,
    format_bytes,
    format_when,
    register_cache_kind,
    regular_files,
)
from ..cache.kinds import INDEX_DIR, LIBRARY_DIR, LOCK_SUFFIX, lock_path
from .storage import manifest_rate


class IndexKind(CacheKind):
    """One entry per timeline; its manifest tells the video, the encoder and the rate."""

    name = "index"
    folders = (INDEX_DIR,)
    records_video = True
    lists_entries = True

    def scan(self, base: Path) -> list[Entry]:
        files = regular_files(base / INDEX_DIR, base)
        names = {f.name for f in files}
        out = []
        for path in files:
            if path.name.startswith(".") or path.suffix != ".npz":
                continue
            lock = lock_path(path)
            manifest = read_manifest(path)
            key = manifest.get("key") if isinstance(manifest.get("key"), dict) else {}
            fps = manifest.get("fps")
            stat = path.lstat()
            out.append(
                Entry(
                    self.name,
                    path,
                    stat.st_size,
                    stat.st_mtime,
                    companions=(lock,) if lock.name in names else (),
                    video_fp=key.get("video"),
                    video_path=manifest.get("video_path"),
                    encoder_id=manifest.get("encoder_id"),
                    fps=_rate(fps),
                )
            )
        return out

    def leftovers(self, base: Path) -> list[Entry]:
        """Build locks whose entry is gone."""
        files = regular_files(base / INDEX_DIR, base)
        entries = {p.with_suffix("") for p in files if p.suffix == ".npz"}
        return [file_entry("temp", p) for p in files
                if p.suffix == LOCK_SUFFIX and p.with_suffix("") not in entries]  # fmt: skip

    def entry_lines(self, entries: list[Entry]) -> list[str]:
        """Newest first: modified, size, rate, encoder and video of each timeline."""
        if not entries:
            return ["no index entries"]
        encoders = [e.encoder_id or "? (unreadable)" for e in entries]
        width = max(len("encoder"), *map(len, encoders)) + 2
        lines = [f"{'modified':<17}{'size':>11}  {'fps':>6}  {'encoder':<{width}}video"]
        pairs = sorted(zip(entries, encoders), key=lambda p: p[0].mtime_s, reverse=True)
        for entry, encoder in pairs:
            stem = entry.path.name.rsplit(".", 2)[0]
            video = entry.video_path or f"{stem} (path not recorded)"
            fps = "?" if entry.fps is None else f"{entry.fps:g}"
            lines.append(
                f"{format_when(entry.mtime_s):<17}{format_bytes(entry.nbytes):>11}  {fps:>6}  "
                f"{encoder:<{width}}{video}"
            )
        return lines


def read_manifest(path: Path) -> dict:
    """The JSON manifest of an index entry (see `index.storage`); `{}` when unreadable."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            manifest = json.loads(str(npz["manifest"]))
    except Exception:  # a damaged entry is still an entry; it just tells nothing
        return {}
    return manifest if isinstance(manifest, dict) else {}


INDEX_KIND = register_cache_kind(IndexKind())


class LibraryKind(FilesKind):
    """One entry per nearest-neighbour index of a library's rows (`index.library_search`);
    a new set of index entries builds a new one, so old ones are only ever removed."""

    name = "library"
    folders = (LIBRARY_DIR,)


LIBRARY_KIND = register_cache_kind(LibraryKind())


def _rate(value) -> float | None:
    """A manifest's rate as a number; None when missing or unreadable."""
    try:
        return float(manifest_rate(value))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
