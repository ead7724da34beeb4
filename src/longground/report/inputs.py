"""What a report is made of: the benchmark, each method's predictions and their scores.

Everything is read and checked here, before any figure is drawn: a missing, unreadable or
mismatched file, or an output folder that cannot be written, is one `UserError`.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..eval import EvalResult, evaluate, get_protocol
from ..eval.analysis import taxonomy_of, window_recall_of
from ..eval.evaluate import align
from ..samples import Sample

BREAKDOWNS = ("attribute", "domain", "duration_x_position")
OUTPUT_NAMES = ("index.html", "report.json")
FIGURES_DIR = "figures"


@dataclass(frozen=True)
class MethodRun:
    """One method's predictions and scores.

    Attributes:
        name: the method's label in the report.
        path: its prediction file.
        result: `evaluate` under the report's protocol, with `BREAKDOWNS`.
        spans: Q arrays `(K_q, 2)` of scored predicted spans in seconds, benchmark order.
        status: `(Q,)` answer status (0 answered, 1 missing, 2 parse failure).
        taxonomy: the single-protocol failure taxonomy (`failure_taxonomy`'s dict).
    """

    name: str
    path: Path
    result: EvalResult
    spans: list[np.ndarray]
    status: np.ndarray
    taxonomy: dict


@dataclass(frozen=True)
class ReportInput:
    """The benchmark and every method, read and scored.

    Attributes:
        gt_path: the benchmark file.
        samples: its queries, in file order.
        methods: one `MethodRun` per prediction file, in the order given.
        protocol: "comet" or "single".
        theta: the tIoU threshold.
        window_recall: `window_recall`'s dict of the windows file, or None.
    """

    gt_path: Path
    samples: list[Sample]
    methods: list[MethodRun]
    protocol: str
    theta: float
    window_recall: dict | None = None


def method_names(preds: Sequence[Path], names: Sequence[str] | None) -> list[str]:
    """`--name` values, or the prediction files' stems; they must be as many and distinct.

    >>> method_names([Path("a/x.jsonl"), Path("b/y.jsonl")], None)
    ['x', 'y']
    """
    chosen = list(names) if names else [Path(p).stem for p in preds]
    if len(chosen) != len(preds):
        raise UserError(f"{len(chosen)} --name values for {len(preds)} prediction files")
    if len(set(chosen)) != len(chosen):
        raise UserError(f"method names must differ, got {', '.join(chosen)} (use --name)")
    return chosen


def check_out_dir(out: Path, inputs: Sequence[Path], overwrite: bool = False) -> None:
    """Create `out` and make sure it can be written and that no input would be replaced.

    `out` must be new, empty, or an earlier report (its files are replaced); a folder holding
    anything else is refused unless `overwrite`, since the report's files could be the user's.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"{out}: exists and is not a folder")
    if not overwrite and out.is_dir() and any(out.iterdir()) and not _is_report(out):
        raise UserError(
            f"{out}: holds files that are not a longground report; choose a new or empty "
            "folder, or pass --overwrite to write index.html, report.json and figures/ there"
        )
    try:
        (out / FIGURES_DIR).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out / FIGURES_DIR):
            pass
    except OSError as exc:
        raise UserError(f"{out}: cannot write the report there ({exc.strerror})") from None
    written = {(out / name).resolve() for name in OUTPUT_NAMES}
    figures = (out / FIGURES_DIR).resolve()
    for path in inputs:
        resolved = Path(path).resolve()
        if resolved in written or resolved.parent == figures:
            raise UserError(f"{path}: the report would overwrite this input; choose another --out")


def _is_report(folder: Path) -> bool:
    """Whether `folder` holds a report this module wrote (its report.json reads back)."""
    try:
        data = json.loads((folder / "report.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and {"benchmark", "protocol", "methods"} <= data.keys()


def load_inputs(
    gt: Path,
    preds: Sequence[Path],
    names: Sequence[str],
    protocol: str = "comet",
    theta: float = 0.5,
    windows: Path | None = None,
    **formats,
) -> ReportInput:
    """Read and score everything (`formats`: gt_format, pred_format, durations).

    Raises:
        UserError: a file is missing, unreadable or malformed, or shares no qid with GT.
    """
    from ..formats import load_predictions, load_samples

    samples = load_samples(gt, fmt=formats.get("gt_format"), durations=formats.get("durations"))
    by_qid = {s.qid: s for s in samples}
    methods = []
    for name, path in zip(names, preds, strict=True):
        predictions = load_predictions(path, fmt=formats.get("pred_format"), samples=by_qid)
        answers = align(samples, predictions)
        if len(answers.unknown_qids) == len(predictions) or not predictions:
            raise UserError(
                f"{path}: no prediction names a query of {gt}; do they belong together?"
            )
        result = evaluate(samples, predictions, protocol=protocol, theta=theta, by=BREAKDOWNS)
        taxonomy_ready = get_protocol(protocol).failure_taxonomy
        single = result if taxonomy_ready else evaluate(samples, predictions, "single")
        taxonomy = taxonomy_of(samples, predictions, single)
        methods.append(
            MethodRun(name, Path(path), result, answers.pred_spans, answers.status, taxonomy)
        )
    recall = None
    if windows is not None:
        recall = window_recall_of(samples, load_predictions(windows, samples=by_qid))
    return ReportInput(Path(gt), samples, methods, protocol, float(theta), recall)
