"""`longground find VIDEO QUERY`: every matching moment, grep-style."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..methods import Grounding, build_method
from ..outputs import open_output
from ..timecode import format_time
from . import export_options as xo
from . import find_tracks as ft
from . import options as opt
from .channel_options import Channels, Subtitles, subtitles_on
from .checks import check_cache_root, check_output_file
from .main import app, print_error


def format_moments(grounding: Grounding) -> list[str]:
    """One `HH:MM:SS.s-HH:MM:SS.s  score` line per moment."""
    moments = grounding.moments
    scores = moments.scores if moments.scores is not None else [None] * len(moments)
    lines = []
    for (start_s, end_s), score in zip(moments.spans, scores):
        text = f"{format_time(start_s)}-{format_time(end_s)}"
        lines.append(text if score is None else f"{text}  {score:.3f}")
    return lines


def result_record(
    video: Path, query: str, method: str, grounding: Grounding, found: int | None = None
) -> dict:
    """The `--json` object (DESIGN.md "Output conventions"); `found` (the count before `--max`)
    adds `"found"` when it differs from the count, and a parse failure adds `"error"`."""
    from ..export.found_lines import moment_records

    record = {
        "video": str(video),
        "query": query,
        "method": method,
        "count": grounding.moments.count,
        "moments": moment_records(grounding.moments),
    }
    if found is not None and found != grounding.moments.count:
        record["found"] = found
    if grounding.failed:
        record["error"] = f"parse failure: {grounding.parse_error}"
        record["response"] = grounding.raw
    return record


def parse_failure_line(grounding: Grounding) -> str:
    """`parse failure: <the first 80 characters of the answer>` on one line (the reason when
    there is no answer text).

    >>> from longground.moments import Moments
    >>> parse_failure_line(Grounding(Moments.empty(), raw="Sure!\\nIt is  late.", parse_error="x"))
    'parse failure: Sure! It is late.'
    """
    text = grounding.raw if grounding.raw is not None else grounding.parse_error or ""
    return f"parse failure: {' '.join(text.split())[:80]}"


@app.command("find")
def find(
    videos: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Video file(s), anything FFmpeg reads, or folders (searched recursively).",
            metavar="VIDEO",
            show_default=False,
        ),
    ] = None,
    query: Annotated[
        str | None,
        typer.Argument(help="What to look for, in plain words.", metavar="QUERY",
                       show_default=False),
    ] = None,
    method: opt.Method = "agent",
    encoder: opt.Encoder = opt.DEFAULTS.encoder,
    fps: opt.Fps = opt.DEFAULTS.fps,
    max_moments: Annotated[
        int | None,
        typer.Option(
            "--max", min=1, help="Keep the N best-scoring moments (printed in time order)."
        ),
    ] = None,
    single: opt.Single = False,
    count: Annotated[bool, typer.Option("--count", "-c", help="Print only the count.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per video.")
    ] = False,
    params: opt.Params = None,
    preset: opt.Preset = None,
    video_input: opt.VideoInputMode = None,
    parse: opt.ParseMode = None,
    appearance: opt.Appearance = None,
    segment_encoder: opt.SegmentEncoder = None,
    device: opt.Device = None,
    batch_size: opt.BatchSize = None,
    top: Annotated[
        int | None,
        typer.Option(
            "--top", min=1, help="Rank moments across every video; print the N best, best first."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            min=1,
            help="Processes indexing the videos not yet indexed (default: one per core).",
        ),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Index the missing videos on Ray: auto, HOST:PORT or local."),
    ] = None,
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    channels: Channels = None,
    subtitles: Subtitles = None,
    trace: Annotated[
        Path | None, typer.Option("--trace", help="Write a JSON record of the search here.")
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="After each video's moments, say why: the channel, score and threshold of "
            "each moment, what was heard, read or seen, and each candidate turned down.",
        ),
    ] = False,
    export: xo.Export = None,
    selects: xo.Selects = None,
    clips: xo.Clips = None,
    exact: xo.Exact = False,
    thumbs: xo.Thumbs = None,
    timeline: xo.Timeline = None,
    overwrite: xo.Overwrite = False,
    tracks: ft.Tracks = False,
    count_objects: ft.CountObjects = None,
) -> None:
    """Find every moment of each VIDEO that matches QUERY.

    Prints one line per moment, then the count; with several videos, like grep with several
    files, each line starts with the video's name. Exit code 0 when something matched, 1 when
    nothing did, 2 when any video could not be searched or the model's answer on it could
    not be read (the others still are).
    """
    videos, query = _video_and_query(videos or [], query)
    from ..index.library import find_videos

    named = len(videos) > 1 or any(video.is_dir() for video in videos)
    videos = find_videos(videos)
    if trace is not None and len(videos) > 1:
        raise UserError("--trace takes one video")
    if top is not None and (count or max_moments is not None):
        raise UserError("--top ranks moments across videos; it takes neither --count nor --max")
    if top is not None and (tracks or count_objects is not None):
        raise UserError("--top ranks moments across videos; it takes neither --tracks nor "
                        "--count-objects/--count-shots")  # fmt: skip
    request = ft.TrackRequest(tracks, count_objects)
    request.check(query)
    if trace is not None:
        check_output_file(trace, "--trace", inputs=videos, overwrite=overwrite)
    targets = xo.ExportTargets(tuple(export or ()), clips, exact, thumbs, timeline,
                               tuple(selects or ()), overwrite, tracks)  # fmt: skip
    targets.check(inputs=[*videos, trace], videos=videos)
    check_cache_root(cache_dir)
    config = opt.method_config(
        encoder=encoder, fps=fps, single=single, params=params, llm=llm,
        base_url=base_url, model=model, api_key=api_key, cache_dir=cache_dir,
        method=method, preset=preset, appearance=appearance, segment_encoder=segment_encoder,
        video_input=video_input, parse=parse, device=device, batch_size=batch_size,
    )  # fmt: skip
    from ..channels import parse_channels

    parse_channels(channels)  # a bad --channels fails before any work
    config.channels = channels
    config.subtitles = subtitles_on(subtitles, method, preset)
    grounder = build_method(method, config)
    unindexable = _index_library(grounder, videos, config, workers, ray)
    videos = [video for video in videos if video not in unindexable]
    search = Search(grounder, query, method, config, named, trace, overwrite, request)
    if top is not None:
        printed, failed, found_sets = _find_top(search, videos, top, as_json)
        _write_targets(targets, found_sets)
        raise typer.Exit(2 if unindexable or failed else 0 if printed else 1)
    matched, failed = 0, len(unindexable)
    found_sets = []
    for video in videos:
        try:
            grounding, found = search.one(video, max_moments)
        except UserError as exc:
            if not named:
                raise
            print_error(exc)
            failed += 1
            continue
        if grounding is None:  # a note was printed: this video cannot hold an answer
            continue
        matched += grounding.moments.count > 0
        failed += grounding.failed
        result = search.found(video, grounding, tracked=not grounding.failed)
        if not grounding.failed:
            found_sets.append(result)
        if grounding.failed:
            typer.echo(f"{video}: {parse_failure_line(grounding)}", err=True)
        if as_json or not grounding.failed:
            _print(video, named, query, method, grounding, found, count, as_json, result,
                   request.asks_count(query), explain)  # fmt: skip
    _write_targets(targets, found_sets)
    raise typer.Exit(2 if failed else 0 if matched else 1)


def _video_and_query(videos: list[Path], query: str | None) -> tuple[list[Path], str]:
    """The videos and the query, or a one-line error saying which is missing: with one word
    given, click takes it for the query, so a lone video file means the query was left out.

    >>> _video_and_query([], "README.md")
    Traceback (most recent call last):
    longground.errors.UserError: missing the QUERY after README.md: say what to look for, ...
    """
    help_ = "(see 'longground find --help')"
    if query is None:
        raise UserError(f"missing the VIDEO and the QUERY {help_}")
    if not videos and Path(query).exists():
        raise UserError(f"missing the QUERY after {query}: say what to look for, e.g. "
                        f'longground find {query} "a red car" {help_}')  # fmt: skip
    if not videos:
        raise UserError("missing the VIDEO: give the video file(s) or folder(s) to search "
                        f'before the query, e.g. longground find footage/ "{query}" '
                        f"{help_}")  # fmt: skip
    if not query.strip():
        raise UserError("the query is empty")
    return videos, query


def _write_targets(targets: xo.ExportTargets, found_sets: list) -> None:
    for line in targets.write(found_sets) if targets.wanted else ():
        typer.echo(f"longground: {line}", err=True)


@dataclass
class Search:
    """One query over the videos of one `find`: the method, and what each search leaves
    besides the moments (the trace file, the note for a video a channel cannot search)."""

    grounder: object
    query: str
    method: str
    config: object
    named: bool
    trace: Path | None = None
    overwrite: bool = False
    request: ft.TrackRequest = ft.TrackRequest()

    def one(self, video: Path, max_moments: int | None) -> tuple[Grounding | None, int]:
        """`_ground` on one video, writing `--trace`; `(None, 0)` when the video has no
        stream the query's channel reads (a note is printed, in a search of several)."""
        if self.named and self._cannot_hold(video):
            return None, 0
        grounding, found = _ground(self.grounder, video, self.query, max_moments)
        if self.trace is not None:
            with open_output(self.trace, "--trace", [video], overwrite=self.overwrite) as handle:
                handle.write(json.dumps(grounding.trace, indent=1, default=float))
        return grounding, found

    def found(self, video: Path, grounding: Grounding, tracked: bool = False):
        """The `export.Found` of one video's answer, with its method and channel, and (when
        `tracked` and the search asks for them) its tracks and objects count."""
        from ..export.found import channel_in

        channel = channel_in(grounding.trace)
        tracks, objects = (self.request.attach(video, self.query, grounding.moments, channel)
                           if tracked else (None, None))  # fmt: skip
        return xo.found(video, self.query, grounding.moments, self.method, channel, tracks,
                        objects)  # fmt: skip

    def _cannot_hold(self, video: Path) -> bool:
        """Whether the query asks the speech channel and `video` has no audio stream: in a
        library that is a note (the video is not a place the words could be said), not an
        error (a lone video keeps the method's error)."""
        from ..channels import parse_channels
        from ..channels.audio import probe_audio
        from ..query import analyse

        route = analyse(self.query).target.route
        if route.channel != "speech" or "speech" not in parse_channels(self.config.channels):
            return False
        try:
            if probe_audio(video) is not None:
                return False
        except UserError:
            return False  # the search says what is wrong with the file
        typer.echo(f"longground: note: {video}: no audio stream; not searched for speech",
                   err=True)  # fmt: skip
        return True


def _index_library(grounder, videos: list[Path], config, workers, ray: str | None) -> set:
    """With several videos and a method that reads the index, index the videos without an
    entry first (several processes, or Ray), so the searches that follow only read; prints
    each failure and returns the videos that failed."""
    from ..methods.base import IndexedGrounder

    if len(videos) < 2 or not isinstance(grounder, IndexedGrounder):
        return set()
    from ..index.library import IndexJob, index_missing

    job = IndexJob(config.encoder, config.fps, config.cache_dir, config.device,
                   config.batch_size)  # fmt: skip
    errors = index_missing(videos, job, workers, ray)
    for message in errors.values():
        print_error(UserError(message))
    return set(errors)


def _find_top(search: Search, videos: list[Path], top: int, as_json: bool):
    """Search every video, then print the `top` best moments across them; how many were
    printed, how many videos could not be searched (each reported in one line), and the
    `Found` of each searched video holding its printed moments (none: a row of the CSV)."""
    from .find_library import kept_per_video, library_candidates, print_top, top_moments

    results, failed = [], 0
    for video in library_candidates(search.grounder, videos, search.query, top):
        try:
            grounding = search.one(video, None)[0]
        except UserError as exc:
            print_error(exc)
            failed += 1
            continue
        if grounding is None:
            continue
        if grounding.failed:
            typer.echo(f"{video}: {parse_failure_line(grounding)}", err=True)
            failed += 1
            continue
        results.append((video, grounding))
    best, found = top_moments(results, top)
    print_top(best, found, len(results), search.query, search.method, as_json)
    kept = kept_per_video(results, best)
    return len(best), failed, [search.found(video, grounding) for video, grounding in kept]


def _ground(grounder, video: Path, query: str, max_moments: int | None) -> tuple[Grounding, int]:
    """One video's moments in time order, only the best `max_moments` of them when set (the
    method's first ones when it gives no scores), and how many the method found."""
    if not video.exists():
        raise UserError(f"{video}: no such file")
    grounding = grounder.ground(video, query)
    moments, found = grounding.moments, len(grounding.moments)
    if max_moments is not None and found > max_moments:
        order = range(found) if moments.scores is None else (-moments.scores).argsort()
        moments = moments[list(order)[:max_moments]]
    grounding.moments = moments.sorted()
    return grounding, found


def _print(
    video: Path,
    named: bool,
    query: str,
    method: str,
    grounding: Grounding,
    found: int,
    count: bool,
    as_json: bool,
    result=None,
    asks_count: bool = False,
    explained: bool = False,
) -> None:
    """The result of one video; with `named`, each line starts with `VIDEO: ` (the layout of
    `--top` lines too). When `--max` kept fewer than the `found` moments, the count line
    says "N of M moments"; `result` (its `export.Found`) adds the tracks and the objects
    count, and `asks_count` says what a count is of (`find_tracks.count_line`).
    `explained`: then the `methods.explain` lines (in `--json`, an `"explain"` list)."""
    from ..methods.explain import explain

    n = grounding.moments.count
    tracks, objects = (None, None) if result is None else (result.tracks, result.objects)
    lead = f"{video}: " if named else ""
    why = explain(grounding) if explained else []
    if as_json:
        record = result_record(video, query, method, grounding, found)
        record = ft.record_fields(record, tracks, objects, asks_count)
        typer.echo(json.dumps(record | ({"explain": why} if explained else {})))
    elif count:
        typer.echo(f"{lead}{n if objects is None else objects}")
    else:
        for k, line in enumerate(format_moments(grounding)):
            held = "" if tracks is None else f"  {_tracks_word(len(tracks[k]))}"
            typer.echo(f"{lead}{line}{held}")
        typer.echo(f"{lead}{ft.count_line(n, found, objects, asks_count)}")
        for line in why:
            typer.echo(f"{lead}{line}")


def _tracks_word(n: int) -> str:
    return f"{n} track{'' if n == 1 else 's'}"
