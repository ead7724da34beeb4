"""Charades-STA `.txt`: one query per line, `VIDEOID start end##sentence`.

The file names no qids and no video durations. The qid of a line is `"{video}#{k}"`, where
`k` counts that video's lines from 0 in file order. A video's duration comes from the
optional `durations` table (video id -> seconds, e.g. from Charades_v1_test.csv's `length`);
without one it is the latest end time annotated for that video, a lower bound on the real
length (see docs/formats.md).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from ..moments import Moments
from ..samples import Sample
from . import fields
from .records import Where, read_text
from .registry import SampleFormat, register_sample_format

_LINE = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\S+?)\s*##(.*)$")


def _parse_line(line: str, where: Where) -> tuple[str, tuple[float, float], str]:
    """`(video, (start_s, end_s), sentence)` of one line."""
    match = _LINE.match(line)
    if match is None:
        raise where.error("expected 'VIDEOID start end##sentence'")
    video, start, end, sentence = match.groups()
    where = where.at(video)
    span = fields.interval([_number(start, where), _number(end, where)], where)
    if not sentence.strip():
        raise where.error("empty sentence")
    return video, span, fields.valid_text(sentence.strip(), "query", where)


def _number(token: str, where: Where) -> float:
    try:
        return float(token)
    except ValueError:
        raise where.error(f"not a number: {token!r}") from None


def _duration(video: str, latest_end_s: float, durations, where: Where) -> float:
    if durations is None:
        if latest_end_s <= 0:
            raise where.error(f"video {video}: no duration table and no positive end time")
        return latest_end_s
    if video not in durations:
        raise where.error(f"video {video} is missing from the durations table")
    return fields.duration_field(durations[video], where)


def load_charades(path: Path, durations: Mapping[str, float] | None = None) -> list[Sample]:
    """All queries of a Charades-STA annotation file.

    Args:
        path: the `.txt` file.
        durations: video id -> duration in seconds; None uses each video's latest end.

    Returns:
        One `Sample` per line, in file order, qid `"{video}#{k}"`.
    """
    parsed = []
    latest_end: dict[str, float] = defaultdict(float)
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if line.strip():
            video, span, sentence = _parse_line(line, Where(path, number))
            latest_end[video] = max(latest_end[video], span[1])
            parsed.append((number, video, span, sentence))
    counts: dict[str, int] = defaultdict(int)
    samples = []
    for number, video, span, sentence in parsed:
        qid = f"{video}#{counts[video]}"
        counts[video] += 1
        duration_s = _duration(video, latest_end[video], durations, Where(path, number, qid))
        samples.append(Sample(qid, video, duration_s, sentence, Moments.from_list([span])))
    return samples


register_sample_format(
    SampleFormat(
        "charades",
        "Charades-STA .txt (VIDEOID start end##sentence)",
        lambda peek: bool(_LINE.match(peek.head)) and peek.first is None,
        load_charades,
    )
)
