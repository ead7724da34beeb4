"""`longground eval GT PRED`: score a system's predictions against a benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from ..eval.file_protocols import FileProtocol, file_protocol
from ..outputs import open_output
from . import analysis_options as ao
from . import file_options as fo
from . import options as opt
from .checks import check_cache_root, check_output_file
from .main import app


def split_names(values: list[str] | None) -> list[str]:
    """`--by a,b --by c` as `["a", "b", "c"]`.

    >>> split_names(["attribute,domain", " position "])
    ['attribute', 'domain', 'position']
    """
    return [name.strip() for value in values or [] for name in value.split(",") if name.strip()]


@app.command("eval")
def eval_command(
    gt: Annotated[
        Path,
        typer.Argument(metavar="GT", help="Benchmark file (canonical JSONL or a known format)."),
    ],
    pred: Annotated[
        Path, typer.Argument(metavar="PRED", help="Predictions file (canonical JSONL or known).")
    ],
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="comet (CoMET-Bench), single (first interval), qvhighlights "
            "(Moment-DETR's moment mAP/R1 and highlight mAP/HIT@1) or stvg (spatio-temporal "
            "grounding: m_tIoU, m_vIoU, vIoU@0.3/0.5 over boxes, docs/evaluation.md).",
        ),
    ] = "comet",
    theta: Annotated[float, typer.Option("--theta", help="tIoU threshold for R@ and F1@.")] = 0.5,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Breakdowns, comma-separated: attribute, domain, duration, "
            "count, position, duration_x_position.",
        ),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Resamples for 95% confidence intervals.")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and --sample.")] = 0,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object (fractions in [0, 1]; qvhighlights: the published "
            "metrics-file layout, in percent).",
        ),
    ] = False,
    gt_format: fo.GtFormat = None,
    pred_format: fo.PredFormat = None,
    durations: fo.Durations = None,
    per_query: Annotated[
        Path | None,
        typer.Option("--per-query", help="Also write one JSON line per query to this file."),
    ] = None,
    top_k: Annotated[
        str | None, typer.Option("--top-k", help="single: R{K}@tau for these K, e.g. 1,5.")
    ] = None,
    iou: Annotated[
        str | None, typer.Option("--iou", help="single: tIoU thresholds (default 0.3,0.5,0.7).")
    ] = None,
    parse: Annotated[
        str | None,
        typer.Option(
            "--parse",
            help="How raw answers in PRED are read: lenient (JSON, prose, clock times) or "
            "strict (the papers' JSON-only rule). Prints parse failures under both.",
        ),
    ] = None,
    answered_only: Annotated[
        bool,
        typer.Option(
            "--answered-only",
            help="Also score the queries that have an answer in PRED alone, in a row of its "
            "own under the full metrics (which stay the headline).",
        ),
    ] = False,
    taxonomy: ao.Taxonomy = False,
    fail_iou: ao.FailIou = 0.05,
    offset_min: ao.OffsetMin = 5.0,
    sample: ao.SampleN = 0,
    windows: ao.Windows = None,
    classifier: ao.Classifier = "rules",
    llm: opt.Llm = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
    api_key: opt.ApiKey = None,
    cache_dir: opt.CacheDir = None,
) -> None:
    """Score PRED against GT and print the papers' metrics.

    Exit code 0 when scored, 2 when an input file or an option is unusable.
    """
    from ..eval import evaluate_files
    from ..eval.table import format_result

    if per_query is not None:
        check_output_file(per_query, "--per-query", inputs=[gt, pred, durations, windows])
    check_cache_root(cache_dir)
    own_files = file_protocol(protocol)
    if own_files is not None:  # reads fields only its format has: its own path
        check_own_files_options(
            own_files.name, by, bootstrap, gt_format, pred_format, durations, top_k or iou,
            taxonomy or windows or parse, answered_only,
        )  # fmt: skip
        with fo.benchmark_first(gt, [pred]):
            return own_files_command(own_files, gt, pred, as_json, per_query)
    with fo.benchmark_first(gt, [pred]):
        result = evaluate_files(
            gt,
            pred,
            gt_format=gt_format,
            pred_format=pred_format,
            durations=durations,
            protocol=protocol,
            theta=theta,
            by=split_names(by),
            bootstrap=bootstrap,
            seed=seed,
            top_k=numbers(top_k, int, "--top-k"),
            iou=numbers(iou, float, "--iou"),
            parse=parse,
        )
    from ..eval.analysis import analysis_files, format_sections

    options = dict(fail_iou=fail_iou, offset_min=offset_min, sample=sample, seed=seed)
    sections = analysis_files(gt, pred, result, taxonomy=options if taxonomy else None,
                              windows=windows, gt_format=gt_format, pred_format=pred_format,
                              durations=durations)  # fmt: skip
    if classifier != "rules":
        sections = llm_taxonomy_section(
            classifier, taxonomy, sections, gt, pred, result, options,
            dict(gt_format=gt_format, pred_format=pred_format, durations=durations),
            opt.method_config(encoder="", fps=1.0, single=True, params=None, llm=llm,
                              base_url=base_url, model=model, api_key=api_key,
                              cache_dir=cache_dir),
        )  # fmt: skip
    if answered_only:
        from ..eval.answered import answered_metrics

        sections = {"answered_only": answered_metrics(result), **sections}
    text = format_result(result, sections.get("answered_only")) + format_sections(sections)
    if "llm" in sections.get("taxonomy", {}):
        from ..judge.files import format_llm_section

        text += format_llm_section(sections["taxonomy"]["llm"])
    typer.echo(json.dumps({**result.to_dict(), **sections}) if as_json else text)
    if per_query is not None:
        write_rows(per_query, result.rows())


def llm_taxonomy_section(classifier, taxonomy, sections, gt, pred, result, options, files,
                         config) -> dict:  # fmt: skip
    """`sections` with the LLM classifier's taxonomy added under "taxonomy"/"llm"."""
    from ..cache.kinds import llm_path
    from ..judge.files import llm_taxonomy_of_files
    from ..llm.config import LLMConfig
    from ..llm.factory import make_chat_client

    if classifier != "llm":
        raise UserError(f"--classifier {classifier!r}: choose rules or llm")
    if not taxonomy:
        raise UserError("--classifier llm needs --taxonomy")
    client = make_chat_client(config.llm or LLMConfig(), llm_path(config.cache_dir))
    llm = llm_taxonomy_of_files(gt, pred, result, client, **options, **files)
    return {**sections, "taxonomy": {**sections["taxonomy"], "llm": llm}}


def numbers(text: str | None, kind: type, option: str) -> list | None:
    """`"1,5"` as `[1, 5]`; None when the option was not given.

    >>> numbers("0.3, 0.5", float, "--iou"), numbers(None, int, "--top-k")
    ([0.3, 0.5], None)
    """
    if text is None:
        return None
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"{option} takes comma-separated numbers, got {text!r}") from None


def check_own_files_options(
    name, by, bootstrap, gt_format, pred_format, durations, k_iou, analysis, answered_only
) -> None:
    """A `UserError` for options a protocol that reads its own files has no use for."""
    formats = {gt_format, pred_format} - {None, name}
    given = {"--by": by, "--bootstrap": bootstrap, "--durations": durations, "--*-format": formats}
    given["--top-k/--iou"] = k_iou
    given["--taxonomy/--windows/--parse"] = analysis
    given["--answered-only"] = answered_only
    unused = [name for name, value in given.items() if value]
    if unused:
        raise UserError(f"--protocol {name} does not take {', '.join(unused)}")


def own_files_command(
    own: FileProtocol, gt: Path, pred: Path, as_json: bool, per_query: Path | None
) -> None:
    """Score files of a protocol's own format; print its published layout (JSON) or tables."""
    scores = own.score_files(gt, pred)
    typer.echo(json.dumps(own.to_json(scores)) if as_json else own.table(scores))
    if per_query is not None:
        write_rows(per_query, own.rows(scores))


def write_rows(path: Path, rows: list[dict]) -> None:
    """One JSON line per query, or a `UserError` naming the file."""
    with open_output(path, "--per-query") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
