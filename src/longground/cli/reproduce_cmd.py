"""`longground reproduce TABLE BENCH --out DIR`: one paper table, run, scored and laid out."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from . import options as opt
from .checks import check_cache_root, check_output_folder
from .main import app

MARKER = "reproduce.json"


def scoped_params(items: list[str] | None) -> dict[str, dict[str, str]]:
    """`-p METHOD:KEY=VALUE` items by method.

    >>> scoped_params(["monolithic:n_frames=64", "agent:hops=3"])
    {'monolithic': {'n_frames': '64'}, 'agent': {'hops': '3'}}
    """
    out: dict[str, dict[str, str]] = {}
    for item in items or []:
        method, sep, setting = item.partition(":")
        if not sep or not method.strip():
            raise UserError(
                f"-p wants METHOD:KEY=VALUE (e.g. monolithic:n_frames=64), got {item!r}"
            )
        out.setdefault(method.strip(), {}).update(opt.parse_params([setting]))
    return out


def _prepare(out: Path, inputs: list[Path | None]) -> None:
    """Refuse a folder holding files that are not an earlier `reproduce`'s, or one of
    `inputs` where it writes."""
    check_output_folder(out, "--out", inputs=inputs, files=("*.md", "*.json", "runs/**/*"))
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise UserError(f"--out {out}: holds files that are not a reproduce run; choose a new "
                        "or empty folder")  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text(json.dumps({"written_by": "longground reproduce"}), "utf-8")


def _paper_benchmark(paper, benches: list[tuple[Path, list]]):
    """`(the paper benchmark found, the file it is)`: the first of `benches` (BENCH, then
    ewb-table1's --reference) that is one the table's paper rows are on, else BENCH's."""
    from ..reproduce import identify

    found = [(identify(path, samples), path) for path, samples in benches]
    return next((f for f in found if f[0] in paper.home), found[0])


@app.command("reproduce")
def reproduce_command(
    table: Annotated[
        str, typer.Argument(metavar="TABLE", help="ewb-table1|5|6|7, comet-table2|5|6|7.")
    ],
    bench: Annotated[Path, typer.Argument(metavar="BENCH", help="Benchmark file (any format).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for answers and tables.")],
    encoder: opt.Encoder = "label-bridge",
    fps: opt.Fps = 1.0,
    params: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="METHOD:KEY=VALUE for one method; repeat."),
    ] = None,
    preset: Annotated[
        str, typer.Option("--preset", help="Parameter preset of the methods that have it.")
    ] = "paper",
    frames: Annotated[
        str | None,
        typer.Option(
            "--frames", help="ewb-table5: frame counts N (default: the paper's for the benchmark)."
        ),
    ] = None,  # fmt: skip
    published: Annotated[
        str,
        typer.Option(
            "--published",
            help="Show the paper's numbers: auto (when the "
            "benchmark is the paper's), always or never.",
        ),
    ] = "auto",  # fmt: skip
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
    fmt: opt.BenchFormat = None,
    videos: opt.VideoFolders = None,
    reference: Annotated[
        Path | None,
        typer.Option(
            "--reference",
            help="ewb-table1: a second benchmark for the other column "
            "(Charades-STA beside yours) and the Ratio.",
        ),
    ] = None,  # fmt: skip
) -> None:
    """Run what one table of the papers needs (ExtremeWhenBench Tables 1, 5, 6, 7; CoMET
    Tables 2, 5, 6, 7) over BENCH with the given server and model, score it, and write
    DIR/TABLE.md and DIR/TABLE.json in the paper's layout (beside the paper's numbers when
    BENCH is the paper's benchmark, recognised by its file's checksum or its published size);
    prints the Markdown. Running it again resumes. --model is needed by the tables that run
    monolithic or hybrid; the agent plays its roles offline without one. To try a table
    without a model, point --base-url at `longground serve-stub`.

    Exit code 0, or 2 when an input, an option or DIR is unusable.
    """
    from ..formats import SAMPLE_FORMATS, load_samples
    from ..formats.registry import resolve
    from ..llm.config import LLMConfig
    from ..llm.factory import resolve_model
    from ..methods.presets import preset_names
    from ..reproduce import TABLES, Context, published_note, to_markdown, write_result
    from ..sweep import parse_frames

    if table not in TABLES:
        raise UserError(f"unknown table {table!r}; choose from: {', '.join(TABLES)}")
    if published not in ("auto", "always", "never"):
        raise UserError(f"--published {published!r}: choose auto, always or never")
    scoped = scoped_params(params)
    counts = parse_frames(frames)
    opt.check_preset(preset, TABLES[table].methods)
    check_cache_root(cache_dir)
    samples = load_samples(bench, fmt)
    bench_format = resolve(SAMPLE_FORMATS, "benchmark", bench, fmt).name
    if bench_format == "canonical" and any(s.attributes for s in samples):
        bench_format = "comet"

    def config_for(method: str, row: dict[str, str], single: bool):
        chosen = preset if preset in preset_names(method) else None
        settings = {**row, **scoped.get(method, {})}
        return opt.method_config(
            encoder=encoder, fps=fps, single=single,
            params=[f"{k}={v}" for k, v in settings.items()],
            llm=llm, base_url=base_url, model=model, api_key=api_key, cache_dir=cache_dir,
            method=method, preset=chosen,
        )  # fmt: skip

    if reference is not None and table != "ewb-table1":
        raise UserError("--reference is only for ewb-table1")
    if reference is not None:
        ref_samples = load_samples(reference, None)
        ref_format = resolve(SAMPLE_FORMATS, "benchmark", reference, None).name
    paper = TABLES[table]
    llm_config = config_for("monolithic", {}, True).llm
    agent_asks = "agent" in paper.methods and config_for("agent", {}, False).llm is not None
    if paper.needs_video_llm or agent_asks:  # a row will ask a Video-LLM: one must be named
        resolve_model(llm_config or LLMConfig())
    model_label = llm_config.model if llm_config is not None and llm_config.model else None
    found, named = _paper_benchmark(paper, [(bench, samples)] + (
        [(reference, ref_samples)] if reference is not None else []))  # fmt: skip
    show = published == "always" or (published == "auto" and found in paper.home)
    _prepare(out, [bench, reference])
    ctx = Context(
        samples, bench, bench_format, out, config_for, [*(videos or []), bench.parent],
        model=model_label or ("Video-LLM" if paper.needs_video_llm else "offline"),
        encoder_label=encoder, published=show, frames=counts,
    )  # fmt: skip
    if reference is not None:
        ctx.reference = replace(ctx, samples=ref_samples, bench=reference, bench_format=ref_format,
                                roots=[*(videos or []), reference.parent])  # fmt: skip
    result = paper.build(ctx)
    note = published_note(paper.home, found, named, show)
    result = replace(result, notes=(*result.notes, note))
    about = {"benchmark": str(bench), "format": bench_format, "model": ctx.model,
             "encoder": encoder, "preset": preset}  # fmt: skip
    write_result(result, out, about)
    typer.echo(to_markdown(result, ", ".join(f"{k}: {v}" for k, v in about.items())), nl=False)
