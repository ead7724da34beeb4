"""Reading and checking an edit sent by the page: every rule the server enforces is here.

An edit names the version it was made on and any of the editable fields. Times may be
numbers of seconds or text such as `"00:01:15.5"`, so the page sends what a person typed and
the server alone decides whether it is valid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..samples import unknown_attribute
from ..text import MAX_TEXT_CHARS as MAX_QUERY_CHARS
from ..text import text_problem
from ..timecode import format_time, parse_time
from .record import EDITABLE, REVIEW_STATES, AnnotatedQuery

MAX_INTERVALS = 10000


class InvalidEdit(ValueError):
    """An edit that breaks a rule; its text is shown to the person as is."""


@dataclass(frozen=True)
class Change:
    """The fields an edit sets; None leaves a field as it is.

    >>> read_change({"version": 3, "intervals": [["00:00:01", 2.5]]}).intervals
    ((1.0, 2.5),)
    """

    version: int
    query: str | None = None
    intervals: tuple[tuple[float, float], ...] | None = None
    attributes: tuple[str, ...] | None = None
    review: str | None = None
    annotated: bool | None = None

    def fields(self) -> dict:
        """The editable fields this change sets."""
        return {k: getattr(self, k) for k in EDITABLE if getattr(self, k) is not None}


def read_change(body: object) -> Change:
    """Check the shape and values of an edit request.

    Args:
        body: the decoded JSON body: `{"version": int, "query"?: str, "intervals"?:
            [[start, end], ...], "attributes"?: [str], "review"?: str, "annotated"?: bool}`.

    Raises:
        InvalidEdit: naming the first field at fault.
    """
    if not isinstance(body, Mapping):
        raise InvalidEdit("the request body must be a JSON object")
    _check_text(body, "the edit")
    unknown = sorted(set(body) - set(EDITABLE) - {"version"})
    if unknown:
        raise InvalidEdit(f"unknown field {unknown[0]!r} (editable: {', '.join(EDITABLE)})")
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidEdit("'version' must be the integer version the edit was made on")
    return Change(
        version=version,
        query=_query(body["query"]) if "query" in body else None,
        intervals=_intervals(body["intervals"]) if "intervals" in body else None,
        attributes=_attributes(body["attributes"]) if "attributes" in body else None,
        review=_review(body["review"]) if "review" in body else None,
        annotated=_flag(body["annotated"]) if "annotated" in body else None,
    )


def apply_change(current: AnnotatedQuery, change: Change, limit_s: float) -> AnnotatedQuery:
    """The query after `change`, checked against the video's length and its other fields.

    Args:
        current: the stored query.
        change: a change read by `read_change`.
        limit_s: the video's duration in seconds; no interval may end after it.

    >>> q = AnnotatedQuery("q1", "v.mp4", 60.0, "a dog")
    >>> apply_change(q, read_change({"version": 1, "intervals": [[1, 2]]}), 60.0).intervals
    ((1.0, 2.0),)
    """
    for number, (_, end_s) in enumerate(change.intervals or (), start=1):
        if end_s > limit_s + 1e-6:
            raise InvalidEdit(
                f"interval {number}: end {format_time(end_s, 2)} is after the end of the "
                f"video ({format_time(limit_s, 2)})"
            )
    updated = current.with_fields(**change.fields())
    if "negative" in updated.attributes and updated.intervals:
        raise InvalidEdit("a query tagged 'negative' cannot have intervals")
    return updated


def _check_text(value: object, where: str) -> None:
    """Refuse a lone surrogate or a NUL in any key or string of the body (JSON can spell
    them; SQLite and the UTF-8 response cannot hold them).

    >>> _check_text({"query": "a \\ud800"}, "the edit")
    Traceback (most recent call last):
    longground.annotate.changes.InvalidEdit: query is not valid text (a lone surrogate ...)
    """
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise InvalidEdit(f"{where} is not valid text ({problem})")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            name = key if isinstance(key, str) and text_problem(key) is None else "a field name"
            _check_text(key, "a field name")
            _check_text(item, name)
    elif isinstance(value, list):
        for item in value:
            _check_text(item, where)


def _query(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidEdit("the query text must not be empty")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidEdit(f"the query text is longer than {MAX_QUERY_CHARS} characters")
    return value.strip()


def _time(value: object, what: str) -> float:
    """Seconds from a number or from text such as `75.5`, `01:15` or `00:01:15.5`."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidEdit(f"{what} must be a time, got {value!r:.40}")
    if isinstance(value, str):
        try:
            return parse_time(value.strip())
        except ValueError:
            raise InvalidEdit(f"{what} is not a time: {value!r:.40} (use HH:MM:SS.s)") from None
    if abs(value) > 1e300 or not math.isfinite(value):
        raise InvalidEdit(f"{what} is not a finite number of seconds")
    if value < 0:
        raise InvalidEdit(f"{what} is negative")
    return float(value)


def _intervals(value: object) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list) or len(value) > MAX_INTERVALS:
        raise InvalidEdit("'intervals' must be a list of [start, end] pairs")
    spans = []
    for number, pair in enumerate(value, start=1):
        if not isinstance(pair, list) or len(pair) != 2:
            raise InvalidEdit(f"interval {number} must be [start, end]")
        start_s = _time(pair[0], f"interval {number}: start")
        end_s = _time(pair[1], f"interval {number}: end")
        if end_s <= start_s:
            raise InvalidEdit(
                f"interval {number}: end {format_time(end_s, 2)} must be after its start "
                f"{format_time(start_s, 2)}"
            )
        spans.append((start_s, end_s))
    return tuple(spans)


def _attributes(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise InvalidEdit("'attributes' must be a list of attribute names")
    names = {a.strip().lower() for a in value}
    problem = unknown_attribute(names)
    if problem:
        raise InvalidEdit(problem)
    return tuple(sorted(names))


def _review(value: object) -> str:
    if value not in REVIEW_STATES:
        raise InvalidEdit(f"'review' must be one of {', '.join(REVIEW_STATES)}")
    return str(value)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidEdit("'annotated' must be true or false")
    return value
