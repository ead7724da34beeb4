"""`AnnotationStore`: the annotation tool's storage, one SQLite file in WAL mode.

Every change runs in its own transaction and is committed (and synced) before the method
returns, so an answer the server has sent is never lost, even to SIGKILL. Writes check the
version the person saw (optimistic concurrency); the `edits` table keeps every change
(who, when, before, after) and triggers refuse to alter or delete its rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import UserError
from .record import AnnotatedQuery

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    qid TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    video TEXT NOT NULL,
    duration_s REAL NOT NULL,
    query TEXT NOT NULL,
    intervals TEXT NOT NULL,
    attributes TEXT NOT NULL,
    domain TEXT NOT NULL,
    review TEXT NOT NULL,
    annotated INTEGER NOT NULL,
    version INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS queries_by_video ON queries (video, position);
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    qid TEXT NOT NULL,
    annotator TEXT NOT NULL,
    at_utc TEXT NOT NULL,
    version INTEGER NOT NULL,
    before TEXT NOT NULL,
    after TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS edits_by_qid ON edits (qid, id);
CREATE TRIGGER IF NOT EXISTS edits_keep_rows BEFORE UPDATE ON edits
    BEGIN SELECT RAISE(ABORT, 'the edit history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS edits_keep_rows_deleted BEFORE DELETE ON edits
    BEGIN SELECT RAISE(ABORT, 'the edit history is append-only'); END;
CREATE TABLE IF NOT EXISTS sources (
    path TEXT NOT NULL,
    imported_utc TEXT NOT NULL,
    n_queries INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

_COLUMNS = (
    "qid, video, duration_s, query, intervals, attributes, domain, review, annotated, version"
)


_SLOTS = ", ".join("?" * 11)  # position + the ten columns


class UnknownQuery(KeyError):
    """No query with this qid."""


class StaleVersion(Exception):
    """The edit was made on an older version; `current` is the query as stored now."""

    def __init__(self, current: AnnotatedQuery):
        super().__init__(f"qid {current.qid} changed meanwhile (now version {current.version})")
        self.current = current


@dataclass(frozen=True)
class Edit:
    """One row of the history: `annotator` changed `qid` at `at_utc`, creating `version`;
    `before` and `after` hold the editable fields (`AnnotatedQuery.editable`)."""

    id: int
    qid: str
    annotator: str
    at_utc: str
    version: int
    before: dict
    after: dict

    def to_dict(self) -> dict:
        return {
            "qid": self.qid,
            "annotator": self.annotator,
            "at_utc": self.at_utc,
            "version": self.version,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class VideoProgress:
    """Per-video counts for the navigator."""

    video: str
    duration_s: float
    total: int
    verified: int
    annotated: int
    discarded: int

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class AnnotationStore:
    """The queries under review and their history, in one SQLite file.

    Args:
        path: the database file; created with its tables when missing.

    Raises:
        UserError: when the file cannot be created, opened or written.

    >>> import tempfile
    >>> store = AnnotationStore(Path(tempfile.mkdtemp()) / "a.db")
    >>> store.add([AnnotatedQuery("q1", "v.mp4", 60.0, "a dog")], source="gt.jsonl")
    1
    >>> q = store.update("q1", 1, lambda q: q.with_fields(review="verified"), "ann")
    >>> q.version, len(store.history("q1"))
    (2, 1)
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db = _connect(self.path)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction taken at once (`BEGIN IMMEDIATE`), committed on success."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.rollback()
                raise
            self._db.commit()

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM queries").fetchone()[0]

    def add(self, queries: Iterable[AnnotatedQuery], source: str) -> int:
        """Add new queries in one transaction; none is added when any qid already exists.

        Raises:
            UserError: naming the first qid already in the database.
        """
        queries = list(queries)
        with self._transaction() as db:
            start = db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM queries").fetchone()[0]
            for offset, query in enumerate(queries):
                try:
                    db.execute(
                        f"INSERT INTO queries (position, {_COLUMNS}) VALUES ({_SLOTS})",
                        (start + offset, *_row(query)),
                    )
                except sqlite3.IntegrityError:
                    raise UserError(
                        f"{source}: qid {query.qid} is already in {self.path}; nothing was added"
                    ) from None
            db.execute("INSERT INTO sources VALUES (?, ?, ?)", (str(source), _now(), len(queries)))
        return len(queries)

    def sources(self) -> list[str]:
        """The files imported so far, oldest first."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT path FROM sources ORDER BY rowid")]

    def set_setting(self, key: str, value: str) -> None:
        """Remember `value` under `key` (such as the `--videos` folder, for `export`)."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def setting(self, key: str) -> str | None:
        """The value remembered under `key`, or None."""
        with self._lock:
            found = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,))
            row = found.fetchone()
        return None if row is None else row[0]

    def get(self, qid: str) -> AnnotatedQuery:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM queries WHERE qid = ?", (qid,))
            found = row.fetchone()
        if found is None:
            raise UnknownQuery(qid)
        return _query(found)

    def queries(self, video: str | None = None) -> list[AnnotatedQuery]:
        """All queries in import order, or those of one video."""
        where, args = ("WHERE video = ?", (video,)) if video is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM queries {where} ORDER BY position", args
            ).fetchall()
        return [_query(r) for r in rows]

    def videos(self) -> list[VideoProgress]:
        """Each video with its query counts, in order of first appearance."""
        with self._lock:
            rows = self._db.execute(
                "SELECT video, MAX(duration_s), COUNT(*), SUM(review = 'verified'),"
                " SUM(annotated), SUM(review = 'discarded') FROM queries"
                " GROUP BY video ORDER BY MIN(position)"
            ).fetchall()
        return [VideoProgress(*r) for r in rows]

    def update(
        self,
        qid: str,
        version: int,
        edit: Callable[[AnnotatedQuery], AnnotatedQuery],
        annotator: str,
    ) -> AnnotatedQuery:
        """Apply `edit` to the stored query if it is still at `version`, record the change in
        the history, and commit, all in one transaction.

        Returns:
            The query as stored now (its version is `version + 1`).

        Raises:
            UnknownQuery: no such qid.
            StaleVersion: the stored version differs (nothing is written).
            Any error `edit` raises (nothing is written).
        """
        with self._transaction() as db:
            found = db.execute(f"SELECT {_COLUMNS} FROM queries WHERE qid = ?", (qid,)).fetchone()
            if found is None:
                raise UnknownQuery(qid)
            current = _query(found)
            if current.version != version:
                raise StaleVersion(current)
            updated = edit(current).with_fields(version=version + 1)
            db.execute(
                "UPDATE queries SET query = ?, intervals = ?, attributes = ?, review = ?,"
                " annotated = ?, version = ? WHERE qid = ?",
                (*_editable_row(updated), updated.version, qid),
            )
            db.execute(
                "INSERT INTO edits (qid, annotator, at_utc, version, before, after)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    qid,
                    annotator,
                    _now(),
                    updated.version,
                    json.dumps(current.editable()),
                    json.dumps(updated.editable()),
                ),
            )
        return updated

    def history(self, qid: str | None = None) -> list[Edit]:
        """Every edit, oldest first (of one query, or of all)."""
        where, args = ("WHERE qid = ?", (qid,)) if qid is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, qid, annotator, at_utc, version, before, after FROM edits {where}"
                " ORDER BY id",
                args,
            ).fetchall()
        return [Edit(*r[:5], json.loads(r[5]), json.loads(r[6])) for r in rows]


def _connect(path: Path) -> sqlite3.Connection:
    """Open (or create) the database in WAL mode with full syncing on commit."""
    if not path.parent.is_dir():
        raise UserError(f"{path}: folder {path.parent} does not exist")
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.executescript(_SCHEMA)
        db.execute("BEGIN IMMEDIATE")  # fails now, not at the first edit, when read-only
        db.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        raise UserError(f"{path}: cannot use as the annotation database ({exc})") from None
    return db


def _row(query: AnnotatedQuery) -> tuple:
    """The column values of `_COLUMNS` for a query."""
    return (
        query.qid,
        query.video,
        query.duration_s,
        query.query,
        json.dumps([list(span) for span in query.intervals]),
        json.dumps(list(query.attributes)),
        query.domain,
        query.review,
        int(query.annotated),
        query.version,
    )


def _editable_row(query: AnnotatedQuery) -> tuple:
    """The values of query, intervals, attributes, review, annotated (as `_row` stores them)."""
    row = _row(query)
    return row[3], row[4], row[5], row[7], row[8]


def _query(row: tuple) -> AnnotatedQuery:
    qid, video, duration_s, text, intervals, attributes, domain, review, annotated, version = row
    return AnnotatedQuery(
        qid=qid,
        video=video,
        duration_s=duration_s,
        query=text,
        intervals=tuple(map(tuple, json.loads(intervals))),
        attributes=tuple(json.loads(attributes)),
        domain=domain,
        review=review,
        annotated=bool(annotated),
        version=version,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
