"""`longground sweep BENCH --method M --out DIR`: the window-clipping sweep (EWB Fig. 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import options as opt
from .checks import check_cache_root, check_output_folder
from .main import app

# What a sweep writes into its folder: none of these may be one of the inputs.
SWEEP_FILES = (
    "sweep.json", "results.json", "table.md", "*/*.jsonl", "miou_vs_window.*", "miou_vs_frames.*"
)


@app.command("sweep")
def sweep_command(
    bench: Annotated[Path, typer.Argument(metavar="BENCH", help="Benchmark file (any format).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for answers and results.")],
    methods: Annotated[
        list[str] | None, typer.Option("--method", "-m", help="Method; repeat for more.")
    ] = None,
    windows: Annotated[
        str | None,
        typer.Option(
            "--windows",
            help="Half-widths w of the crops [c-w, c+w], and full (default "
            "15s,30s,2.5m,5m,10m,20m,full; with --frames: full).",
        ),
    ] = None,
    frames: Annotated[
        str | None,
        typer.Option("--frames", help="Frame counts N to sweep, e.g. 32,64,128,256,768 "
                     "(monolithic, hybrid: EWB Table 5)."),
    ] = None,  # fmt: skip
    encoder: opt.Encoder = opt.DEFAULTS.encoder,
    fps: opt.Fps = opt.DEFAULTS.fps,
    params: opt.Params = None,
    preset: opt.Preset = None,
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    fmt: opt.BenchFormat = None,
    videos: opt.VideoFolders = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Start over, discarding what DIR holds.")
    ] = False,
) -> None:
    """Run each method (retrieval, monolithic, hybrid, agent) on GT-centred crops [c-w, c+w]
    (c: the GT midpoint, clipped to the video) for every window w, and with --frames at every
    frame count N; map the answers back to video time and score them with the single
    protocol. Writes DIR/<method>[@N]/<window>.jsonl, DIR/results.json, DIR/table.md and the
    plots, and prints the table in the paper's layout. Running it again resumes; the
    Video-LLM's answers are cached, so a request seen before is not sent again.

    Exit code 0, or 2 when an input, an option or DIR is unusable.
    """
    from ..formats import load_samples
    from ..sweep import (
        build_sweep_methods,
        parse_frames,
        parse_windows,
        prepare_out,
        run_sweep,
        score_sweep,
        write_results,
    )

    check_output_folder(out, "--out", inputs=[bench], files=SWEEP_FILES)
    check_cache_root(cache_dir)
    counts = parse_frames(frames)
    default = "full" if counts else "15s,30s,2.5m,5m,10m,20m,full"
    chosen = parse_windows(default if windows is None else windows)
    names = list(dict.fromkeys(methods or ["retrieval"]))
    opt.check_preset(preset, names)

    from ..methods.presets import preset_names

    def config_for(name: str, extra: dict):
        chosen = preset if preset in preset_names(name) else None  # only where a method has it
        return opt.method_config(
            encoder=encoder, fps=fps, single=True,
            params=[*(params or []), *(f"{k}={v}" for k, v in extra.items())],
            llm=llm, base_url=base_url, model=model, api_key=api_key, cache_dir=cache_dir,
            method=name, preset=chosen,
        )  # fmt: skip

    built, variants = build_sweep_methods(names, counts, config_for)
    samples = load_samples(bench, fmt)
    settings = {
        "benchmark": str(bench.resolve()),
        "methods": names,
        "encoder": encoder,
        "fps": fps,
        "params": sorted(params or []),
        "windows": [w.label for w in chosen],
    }
    settings.update({"frames": counts} if counts else {})
    settings.update({"preset": preset} if preset else {})
    llm_config = config_for(names[0], {}).llm
    if {"monolithic", "hybrid"} & set(names):  # they ask a Video-LLM: one must be named
        from ..llm.config import LLMConfig
        from ..llm.factory import resolve_model

        resolve_model(llm_config or LLMConfig())
    if llm_config is not None:
        settings["llm"] = {k: getattr(llm_config, k) for k in ("backend", "model", "base_url")}
    prepare_out(out, settings, overwrite)
    files = run_sweep(samples, built, chosen, out, [*(videos or []), bench.parent])
    typer.echo(write_results(score_sweep(samples, files, chosen, variants), chosen, out))
