"""The run's output file: canonical prediction lines, appended durably, resumable after a crash.

Each finished query is one JSON line, written with a single append, flushed and fsynced, so a
crash can only ever leave the *last* line incomplete. On reopening, a last line with no newline
(or that does not parse) is that torn write: it is cut away and its query runs again.

Which method and settings produced the lines lives in a sidecar, `PREDS.jsonl.meta.json`
(written atomically), so the predictions file itself stays plain canonical JSONL that
`longground eval` reads as it is. Reopening with a different fingerprint is refused unless the
caller asks to overwrite.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..atomic import atomic_open
from ..errors import BadInputFile, UserError
from ..formats.lines import json_line

META_FORMAT = "longground-run/1"


def meta_path(out: Path) -> Path:
    """Where the sidecar of `out` lives.

    >>> meta_path(Path("runs/preds.jsonl")).as_posix()
    'runs/preds.jsonl.meta.json'
    """
    return out.with_name(out.name + ".meta.json")


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that readers see the old or the new file, never half."""
    with atomic_open(path) as handle:
        handle.write(text)


@dataclass
class Scan:
    """What an existing predictions file holds.

    Attributes:
        records: the first record of each qid, in file order.
        good_bytes: length of the leading part made of whole, parsed lines.
        torn: True when a torn last line follows `good_bytes`.
        duplicates: lines whose qid was already seen (kept in the file, ignored here).
    """

    records: dict[str, dict] = field(default_factory=dict)
    good_bytes: int = 0
    torn: bool = False
    duplicates: int = 0


def scan(path: Path) -> Scan:
    """Read a predictions file, finding where its whole lines end.

    Raises:
        BadInputFile: a line other than the last is not a JSON object with a "qid".

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "p.jsonl"
    >>> _ = p.write_bytes(b'{"qid": "a", "intervals": []}\\n{"qid": "b", "interv')
    >>> s = scan(p)
    >>> list(s.records), s.good_bytes, s.torn
    (['a'], 30, True)
    """
    data = path.read_bytes() if path.exists() else b""
    whole, newline, tail = data.rpartition(b"\n")
    result = Scan(good_bytes=len(whole) + len(newline), torn=bool(tail))
    if not newline:
        whole = b""
    for number, line in enumerate(whole.split(b"\n"), start=1):
        if not line.strip():
            continue
        record = _parse(line)
        if record is None:
            raise BadInputFile(
                str(path), number, "not a prediction line (a JSON object with a qid)"
            )
        if record["qid"] in result.records:
            result.duplicates += 1
        else:
            result.records[record["qid"]] = record
    return result


def _parse(line: bytes) -> dict | None:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("qid"), str):
        return None
    return record


def fingerprint_diff(old: dict, new: dict, prefix: str = "") -> list[str]:
    """The settings that differ between two fingerprints, as `key: old -> new` strings.

    >>> fingerprint_diff({"method": "a", "params": {"k": 1}}, {"method": "a", "params": {"k": 2}})
    ['params.k: 1 -> 2']
    """
    changes = []
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            changes += fingerprint_diff(a, b, f"{prefix}{key}.")
        elif a != b:
            changes.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return changes


def normalise(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """The fingerprint as it reads back from JSON (tuples become lists, paths strings).

    >>> normalise({"fps": 1, "params": {"k": (1, 2)}})
    {'fps': 1, 'params': {'k': [1, 2]}}
    """
    return json.loads(json.dumps(fingerprint, default=str))


class Journal:
    """Append-only predictions file with its sidecar; see the module docstring.

    Use `Journal.open(...)`, then `append(record)` per finished query, then `close()`.

    Attributes:
        path: the predictions file.
        done: records already in the file (from an earlier run), by qid.
        torn_dropped: True when opening cut away a torn last line.
        errors_dropped: error records removed by `retry_errors`.
    """

    def __init__(self, path: Path, handle, done: dict[str, dict], torn: bool, errors: int):
        self.path = path
        self.done = done
        self.torn_dropped = torn
        self.errors_dropped = errors
        self._file = handle

    @classmethod
    def open(
        cls,
        path: Path,
        fingerprint: dict[str, Any],
        *,
        overwrite: bool = False,
        retry_errors: bool = False,
        info: dict[str, Any] | None = None,
    ) -> Journal:
        """Open `path` for appending, resuming what it already holds.

        Args:
            path: the predictions JSONL.
            fingerprint: what produced the answers (`MethodConfig.fingerprint(method)`).
            overwrite: start from an empty file whatever is there.
            retry_errors: drop earlier records that carry an "error", so they run again.
            info: extra fields for the sidecar (benchmark path, ...), not compared.

        Raises:
            UserError: the file was made by another configuration, or is not a run's output.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "ab")  # noqa: SIM115 - the journal closes it
        try:
            _lock(handle, path)
            state = _resume(path, normalise(fingerprint), overwrite, retry_errors, info)
            if os.fstat(handle.fileno()).st_ino != os.stat(path).st_ino:
                handle = _reopen(handle, path)  # `retry_errors` replaced the file
        except BaseException:
            handle.close()
            raise
        return cls(path, handle, *state)

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished query durably (one write, flush, fsync)."""
        line = json_line(record)
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())
        self.done[record["qid"]] = record

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _resume(path: Path, fingerprint: dict, overwrite: bool, retry_errors: bool, info):
    """Bring `path` to a state to append to: `(done records, torn line cut, errors dropped)`."""
    if path.stat().st_size and not overwrite:
        _check_meta(path, fingerprint)
        found = scan(path)
        if found.torn:
            with open(path, "r+b") as f:
                f.truncate(found.good_bytes)
                f.flush()
                os.fsync(f.fileno())
        dropped = _drop_errors(path, found) if retry_errors else 0
        return found.records, found.torn, dropped
    # Empty the file before recording the new settings: a crash in between leaves an empty
    # file, never old answers under new settings.
    with open(path, "r+b") as f:
        f.truncate(0)
        os.fsync(f.fileno())
    _write_meta(path, fingerprint, info)
    return {}, False, 0


def _reopen(handle, path: Path):
    """A locked append handle on the file now at `path`, closing the old one."""
    fresh = open(path, "ab")  # noqa: SIM115 - the journal closes it
    try:
        _lock(fresh, path)
    except BaseException:
        fresh.close()
        raise
    handle.close()
    return fresh


def _lock(handle, path: Path) -> None:
    """Refuse a second run appending to the same file at the same time."""
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise UserError(
            f"{path} is being written by another run; wait for it, or choose another --out"
        ) from None


def _check_meta(path: Path, fingerprint: dict[str, Any]) -> None:
    meta = meta_path(path)
    if not meta.exists():
        raise UserError(
            f"{path} exists but has no {meta.name}, so it is not a resumable run; "
            "pass --overwrite to replace it, or choose another --out"
        )
    try:
        stored = json.loads(meta.read_text(encoding="utf-8"))["fingerprint"]
    except (ValueError, KeyError, TypeError):
        raise UserError(f"{meta}: not a run description; pass --overwrite to start over") from None
    changes = fingerprint_diff(stored, fingerprint)
    if changes:
        raise UserError(
            f"{path} was made with other settings ({'; '.join(changes)}); "
            "pass --overwrite to start over, or choose another --out"
        )


def _write_meta(path: Path, fingerprint: dict[str, Any], info: dict[str, Any] | None) -> None:
    from .. import __version__

    meta = {
        "format": META_FORMAT,
        "fingerprint": fingerprint,
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "longground": __version__,
        **normalise(info or {}),
    }
    write_atomic(meta_path(path), json.dumps(meta, indent=1) + "\n")


def _drop_errors(path: Path, found: Scan) -> int:
    """Rewrite `path` without its error records (atomically); they leave `found.records` too."""
    failed = [qid for qid, record in found.records.items() if "error" in record]
    if not failed:
        return 0
    kept = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kept = [line for line in kept if "error" not in json.loads(line)]
    write_atomic(path, "".join(line + "\n" for line in kept))
    for qid in failed:
        del found.records[qid]
    return len(failed)
