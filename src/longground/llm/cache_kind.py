"""The `llm` kind of cache entry: stored Video-LLM answers, one row each of the SQLite file
`llm_cache.sqlite` that `llm.cache.ResponseCache` writes; registered with `cache.admin` by
this package, which owns the schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..cache.admin import (
    CacheKind,
    Entry,
    file_entry,
    file_size,
    format_bytes,
    register_cache_kind,
    regular_files,
    unlink_inside,
)
from ..cache.kinds import LLM_FILE, LLM_FILES

TIMEOUT_S = 60.0


class LlmKind(CacheKind):
    """One entry per stored answer; removing answers deletes rows, then compacts the
    database or removes its files when no answer is left."""

    name = "llm"

    def scan(self, base: Path) -> list[Entry]:
        db = base / LLM_FILE
        if db not in regular_files(base, base):
            return []
        try:  # read-write, so that closing removes the -wal/-shm files that opening creates
            connection = sqlite3.connect(db, timeout=TIMEOUT_S)
            try:
                rows = connection.execute(
                    "SELECT key, created_s, length(CAST(key AS BLOB)) + "
                    "length(CAST(model AS BLOB)) + length(CAST(text AS BLOB)) + 40 FROM responses"
                ).fetchall()
            finally:
                connection.close()
        except sqlite3.Error:  # not a database, or another schema: the file is one entry
            return [file_entry(self.name, db)]
        mtime_s = db.lstat().st_mtime
        return [
            Entry(self.name, db, int(nbytes or 0),
                  mtime_s if created is None else float(created), row_key=key)
            for key, created, nbytes in rows
        ]  # fmt: skip

    def disk_bytes(self, base: Path, entries: list[Entry]) -> int:
        """The database files' size (rows share them)."""
        return sum(file_size(p) for p in _files(base))

    def remove(self, entries: list[Entry], base: Path) -> int:
        rows: dict[Path, list[Entry]] = {}
        for entry in entries:
            rows.setdefault(entry.path, []).append(entry)
        return sum(_remove_answers(db, answers, base) for db, answers in rows.items())

    def estimate_freed(self, doomed: list[Entry], entries: list[Entry], base: Path) -> int:
        """Exact when every answer goes (the files' size), else the removed rows' data."""
        if doomed and len(doomed) == len(entries):
            return self.disk_bytes(base, entries)
        return sum(e.nbytes for e in doomed)

    def describe(self, doomed: list[Entry], entries: list[Entry], base: Path) -> list[str]:
        answers = [e for e in doomed if e.row_key is not None]
        lines = super().describe([e for e in doomed if e.row_key is None], entries, base)
        if answers:
            if len(answers) == len(entries):
                what = f"the whole database, {format_bytes(self.disk_bytes(base, entries))}"
            else:
                what = f"about {format_bytes(sum(e.nbytes for e in answers))}"
            lines.append(
                f"would remove llm      {len(answers)} of {len(entries)} stored answers from "
                f"{answers[0].path} ({what})"
            )
        return lines


def _files(base: Path) -> list[Path]:
    return [base / name for name in LLM_FILES]


def _remove_answers(db: Path, answers: list[Entry], base: Path) -> int:
    """Delete these rows; compact the database, or remove its files when it is left empty."""
    files = [p for p in _files(base) if p.parent == db.parent]
    before = sum(file_size(p) for p in files)
    keys = [(e.row_key,) for e in answers if e.row_key is not None]
    left = 0
    if keys and db.parent == base and not db.is_symlink():
        connection = sqlite3.connect(db, timeout=TIMEOUT_S)
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
            unlink_inside(path, base)
    return max(0, before - sum(file_size(p) for p in files))


LLM_KIND = register_cache_kind(LlmKind())
