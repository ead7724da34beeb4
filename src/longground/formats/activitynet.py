"""ActivityNet Captions `.json`: `{video_id: {"duration", "timestamps": [[s, e], ...],
"sentences": [...]}}`.

Each sentence is one query with qid `"{video_id}#{i}"` (i = its index in the video's list).
Timestamps are kept as published, including the few that end a hair past the duration.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..errors import BadInputFile
from ..moments import Moments
from ..samples import Sample
from . import fields
from .records import Where, read_text
from .registry import SampleFormat, register_sample_format


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object hook that refuses repeated keys (json would keep the last silently)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _video_samples(video: str, entry: object, where: Where) -> list[Sample]:
    """The samples of one video entry."""
    if not isinstance(entry, dict):
        raise where.error("expected an object with timestamps and sentences")
    duration_s = fields.duration_field(fields.required(entry, "duration", where), where)
    stamps = fields.required(entry, "timestamps", where)
    sentences = fields.required(entry, "sentences", where)
    if not isinstance(stamps, list) or not isinstance(sentences, list):
        raise where.error("timestamps and sentences must be lists")
    if len(stamps) != len(sentences):
        raise where.error(f"{len(stamps)} timestamps for {len(sentences)} sentences")
    out = []
    for i, (stamp, sentence) in enumerate(zip(stamps, sentences, strict=True)):
        here = where.at(f"{video}#{i}")
        if not isinstance(sentence, str) or not sentence.strip():
            raise here.error("empty or non-text sentence")
        gt = Moments.from_list([fields.interval(stamp, here)])
        query = fields.valid_text(sentence.strip(), "query", here)
        out.append(Sample(here.qid, video, duration_s, query, gt))
    return out


def load_activitynet(path: Path, durations: Mapping[str, float] | None = None) -> list[Sample]:
    """All sentences of an ActivityNet Captions file as samples (`durations` is unused: the
    file carries them).

    Errors name the video or qid; the published files are a single line, so no line number.
    """
    try:
        videos = json.loads(read_text(path), object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise BadInputFile(str(path), exc.lineno, f"malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise BadInputFile(str(path), None, "malformed JSON (nested too deeply)") from None
    except _DuplicateKey as exc:
        raise BadInputFile(str(path), None, f"video {exc} is listed twice") from None
    if not isinstance(videos, dict):
        raise BadInputFile(str(path), None, "expected an object keyed by video id")
    samples = []
    for video, entry in videos.items():
        samples.extend(_video_samples(video, entry, Where(path, None, prefix=f"video {video}: ")))
    return samples


def _is_activitynet(peek) -> bool:
    return peek.first is not None and {"timestamps", "sentences"} <= peek.first.keys()


register_sample_format(
    SampleFormat(
        "activitynet",
        "ActivityNet Captions .json ({video: {duration, timestamps, sentences}})",
        _is_activitynet,
        load_activitynet,
    )
)
