"""`longground sweep BENCH --method M --out DIR`: the window-clipping sweep (EWB Fig. 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import options as opt
from .checks import check_output_folder
from .main import app

# What a sweep writes into its folder: none of these may be one of the inputs.
SWEEP_FILES = ("sweep.json", "results.json", "table.md", "*/*.jsonl", "miou_vs_window.*")


@app.command("sweep")
def sweep_command(
    bench: Annotated[Path, typer.Argument(metavar="BENCH", help="Benchmark file (any format).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for answers and results.")],
    methods: Annotated[
        list[str] | None, typer.Option("--method", "-m", help="Method; repeat for more.")
    ] = None,
    windows: Annotated[
        str, typer.Option("--windows", help="Half-widths w of the crops [c-w, c+w], and full.")
    ] = "15s,30s,2.5m,5m,10m,20m,full",
    encoder: opt.Encoder = "label-bridge",
    fps: opt.Fps = 1.0,
    params: opt.Params = None,
    cache_dir: opt.CacheDir = None,
    fmt: Annotated[str | None, typer.Option("--format", help="Benchmark format.")] = None,
    videos: Annotated[
        list[Path] | None, typer.Option("--videos", help="Folder holding the videos; repeat.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Start over, discarding what DIR holds.")
    ] = False,
) -> None:
    """Run each method on GT-centred crops [c-w, c+w] (c: the GT midpoint, clipped to the
    video) for every window w, map the answers back to video time and score them with the
    single protocol. Writes DIR/<method>/<window>.jsonl, DIR/results.json, DIR/table.md and
    DIR/miou_vs_window.png/.pdf, and prints the table. Running it again resumes.

    Exit code 0, or 2 when an input, an option or DIR is unusable.
    """
    from ..formats import load_samples
    from ..sweep import (
        build_crop_method,
        parse_windows,
        prepare_out,
        run_sweep,
        score_sweep,
        write_results,
    )

    check_output_folder(out, "--out", inputs=[bench], files=SWEEP_FILES)
    chosen = parse_windows(windows)
    names = list(dict.fromkeys(methods or ["retrieval"]))
    config = opt.method_config(
        encoder=encoder,
        fps=fps,
        single=True,
        params=params,
        llm=None,
        base_url=None,
        model=None,
        api_key=None,
        cache_dir=cache_dir,
    )
    built = {name: build_crop_method(name, config) for name in names}
    samples = load_samples(bench, fmt)
    settings = {
        "benchmark": str(bench.resolve()),
        "methods": names,
        "encoder": encoder,
        "fps": fps,
        "params": sorted(params or []),
        "windows": [w.label for w in chosen],
    }
    prepare_out(out, settings, overwrite)
    files = run_sweep(samples, built, chosen, out, [*(videos or []), bench.parent])
    typer.echo(write_results(score_sweep(samples, files, chosen), chosen, out))
