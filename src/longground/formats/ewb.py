"""ExtremeWhenBench rows, as JSON Lines, a JSON array, or CSV.

Fields: `qid, video_id, question, correct_interval, video_duration_s, category,
source_corpus`. `correct_interval` is `[s, e]` (numbers or time strings), a list of such
pairs, or the same written as text (`"[12.5, 30]"`, `"12.5-30"`, `"00:01:02 - 00:01:10"`).
`category` becomes the sample's domain (falling back to `source_corpus`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..moments import Moments
from ..samples import Sample
from . import fields
from .records import Where
from .registry import SampleFormat, register_sample_format

_TIME = r"\d+(?::\d{1,2}){0,2}(?:\.\d+)?\s*s?"
_PAIR_TEXT = re.compile(
    rf"\s*[\[(]?\s*({_TIME})\s*(?:,|-|–|—|~|to)\s*({_TIME})\s*[\])]?\s*", re.IGNORECASE
)


def _pair_from_text(text: str, where: Where) -> list:
    """`[start, end]` from text: JSON, or two times joined by `,`, `-`, `–`, `—`, `~` or `to`."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    match = _PAIR_TEXT.fullmatch(text)
    if match is None:
        raise where.error(f"cannot read correct_interval {text!r} (expected [start, end])")
    return [match.group(1), match.group(2)]


def correct_interval(value: object, where: Where) -> np.ndarray:
    """The ground truth of one row as a `(K, 2)` array (K is 1 for a plain `[s, e]`).

    >>> correct_interval("00:01:02 - 00:01:10", Where("ewb.csv", 2)).tolist()
    [[62.0, 70.0]]
    >>> correct_interval([[1, 2], [5, 6]], Where("ewb.csv", 2)).tolist()
    [[1.0, 2.0], [5.0, 6.0]]
    """
    if isinstance(value, str):
        value = _pair_from_text(value, where)
    if isinstance(value, list) and value and all(isinstance(v, list | tuple) for v in value):
        return fields.intervals(value, where)
    return np.array([fields.interval(value, where)], dtype=np.float64)


def sample_from_record(record: dict, where: Where) -> Sample:
    """One ExtremeWhenBench row as a `Sample`."""
    qid = fields.qid_field(record, "qid", where)
    where = where.at(qid)
    duration = fields.required(record, "video_duration_s", where)
    return Sample(
        qid=qid,
        video=fields.text_field(record, "video_id", where),
        duration_s=fields.duration_field(duration, where),
        query=fields.text_field(record, "question", where, label="query"),
        gt=Moments(correct_interval(fields.required(record, "correct_interval", where), where)),
        domain=str(record.get("category") or record.get("source_corpus") or ""),
    )


def _load_samples(path: Path, durations: Mapping[str, float] | None) -> list[Sample]:
    return fields.load_record_samples(path, sample_from_record)


register_sample_format(
    SampleFormat(
        "ewb",
        "ExtremeWhenBench rows (JSONL, JSON or CSV with correct_interval)",
        lambda peek: peek.first is not None and "correct_interval" in peek.first,
        _load_samples,
    )
)
