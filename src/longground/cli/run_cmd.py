"""`longground run BENCH --method M --out PREDS.jsonl`: a whole benchmark, resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import UserError
from ..formats.queries import has_ground_truth
from ..progress import note
from ..run import (
    Backend,
    MethodSpec,
    RunInterrupted,
    RunSummary,
    WorkerLost,
    make_backend,
    run_benchmark,
)
from ..topk import EWB_WINDOWS_NAME
from . import export_options as xo
from . import options as opt
from .channel_options import Subtitles, subtitles_on
from .checks import at_least, check_cache_root, check_output_file
from .main import app


@app.command("run")
def run(
    benchmark: Annotated[Path, typer.Argument(help="Benchmark file (canonical JSONL or known).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Predictions JSONL to write.")],
    method: Annotated[
        str | None,
        typer.Option(
            "--method",
            "-m",
            help="Grounding method (default: agent; retrieval with --topk-windows).",
        ),
    ] = None,
    encoder: opt.Encoder = opt.DEFAULTS.encoder,
    fps: opt.Fps = opt.DEFAULTS.fps,
    single: opt.Single = False,
    params: opt.Params = None,
    preset: opt.Preset = None,
    video_input: opt.VideoInputMode = None,
    parse: opt.ParseMode = None,
    subtitles: Subtitles = None,
    appearance: opt.Appearance = None,
    segment_encoder: opt.SegmentEncoder = None,
    device: opt.Device = None,
    batch_size: opt.BatchSize = None,
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="Benchmark format (default: guessed).")
    ] = None,
    videos: Annotated[
        list[Path] | None,
        typer.Option(
            "--videos",
            callback=opt.existing_folders,
            help="Folder holding the videos; repeat for more. "
            "Relative names are also tried next to the benchmark file.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            min=1,
            help="Worker processes (default 1, in process; with --ray: actors, default one "
            "per GPU, else per CPU).",
        ),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Run on Ray: auto, ray://HOST:10001, HOST:PORT, or local."),
    ] = None,
    gpus_per_worker: Annotated[
        float | None,
        typer.Option(
            "--gpus-per-worker",
            callback=at_least(0.0),
            help="GPUs per Ray actor (default: 1 when the cluster has GPUs, else 0).",
        ),
    ] = None,
    ray_runtime_env: Annotated[
        str | None,
        typer.Option("--ray-runtime-env", help="Ray runtime_env as JSON, or a .json file."),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Start over, discarding what OUT holds.")
    ] = False,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="Run again the queries that failed before.")
    ] = False,
    evaluate: Annotated[
        bool, typer.Option("--eval", help="Score the predictions when the run is done.")
    ] = False,
    protocol: Annotated[
        str, typer.Option("--protocol", help="Scoring protocol for --eval: comet or single.")
    ] = "comet",
    topk_windows: Annotated[
        bool,
        typer.Option(
            "--topk-windows",
            help="Write retrieval's top-10 windows (±60 s, NMS 60 s: --preset ewb-windows; "
            "-p overrides) for eval --windows, instead of answers.",
        ),
    ] = False,
    export: xo.Export = None,
    clips: xo.Clips = None,
    exact: xo.Exact = False,
    thumbs: xo.Thumbs = None,
    timeline: xo.Timeline = None,
) -> None:
    """Run a method over every query of BENCHMARK, appending predictions to OUT.

    Running the same command again resumes: finished queries are skipped. Ctrl-C stops
    cleanly (exit code 130) and keeps everything finished. Exit code 0 when every query got
    an answer; 2 when any failed or its model answer could not be read (the answers it did
    get are kept; the last line gives the counts).
    """
    from ..formats import load_samples
    from ..run.journal import meta_path
    from .export_options import run_found

    inputs = [benchmark, _runtime_env_file(ray_runtime_env)]
    check_output_file(out, "--out", inputs=inputs)
    check_output_file(meta_path(out), "--out", inputs=inputs)  # the run's sidecar
    targets = xo.ExportTargets(tuple(export or ()), clips, exact, thumbs, timeline)
    targets.check(inputs=[*inputs, out])
    check_cache_root(cache_dir)
    from ..eval import get_protocol

    get_protocol(protocol)  # a typo fails now, not after the run (with or without --eval)
    if topk_windows:  # EWB Table 6's windows, best first; the user's -p values win
        if method not in (None, "retrieval"):
            raise UserError("--topk-windows writes the retrieval method's windows; drop --method")
        if preset not in (None, EWB_WINDOWS_NAME):
            raise UserError("--topk-windows is the retrieval preset ewb-windows; drop --preset")
        method, preset = "retrieval", EWB_WINDOWS_NAME
    method = method or "agent"
    config = opt.method_config(
        encoder=encoder,
        fps=fps,
        single=single,
        params=params,
        llm=llm,
        base_url=base_url,
        model=model,
        api_key=api_key,
        cache_dir=cache_dir,
        method=method,
        preset=preset,
        appearance=appearance,
        segment_encoder=segment_encoder,
        video_input=video_input,
        parse=parse,
        device=device,
        batch_size=batch_size,
    )
    config.subtitles = subtitles_on(subtitles, method, preset)
    spec = MethodSpec(method, config)
    backend = _backend(spec, workers, ray, gpus_per_worker, ray_runtime_env)
    samples = load_samples(benchmark, fmt)
    targets.check_rates(xo.run_videos(samples, [*(videos or []), benchmark.parent]))
    try:
        summary = run_benchmark(
            samples,
            spec,
            out,
            backend=backend,
            overwrite=overwrite,
            retry_errors=retry_errors,
            video_roots=[*(videos or []), benchmark.parent],
            info={"benchmark": str(benchmark)},
            on_worker_lost=_tell_worker_lost,
        )
    except RunInterrupted as stop:  # `main` says "interrupted" for exit code 130
        typer.echo(f"longground: {_describe(stop.summary)}", err=True)
        typer.echo("longground: run the same command again to resume", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"longground: {_describe(summary)}", err=True)
    if targets.wanted:
        for line in targets.write(run_found(samples, out, [*(videos or []), benchmark.parent])):
            typer.echo(f"longground: {line}", err=True)
    if evaluate and not has_ground_truth(samples):
        typer.echo(f"longground: {benchmark} holds queries without ground truth; "
                   "nothing to score, --eval skipped", err=True)  # fmt: skip
    elif evaluate:
        _print_scores(benchmark, fmt, out, protocol)
    if not summary.all_answered:
        raise UserError(_unanswered(summary))


def _backend(
    spec: MethodSpec,
    workers: int | None,
    ray: str | None,
    gpus_per_worker: float | None,
    ray_runtime_env: str | None,
) -> Backend:
    """The backend the options ask for (Ray options without `--ray` are an error)."""
    if ray is None:
        if gpus_per_worker is not None or ray_runtime_env is not None:
            raise UserError("--gpus-per-worker and --ray-runtime-env need --ray")
        return make_backend(spec, workers)
    return make_backend(
        spec,
        workers,
        ray,
        gpus_per_worker=gpus_per_worker,
        runtime_env=_runtime_env(ray_runtime_env),
    )


def _describe(summary: RunSummary) -> str:
    """One line: what is in the file now and how fast this run went."""
    done = summary.resumed + summary.written
    text = f"{done}/{summary.total} queries in {summary.out}"
    text += f" ({summary.written} new, {summary.queries_per_s:.2f} q/s"
    if summary.resumed:
        text += f", {summary.resumed} resumed"
    if summary.torn_dropped:
        text += ", a torn last line was dropped"
    if summary.workers_lost:
        text += f", {summary.workers_lost} workers lost and {summary.requeued} queries redone"
    text += ")"
    if summary.errors:
        text += f"; {summary.errors} failed (see their 'error' field; --retry-errors reruns them)"
    if summary.parse_failed:
        text += f"; {summary.parse_failed} model answers unreadable (see 'parse_error')"
    return text


def _tell_worker_lost(event: WorkerLost) -> None:
    note(f"longground: warning: {event.describe()}")


def _runtime_env_file(value: str | None) -> Path | None:
    """The file `--ray-runtime-env` names, if it names one (an input never to overwrite)."""
    if value is None or value.lstrip().startswith("{"):
        return None
    return Path(value)


def _unanswered(summary: RunSummary) -> str:
    """The last line of a run that left queries without an answer: the counts.

    >>> s = RunSummary(Path("p.jsonl"), total=10, written=10, errors=2, parse_failed=1)
    >>> print(_unanswered(s))
    3 of 10 queries have no answer (2 failed, 1 unreadable model answer); the 7 answers are \
kept in p.jsonl
    """
    missing = summary.total - summary.answered
    parts = [f"{summary.errors} failed", f"{summary.parse_failed} unreadable model answer"]
    parts[1] += "s" if summary.parse_failed != 1 else ""
    return (
        f"{missing} of {summary.total} queries have no answer ({', '.join(parts)}); "
        f"the {summary.answered} answers are kept in {summary.out}"
    )


def _runtime_env(value: str | None) -> dict[str, Any] | None:
    """`--ray-runtime-env` as a dict: inline JSON, or the path of a JSON file."""
    if value is None:
        return None
    text = value
    if not value.lstrip().startswith("{"):
        path = Path(value)
        if not path.is_file():
            raise UserError(f"--ray-runtime-env: {value} is neither JSON nor a file")
        text = path.read_text(encoding="utf-8")
    try:
        env = json.loads(text)
    except ValueError as exc:
        raise UserError(f"--ray-runtime-env: not valid JSON ({exc})") from None
    if not isinstance(env, dict):
        raise UserError("--ray-runtime-env: expected a JSON object")
    return env


def _print_scores(benchmark: Path, fmt: str | None, out: Path, protocol: str) -> None:
    """What `longground eval BENCHMARK OUT --protocol P` prints."""
    from ..eval import evaluate_files
    from ..eval.table import format_result

    typer.echo(format_result(evaluate_files(benchmark, out, gt_format=fmt, protocol=protocol)))
