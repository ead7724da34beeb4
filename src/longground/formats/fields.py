"""Strict readers for benchmark files: every problem is a one-line `BadInputFile`."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator

import numpy as np

from ..errors import BadInputFile
from ..samples import Sample, unknown_attribute
from ..text import text_problem
from ..timecode import parse_time
from .fast_json import clean_pair_lists, clean_pairs, paused_gc
from .records import Record, Where, qid_in_text, read_qid, records

_MISSING = object()


def required(record: dict, key: str, where: Where) -> object:
    """`record[key]`, or an error naming the missing field (absent, null or blank)."""
    value = record.get(key, _MISSING)
    if value is _MISSING or value is None or (isinstance(value, str) and not value.strip()):
        raise where.error(f"missing field {key!r}")
    return value


def qid_field(record: dict, key: str, where: Where) -> str:
    """The record's qid as text (a string or a whole number)."""
    qid = read_qid(required(record, key, where))
    if qid is None:
        raise where.error(f"field {key!r} must be a non-empty string or an integer")
    return qid


def text_field(record: dict, key: str, where: Where, label: str | None = None) -> str:
    """A required text field (numbers are taken as text, e.g. numeric video ids); text
    holding a lone surrogate or a NUL is refused as `LABEL is not valid text`.

    >>> text_field({"query": "a \\ud800"}, "query", Where("gt.jsonl", 3))
    Traceback (most recent call last):
    longground.errors.BadInputFile: gt.jsonl:3: query is not valid text (a lone surrogate ...)
    """
    value = required(record, key, where)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise where.error(f"field {key!r} must be text, got {value!r}")
    return valid_text(str(value), label or key, where)


def valid_text(value: str, label: str, where: Where) -> str:
    """`value`, or the error `FILE:LINE: LABEL is not valid text (why)`."""
    problem = text_problem(value)
    if problem is not None:
        raise where.error(f"{label} is not valid text ({problem})")
    return value


_NOT_FINITE = ("nan", "inf", "+inf", "-inf", "infinity", "-infinity")


def seconds(value: object, name: str, where: Where) -> float:
    """A time in seconds: a number, or text such as `"75.5"`, `"01:15"`, `"00:01:15.5"`.

    >>> seconds("01:15", "start", Where("gt.jsonl", 2))
    75.0
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise where.error(f"{name} must be a number of seconds, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if text.lower().removesuffix("s") in _NOT_FINITE:
            raise where.error(f"non-finite {name}: {value!r}")
        try:
            return parse_time(text)
        except ValueError as exc:  # the grammar's reason, e.g. "(seconds reach 60)"
            if text.endswith("s") and ":" in text:  # "01:15s": a clock time with a unit
                return seconds(text[:-1], name, where)
            raise where.error(f"{name} {value!r}: {exc}") from None
    if abs(value) > 1e300 or not math.isfinite(value):  # also huge integers
        raise where.error(f"non-finite {name}: {value!r:.20}")
    if value < 0:
        raise where.error(f"negative {name}: {value!r}")
    return float(value)


def duration_field(value: object, where: Where) -> float:
    """A video duration: a positive, finite number of seconds."""
    duration_s = seconds(value, "duration", where)
    if duration_s <= 0:
        raise where.error(f"duration must be positive, got {value!r}")
    return duration_s


def interval(value: object, where: Where) -> tuple[float, float]:
    """One `[start, end]` pair in seconds with end >= start."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise where.error(f"an interval must be [start, end], got {value!r}")
    start_s, end_s = seconds(value[0], "start", where), seconds(value[1], "end", where)
    if end_s < start_s:
        raise where.error(f"end < start in interval {list(value)!r}")
    return start_s, end_s


def intervals(value: object, where: Where) -> np.ndarray:
    """A list of `[start, end]` pairs as a `(K, 2)` float64 array; `[]` gives `(0, 2)`."""
    spans = clean_pairs(value)
    if spans is not None:
        return spans
    if not isinstance(value, list | tuple):
        raise where.error(f"intervals must be a list of [start, end], got {value!r}")
    return np.array([interval(v, where) for v in value], dtype=np.float64).reshape(-1, 2)


def attributes(value: object, where: Where) -> frozenset[str]:
    """CoMET attributes from a list (or a comma-separated string), lower-cased and checked."""
    if value is None or value == "":
        return frozenset()
    items = re.split(r"[,;|]", value) if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise where.error(f"attributes must be a list of names, got {value!r}")
    names = frozenset(str(v).strip().lower() for v in items if str(v).strip())
    problem = unknown_attribute(names)
    if problem:
        raise where.error(problem)
    return names


def unique_qids(path, entries: Iterable[tuple[int | None, Sample]]) -> list[Sample]:
    """The samples, in order, after checking that no qid repeats.

    Args:
        path: the file, for messages.
        entries: `(line, sample)` pairs; `line` may be None for single-line files.
    """
    first_line: dict[str, int | None] = {}
    out = []
    for line, sample in entries:
        if sample.qid in first_line:
            seen = first_line[sample.qid]
            where = f" (first on line {seen})" if seen is not None else ""
            raise BadInputFile(str(path), line, f"duplicated qid{where}", qid=sample.qid)
        first_line[sample.qid] = line
        out.append(sample)
    return out


def load_record_samples(
    path, from_record, spans_key: str | None = None, from_batch=None
) -> list[Sample]:
    """Samples of a file of records (JSONL, JSON array or CSV), each built by
    `from_record(record, where) -> Sample`, with qids checked for repeats.

    Args:
        path: the file.
        from_record: the format's converter for one record.
        spans_key: the field of interval lists to check for the whole file at once
            (`fast_json.clean_pair_lists`); each clean one reaches `from_record` as
            `spans=` (a checked `(K, 2)` array), the others are left to its checks.
        from_batch: optionally, a converter for a whole batch of `(record, spans)` that
            gives `[(line, sample), ...]` exactly as `from_record` would, or None to leave
            the batch to `from_record` (any record it is not sure of).
    """
    with paused_gc():
        return unique_qids(path, _entries(path, from_record, spans_key, from_batch))


def _entries(path, from_record, spans_key, from_batch) -> Iterable[tuple[int, Sample]]:
    for batch in checked_batches(path, spans_key):
        built = None if from_batch is None else from_batch(batch)
        if built is not None:
            yield from built
            continue
        for record, spans in batch:
            where = Where(path, record.line)
            if record.error is not None:
                raise where.at(qid_in_text(record.raw)).error(record.error)
            if not isinstance(record.value, dict):
                raise where.error("expected a JSON object")
            if spans is None:
                yield record.line, from_record(record.value, where)
            else:
                yield record.line, from_record(record.value, where, spans=spans)


Checked = tuple[Record, "np.ndarray | None"]
"""A record with its checked interval array (None where none was checked)."""


def checked_batches(path, spans_key: str | None) -> Iterator[list[Checked]]:
    """The records of `path` in batches, each record with its checked interval array when
    `spans_key` is given (None where the list under `spans_key` is absent or not clean, and
    always without `spans_key`; see `fast_json.clean_pair_lists`).

    A batch is few enough records that the parsed records do not pile up for the garbage
    collector to walk (a whole file at once made reading a fifth slower), enough that the
    check per batch costs little. A JSON array raises at a malformed element: the batch of
    the records before it comes first.
    """
    rows = iter(records(path))
    while True:
        batch, failure = [], None
        try:
            for record in rows:
                batch.append(record)
                if len(batch) == _BATCH:
                    break
        except BadInputFile as exc:
            failure = exc
        if spans_key is None:
            yield [(record, None) for record in batch]
        else:
            values = [r.value.get(spans_key) if type(r.value) is dict else None for r in batch]
            yield list(zip(batch, clean_pair_lists(values), strict=True))
        if failure is not None:
            raise failure
        if len(batch) < _BATCH:
            return


_BATCH = 1024  # records
