"""The Python API: `find`, `find_many` and `evaluate`, the library face of the CLI.

`find(video, query)` gives the same moments as `longground find VIDEO QUERY --json` with
the same options: both build the method from the same settings and keep the moments in
time order. Method parameters (the CLI's `-p KEY=VALUE`) are keyword arguments.
`tracks=True` (the CLI's `--tracks`) follows the query's object through each moment after
grounding and returns a `longground.export.Found` holding the moments, their tracks and,
when the query asks how many (or `count_objects=True`), the number of distinct objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import UserError
from .moments import Moments
from .samples import Prediction, Sample

# Methods already built, by their settings, so repeated `find` calls reuse loaded models and
# the per-video state (feature timelines, the agent's graph).
_GROUNDERS: dict[str, Any] = {}
_KEEP_GROUNDERS = 4


def find(
    video: str | Path,
    query: str,
    *,
    method: str = "agent",
    encoder: str = "label-bridge",
    fps: float = 1.0,
    single: bool = False,
    max_moments: int | None = None,
    preset: str | None = None,
    cache_dir: str | Path | None = None,
    tracks: bool = False,
    count_objects: bool | None = None,
    **params: Any,
):
    """Every moment of `video` that matches `query`, in time order (empty: none).

    Args:
        video: a video file FFmpeg reads.
        query: what to look for, in plain words.
        method: a grounding method ("agent", "retrieval", "monolithic", "hybrid").
        encoder: the image-text encoder ("label-bridge", "open_clip:ARCH/WEIGHTS", "hf:...").
        fps: frames per second to index.
        single: at most one moment.
        max_moments: keep the best-scoring N (the CLI's `--max`).
        preset: a named parameter set ("paper"), applied before `params`.
        cache_dir: the cache root (default: `$LONGGROUND_CACHE` or the user cache).
        tracks: also follow the query's object through each moment (`find --tracks`).
        count_objects: True counts distinct objects (implies tracking), False shots, None
            as the query asks (objects for "how many" queries, once `tracks` is on).
        **params: method parameters, as `-p KEY=VALUE` gives them; `subtitles=True/False`
            is the CLI's `--subtitles on/off` (default as there: on for monolithic and
            hybrid, off under the paper preset).

    Returns:
        `Moments` with `(K, 2)` spans in seconds and their scores; with `tracks` or
        `count_objects=True`, a `longground.export.Found` whose `moments`, `tracks` (one
        tuple of `Track`s per moment) and `objects` (the count of objects, or None when
        the count is of shots) are those `find --tracks --json` prints.

    Raises:
        UserError: a missing or unreadable video, an empty query, an unknown method or
            parameter, a model answer that could not be read, or `count_objects=True` on
            a target no localiser can follow.
    """
    grounder = _grounder(method, encoder, fps, single, preset, cache_dir, params)
    if not (tracks or count_objects):
        return _moments(grounder, Path(video), query, max_moments)
    return _tracked(grounder, Path(video), query, max_moments, tracks, count_objects)


def find_many(
    videos: Iterable[str | Path],
    queries: Iterable[str] | str,
    **options: Any,
) -> list:
    """Every query on every video, sharing one method (its models and per-video caches).

    Args:
        videos: video files.
        queries: one query or several.
        **options: as for `find` (`tracks=True` gives each `Found` its tracks).

    Returns:
        A list of `longground.export.Found` (video, query, moments, and tracks and objects
        when asked for), video by video and query by query; hand it to
        `longground.export.export(path, found)` to write a file.
    """
    from .export import Found

    queries = [queries] if isinstance(queries, str) else list(queries)
    max_moments = options.pop("max_moments", None)
    tracks, count_objects = options.pop("tracks", False), options.pop("count_objects", None)
    grounder = _grounder(**_settings(options))
    out = []
    for video in videos:
        for query in queries:
            if tracks or count_objects:
                out.append(_tracked(grounder, Path(video), query, max_moments, tracks,
                                    count_objects))  # fmt: skip
                continue
            out.append(Found(Path(video), query, _moments(grounder, Path(video), query,
                                                          max_moments)))  # fmt: skip
    return out


def evaluate(
    gt: str | Path | Iterable[Sample | Mapping],
    pred: str | Path | Iterable[Prediction | Mapping],
    protocol: str = "comet",
    **options: Any,
):
    """Score predictions against a benchmark, from files or from objects.

    Args:
        gt: a benchmark file, or `Sample`s, or dicts of benchmark lines (`qid`, `video`,
            `duration`, `query`, `intervals`, ...; docs/formats.md).
        pred: a prediction file, or `Prediction`s, or dicts of prediction lines (`qid` and
            `intervals`, optionally `scores`; or `response` with the model's text).
        protocol: "comet" (CoMET-Bench) or "single" (first moment against the best GT).
        **options: `theta`, `by`, `bootstrap`, `seed`, `top_k`, `iou` of `eval.evaluate`.

    Returns:
        `EvalResult` (metrics as fractions in [0, 1]).

    >>> gt = [{"qid": "a", "video": "v.mp4", "duration": 60, "query": "a dog",
    ...        "intervals": [[0, 10]]}]
    >>> evaluate(gt, [{"qid": "a", "intervals": [[0, 5]]}]).metrics["miou"]
    0.5
    """
    from .eval import evaluate as score

    samples = _samples(gt)
    predictions = _predictions(pred, samples)
    return score(samples, predictions, protocol=protocol, **options)


def _settings(options: dict) -> dict:
    known = ("method", "encoder", "fps", "single", "preset", "cache_dir")
    defaults = {"method": "agent", "encoder": "label-bridge", "fps": 1.0, "single": False,
                "preset": None, "cache_dir": None}  # fmt: skip
    settings = {k: options.get(k, v) for k, v in defaults.items()}
    settings["params"] = {k: v for k, v in options.items() if k not in known}
    return settings


def _grounder(method, encoder, fps, single, preset, cache_dir, params):
    """The method these settings build (reused when built before)."""
    from .cli.channel_options import subtitles_on
    from .cli.options import method_config
    from .methods import build_method

    params = dict(params)
    subtitles = params.pop("subtitles", None)
    values = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items()]
    config = method_config(
        encoder=encoder, fps=fps, single=single, params=values, llm=None, base_url=None,
        model=None, api_key=None, cache_dir=None if cache_dir is None else Path(cache_dir),
        method=method, preset=preset,
    )  # fmt: skip
    choice = None if subtitles is None else ("on" if subtitles else "off")
    config.subtitles = subtitles_on(choice, method, preset)
    key = repr((config.fingerprint(method), str(cache_dir)))
    if key not in _GROUNDERS:
        while len(_GROUNDERS) >= _KEEP_GROUNDERS:
            _GROUNDERS.pop(next(iter(_GROUNDERS)))
        _GROUNDERS[key] = build_method(method, config)
    return _GROUNDERS[key]


def _moments(grounder, video: Path, query: str, max_moments: int | None) -> Moments:
    """What the CLI's `find` prints for one video, as `Moments`."""
    return _grounding(grounder, video, query, max_moments).moments


def _grounding(grounder, video: Path, query: str, max_moments: int | None):
    """The CLI's `find` answer on one video, or a `UserError` for a model answer that could
    not be read."""
    from .cli.find_cmd import _ground, parse_failure_line

    if not query.strip():
        raise UserError("the query is empty")
    grounding, _ = _ground(grounder, video, query, max_moments)
    if grounding.failed:
        raise UserError(f"{video}: {parse_failure_line(grounding)}")
    return grounding


def _tracked(grounder, video: Path, query: str, max_moments: int | None, tracks: bool,
             count_objects: bool | None):  # fmt: skip
    """What `find --tracks --json` prints for one video, as a `Found` (no progress bar)."""
    from .cli.find_tracks import TrackRequest
    from .export import Found
    from .export.found import channel_in

    request = TrackRequest(tracks, count_objects)
    request.check(query)
    grounding = _grounding(grounder, video, query, max_moments)
    channel = channel_in(grounding.trace)
    held, objects = request.attach(video, query, grounding.moments, channel, progress=False)
    return Found(video, query, grounding.moments, method=getattr(grounder, "name", None),
                 channel=channel, tracks=held, objects=objects)  # fmt: skip


def _samples(gt) -> list[Sample]:
    if isinstance(gt, str | Path):
        from .formats import load_samples

        return load_samples(gt)
    from .formats.canonical import sample_from_record
    from .formats.records import Where

    return [item if isinstance(item, Sample) else
            sample_from_record(dict(item), Where(Path("<gt>"), n))
            for n, item in enumerate(gt, start=1)]  # fmt: skip


def _predictions(pred, samples: list[Sample]) -> list[Prediction]:
    if isinstance(pred, str | Path):
        from .formats import load_predictions

        return list(load_predictions(pred, samples=samples))
    from .formats.canonical import prediction_from_record
    from .formats.records import read_qid

    durations = {s.qid: s.duration_s for s in samples}
    out = []
    for n, item in enumerate(pred, start=1):
        if isinstance(item, Prediction):
            out.append(item)
            continue
        qid = read_qid(item.get("qid")) if isinstance(item, Mapping) else None
        if qid is None:
            raise UserError(f"prediction {n}: expected a mapping with a 'qid'")
        out.append(prediction_from_record(dict(item), qid, durations.get(qid)))
    return out
