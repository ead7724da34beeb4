"""Generating a synthetic benchmark: plan each video from the seed, draw its queries, render it,
and write the benchmark JSONL.

Video `i` depends only on `(seed, i)` and its length, so asking for more videos keeps the
first ones unchanged. Its near-miss negatives come from their own generator and follow its
other queries; each query's other wordings come from one more generator per query, so asking
for more wordings keeps the first ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..formats.lines import write_jsonl
from ..samples import Sample
from .boxes import write_boxes
from .queries import ATTRIBUTE_ORDER, Query, select_queries
from .queries.near_miss import near_misses
from .rendering import check_composition, check_scale
from .script import VideoScript
from .storyboard import plan_script
from .truth import Truth
from .wordings import check_wordings, records, reworded
from .writer import shot_list, write_video

JSONL_NAME = "benchmark.jsonl"
VIDEO_DIR = "videos"
DOMAIN = "synthetic"
#: The shortest video that still fits one shot of every kind a query type needs.
MIN_MINUTES = 0.5
#: The longest video and the most videos one benchmark plans (planning a 180-min video takes
#: seconds; beyond these a typo such as `--minutes 1e9` would plan for hours).
MAX_MINUTES = 180.0
MAX_VIDEOS = 1000


@dataclass(frozen=True)
class Preset:
    """Frame size, frame rate, shot lengths, default video lengths, x264 settings, and how
    objects are drawn (`object_scale`, `composition`: see `rendering`)."""

    width: int
    height: int
    fps: Fraction
    shot_range_s: tuple[float, float]
    minutes: tuple[float, ...]
    crf: int = 28
    x264_preset: str = "ultrafast"
    object_scale: float = 1.0
    composition: str = "opaque"


PRESETS = {
    "default": Preset(480, 270, Fraction(5), (2.0, 60.0), (5.0, 20.0, 45.0, 70.0)),
    "tiny": Preset(160, 90, Fraction(5), (2.0, 8.0), (1.0,), crf=23),
}


@dataclass(frozen=True)
class PlannedVideo:
    """A video's script and its queries, before anything is rendered.

    `queries[i]` is the query behind `samples[i]`, with the key of the condition it states.
    """

    script: VideoScript
    samples: list[Sample]
    queries: list[Query]


def queries_per_attribute(minutes: float) -> int:
    """Positive queries per attribute for a video of this length (longer videos get more).

    >>> [queries_per_attribute(m) for m in (1, 20, 45, 70)]
    [2, 3, 4, 6]
    """
    return 1 + math.ceil(minutes / 15)


def minutes_for(index: int, minutes: Sequence[float]) -> float:
    """Video `index` takes the lengths in turn."""
    return float(minutes[index % len(minutes)])


def check_length(minutes: float) -> None:
    """Refuse a video length outside [MIN_MINUTES, MAX_MINUTES] (and nan).

    >>> check_length(1e9)
    Traceback (most recent call last):
    longground.errors.UserError: video length 1e+09 min is out of range: use 0.5 to 180
    """
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise UserError(
            f"video length {minutes:g} min is out of range: use {MIN_MINUTES} to {MAX_MINUTES:g}"
        )


def plan_video(
    index: int, minutes: float, seed: int, preset: Preset, video: str, near_miss: bool = True
) -> PlannedVideo:
    """Script and samples of video `index`; `video` is what the samples' `video` holds;
    `near_miss`: add the near-miss negatives (`queries.near_miss`) after the other queries."""
    check_length(minutes)
    name = f"synth_{index:03d}"
    script = plan_script(
        np.random.default_rng([seed, index, 0]),
        name,
        minutes * 60,
        preset.fps,
        preset.width / preset.height,
        preset.shot_range_s,
        preset.object_scale,
        preset.composition,
    )
    truth = Truth(script)
    queries = select_queries(
        truth, np.random.default_rng([seed, index, 1]), queries_per_attribute(minutes)
    )
    if near_miss:
        asked = {q.key for q in queries}
        queries += near_misses(truth, np.random.default_rng([seed, index, 3]), asked)
    samples = [
        Sample(
            f"{name}_q{j:03d}",
            video,
            script.duration_s,
            q.text,
            q.gt,
            frozenset(q.attributes),
            DOMAIN,
        )
        for j, q in enumerate(queries)
    ]
    return PlannedVideo(script, samples, queries)


def worded(planned: PlannedVideo, seed: int, index: int, wordings: int) -> list[list[Sample]]:
    """Each sample of video `index` in `wordings` wordings, the original first
    (`wordings.reworded`); query `j`'s are drawn from `default_rng([seed, index, 2, j])`.

    >>> video = plan(1, 1.0, seed=0, tiny=True)[0]
    >>> [s.qid for s in worded(video, 0, 0, 3)[0]]
    ['synth_000_q000', 'synth_000_q000_w1', 'synth_000_q000_w2']
    """
    check_wordings(wordings)
    return [
        reworded(sample, query.meaning, wordings, np.random.default_rng([seed, index, 2, j]))
        for j, (sample, query) in enumerate(zip(planned.samples, planned.queries, strict=True))
    ]


def rendering_preset(
    tiny: bool = False,
    size: tuple[int, int] | None = None,
    fps: Fraction | None = None,
    object_scale: float | None = None,
    composition: str | None = None,
) -> Preset:
    """The default or tiny preset with any of frame size, frame rate, object scale and
    composition replaced (the robustness renderings of docs/synthetic-benchmark.md).

    >>> p = rendering_preset(size=(320, 180), fps=Fraction(10), object_scale=0.5)
    >>> (p.width, p.height, p.fps, p.object_scale, p.composition)
    (320, 180, Fraction(10, 1), 0.5, 'opaque')
    """
    preset = PRESETS["tiny" if tiny else "default"]
    changes = {}
    if size is not None:
        changes["width"], changes["height"] = size
    if fps is not None:
        if not 1 <= fps <= 60:
            raise UserError(f"--fps {float(fps):g} is out of range: use 1 to 60")
        changes["fps"] = Fraction(fps)
    if object_scale is not None:
        changes["object_scale"] = check_scale(object_scale)
    if composition is not None:
        changes["composition"] = check_composition(composition)
    return replace(preset, **changes)


def plan(
    n_videos: int,
    minutes: Sequence[float] | float | None,
    seed: int,
    tiny: bool = False,
    preset: Preset | None = None,
    near_miss: bool = True,
) -> list[PlannedVideo]:
    """Plan a benchmark without rendering it (fast: for statistics and tests).

    `preset` (from `rendering_preset`) replaces the default or tiny one; `near_miss: False`
    leaves out the near-miss negatives.

    >>> planned = plan(1, 1.0, seed=0, tiny=True)
    >>> planned[0].script.duration_s, planned[0].samples[0].qid
    (60.0, 'synth_000_q000')
    """
    if not 1 <= n_videos <= MAX_VIDEOS:
        raise UserError(f"--videos must be in [1, {MAX_VIDEOS}], got {n_videos}")
    if seed < 0:
        raise UserError(f"--seed must be >= 0, got {seed}")
    preset = preset or PRESETS["tiny" if tiny else "default"]
    lengths = _lengths(minutes, preset)
    for length in lengths:  # all of them before planning any
        check_length(length)
    return [
        plan_video(i, minutes_for(i, lengths), seed, preset, video_path(i), near_miss)
        for i in range(n_videos)
    ]


def _lengths(minutes, preset: Preset) -> tuple[float, ...]:
    if minutes is None:
        return preset.minutes
    if isinstance(minutes, int | float):
        return (float(minutes),)
    if not len(minutes):
        raise UserError("give at least one video length in minutes")
    return tuple(float(m) for m in minutes)


def generate(
    out_dir: str | Path,
    n_videos: int,
    minutes: Sequence[float] | float | None = None,
    seed: int = 0,
    tiny: bool = False,
    progress: bool = False,
    preset: Preset | None = None,
    wordings: int = 1,
    near_miss: bool = True,
) -> list[Sample]:
    """Write a synthetic benchmark: `videos/synth_NNN.mp4`, a shot list next to each, the
    box of every object in every frame in `boxes/synth_NNN.jsonl`, and `benchmark.jsonl` in
    `out_dir`.

    Args:
        out_dir: output folder (created if needed).
        n_videos: how many videos.
        minutes: video lengths; video `i` takes `minutes[i % len(minutes)]`. None: the preset's
            (5, 20, 45, 70 by default; 1 with `tiny`).
        seed: fixes everything: scripts, queries, ground truth.
        tiny: 160x90 frames and shots of at most 8 s, for fast tests.
        progress: show a progress bar per video.
        preset: replaces the default or tiny preset (frame size, frame rate, object scale,
            composition; see `rendering_preset`).
        wordings: each query in this many wordings (1 to `wordings.MAX_WORDINGS`), one line
            each with a `wording` field (0: the original) when more than 1 (`worded`).
        near_miss: add the near-miss negatives (`queries.near_miss`).

    Returns:
        The samples (every wording), with `video` an absolute path (the JSONL holds it
        relative to `out_dir`).

    >>> import tempfile
    >>> samples = generate(tempfile.mkdtemp(), 1, 0.5, seed=0, tiny=True)
    >>> samples[0].duration_s, Path(samples[0].video).exists()
    (30.0, True)
    """
    planned_videos = plan(n_videos, minutes, seed, tiny, preset, near_miss)  # checks options
    check_wordings(wordings)
    out = Path(out_dir)
    (out / VIDEO_DIR).mkdir(parents=True, exist_ok=True)
    preset = preset or PRESETS["tiny" if tiny else "default"]
    lines, samples = [], []
    for index, planned in enumerate(planned_videos):
        path = render(planned, out, preset, progress)
        groups = worded(planned, seed, index, wordings)
        lines += records(groups, ATTRIBUTE_ORDER)
        samples += [replace(s, video=str(path.resolve())) for group in groups for s in group]
        write_jsonl(out / JSONL_NAME, lines)  # after every video, so finished work is kept
    return samples


def video_path(index: int) -> str:
    """Where video `index` goes, relative to the benchmark folder.

    >>> video_path(7)
    'videos/synth_007.mp4'
    """
    return f"{VIDEO_DIR}/synth_{index:03d}.mp4"


def render(planned: PlannedVideo, out: Path, preset: Preset, progress: bool = False) -> Path:
    """Encode a planned video, write its shot list next to it and its objects' boxes in
    `boxes/`; returns the MP4's path."""
    path = out / VIDEO_DIR / f"{planned.script.name}.mp4"
    write_video(
        planned.script, path, preset.width, preset.height, preset.crf, preset.x264_preset, progress
    )
    path.with_suffix(".shots.tsv").write_text(shot_list(planned.script), encoding="utf-8")
    write_boxes(planned.script, out, preset.width, preset.height)
    return path
