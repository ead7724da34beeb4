"""`evaluate`: score a system's predictions against a benchmark under one protocol."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..samples import Prediction, Sample
from .bootstrap import MAX_BOOTSTRAP, bootstrap_ci
from .breakdown import BreakdownInput, breakdowns, check_breakdowns
from .padded import SpanTable
from .plain import plain_row
from .protocol import ANSWERED, MISSING, PARSE_FAILURE, Protocol
from .registry import get_protocol
from .result import EvalResult

EMPTY_SPANS = np.zeros((0, 2))


@dataclass(frozen=True)
class Alignment:
    """Predictions lined up with the benchmark's queries.

    Attributes:
        pred_spans: Q arrays `(K_q, 2)`: what is scored (empty when missing or unparsed).
        status: `(Q,)` int: ANSWERED, MISSING or PARSE_FAILURE.
        invalid_intervals: `(Q,)` int, intervals dropped from each query's answer.
        unknown_qids: prediction qids that are not in the benchmark.
        duplicate_qids: qids answered more than once (the first answer is scored).
        skipped_records: prediction records that named no usable qid (from the file reader).
    """

    pred_spans: list[np.ndarray]
    status: np.ndarray
    invalid_intervals: np.ndarray
    unknown_qids: tuple[str, ...]
    duplicate_qids: tuple[str, ...]
    skipped_records: tuple[str, ...] = ()


def align(samples: Sequence[Sample], predictions: Iterable[Prediction]) -> Alignment:
    """Match predictions to samples by qid (compared as strings).

    A `PredictionList` from `longground.formats.load_predictions` also brings the qids it
    already found repeated (`duplicates`) and the records it could not use (`skipped`).

    Raises:
        UserError: two samples share a qid.

    >>> from longground import Moments
    >>> s = Sample("q1", "v.mp4", 60.0, "a dog", Moments.from_list([[1, 2]]))
    >>> a = align([s], [Prediction("zz", Moments.empty()), Prediction("q1", None)])
    >>> a.status.tolist(), a.unknown_qids
    ([2], ('zz',))
    """
    position: dict[str, int] = {}
    for i, sample in enumerate(samples):
        qid = str(sample.qid)
        if qid in position:
            raise UserError(f"benchmark: qid {qid} appears twice")
        position[qid] = i
    pred_spans = [EMPTY_SPANS] * len(samples)
    status = [MISSING] * len(samples)
    invalid = [0] * len(samples)
    unknown, duplicates = [], []
    for prediction in predictions:
        qid = str(prediction.qid)
        i = position.get(qid)
        if i is None:
            unknown.append(qid)
        elif status[i] != MISSING:
            duplicates.append(qid)
        elif prediction.moments is None:
            status[i], invalid[i] = PARSE_FAILURE, prediction.invalid_intervals
        else:
            status[i], invalid[i] = ANSWERED, prediction.invalid_intervals
            pred_spans[i] = prediction.moments.spans
    duplicates += [str(qid) for qid in getattr(predictions, "duplicates", ())]
    skipped = tuple(str(line) for line in getattr(predictions, "skipped", ()))
    return Alignment(
        pred_spans,
        np.array(status, dtype=np.int64),
        np.array(invalid, dtype=np.int64),
        tuple(unknown),
        tuple(duplicates),
        skipped,
    )


def evaluate(
    samples: Iterable[Sample],
    predictions: Iterable[Prediction],
    protocol: str = "comet",
    theta: float = 0.5,
    by: Sequence[str] = (),
    bootstrap: int = 0,
    seed: int = 0,
    top_k: Sequence[int] | None = None,
    iou: Sequence[float] | None = None,
) -> EvalResult:
    """Score predictions against a benchmark.

    Args:
        samples: the benchmark's queries with their GT moments (qids must be unique).
        predictions: a system's answers; unknown qids are counted and ignored, a query
            without an answer is scored as empty and counted as missing.
        protocol: "comet" (CoMET-Bench) or "single" (first prediction vs best GT).
        theta: tIoU threshold in [0, 1] for Recall@θ and F1@θ.
        by: breakdown names ("attribute", "domain", "duration", "count", "position",
            "duration_x_position").
        bootstrap: number of bootstrap resamples for 95% intervals (0: none; at most
            `MAX_BOOTSTRAP`).
        seed: random seed of the bootstrap (>= 0).
        top_k: `single` only: also report R{K}@τ for these K (R1 is always reported).
        iou: `single` only: the tIoU thresholds τ (default 0.3, 0.5, 0.7; θ is added).

    Returns:
        `EvalResult`.

    >>> from longground import Moments
    >>> gt = [Sample("a", "v", 60.0, "q", Moments.from_list([[0, 10]])),
    ...       Sample("b", "v", 60.0, "q", Moments.empty())]
    >>> pred = [Prediction("a", Moments.from_list([[0, 5]])), Prediction("b", Moments.empty())]
    >>> r = evaluate(gt, pred)
    >>> r.metrics["miou"], r.metrics["recall@0.5"], r.metrics["f1@0.5"], r.metrics["rej_f1"]
    (0.5, 1.0, 0.0, 1.0)
    """
    scorer = get_protocol(protocol, top_k=top_k, iou=iou)
    _check_options(theta, bootstrap, seed, by)
    samples = list(samples)
    if not samples:
        raise UserError("the benchmark has no queries")
    answers = align(samples, predictions)
    gt = SpanTable.from_arrays([s.gt.spans for s in samples])
    tables = scorer.score(gt, SpanTable.from_arrays(answers.pred_spans), theta)
    queries = dict(tables.queries)
    queries.update(status=answers.status, invalid_intervals=answers.invalid_intervals)
    metrics = _headline(plain_row(scorer.summarize(queries, _all(len(samples)), theta)), answers)
    inp = BreakdownInput(samples, scorer, theta, queries, tables.intervals)
    ci = {}
    if bootstrap:
        keys = [column.key for column in scorer.columns(theta)]
        ci = bootstrap_ci(
            lambda idx: scorer.summarize(queries, idx, theta), len(samples), keys, bootstrap, seed
        )
    return EvalResult(
        protocol=protocol,
        theta=float(theta),
        metrics=metrics,
        qids=tuple(str(s.qid) for s in samples),
        queries=queries,
        intervals=tables.intervals,
        matches=tables.matches,
        by=breakdowns(inp, by),
        ci=ci,
        unknown_qids=answers.unknown_qids,
        warnings=tuple(_warnings(scorer, metrics, answers)),
        settings=scorer.settings(),
    )


def evaluate_files(
    gt_path: str | Path,
    pred_path: str | Path,
    gt_format: str | None = None,
    pred_format: str | None = None,
    durations: str | Path | None = None,
    parse: str | None = None,
    **options,
) -> EvalResult:
    """`evaluate` on files, as `longground eval GT PRED` does.

    Args:
        gt_path: benchmark file; its format is detected unless `gt_format` names it.
        pred_path: predictions file; its format is detected unless `pred_format` names it.
        gt_format: a name from `longground.formats.SAMPLE_FORMATS`.
        pred_format: a name from `longground.formats.PREDICTION_FORMATS`.
        durations: a video-duration table, for benchmark formats without durations.
        parse: "lenient" or "strict": how raw answers in PRED are read (None: as written,
            lenient). When given, the metrics also hold `parse_failures_lenient` and
            `parse_failures_strict`, and `metrics["parse"]` names the mode scored.
        **options: `evaluate`'s keyword arguments (protocol, theta, by, bootstrap, seed).

    Raises:
        UserError: an unreadable or malformed benchmark file (one line naming file, line, qid).
    """
    from ..formats import load_predictions, load_samples

    samples = load_samples(Path(gt_path), fmt=gt_format, durations=durations)
    by_qid = {s.qid: s for s in samples}

    def load(mode: str | None):
        return load_predictions(Path(pred_path), fmt=pred_format, samples=by_qid, parse=mode)

    result = evaluate(samples, load(parse), **options)
    if parse is None:
        return result
    from ..answers import PARSE_MODES  # its patterns take a while to build: only when needed

    plain = {k: v for k, v in options.items() if k not in ("by", "bootstrap")}
    counts = {
        f"parse_failures_{mode}": result.metrics["parse_failures"]
        if mode == parse
        else evaluate(samples, load(mode), **plain).metrics["parse_failures"]
        for mode in PARSE_MODES
    }
    return with_parse_counts(result, parse, counts)


def with_parse_counts(result: EvalResult, parse: str, counts: dict[str, int]) -> EvalResult:
    """`result` with the parse mode scored ("parse") and the parse failures under every mode
    placed after "parse_failures"."""
    metrics = {}
    for key, value in result.metrics.items():
        metrics[key] = value
        if key == "parse_failures":
            metrics.update(parse=parse, **counts)
    return replace(result, metrics=metrics)


def _all(n_queries: int) -> np.ndarray:
    return np.arange(n_queries)[None, :]


def _check_options(theta: float, bootstrap: int, seed: int, by: Sequence[str]) -> None:
    if not 0.0 <= theta <= 1.0:
        raise UserError(f"theta must be in [0, 1], got {theta}")
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        raise UserError(f"bootstrap must be in [0, {MAX_BOOTSTRAP}], got {bootstrap}")
    if seed < 0:
        raise UserError(f"seed must be >= 0, got {seed}")
    check_breakdowns(by)


def _headline(summary: dict, answers: Alignment) -> dict:
    """The protocol's summary with the file-level counts placed after "invalid_intervals"."""
    metrics = {}
    for key, value in summary.items():
        metrics[key] = value
        if key == "invalid_intervals":
            metrics["unknown_qids"] = len(answers.unknown_qids)
            metrics["duplicate_predictions"] = len(answers.duplicate_qids)
            metrics["skipped_records"] = len(answers.skipped_records)
    return metrics


def _warnings(scorer: Protocol, metrics: dict, answers: Alignment) -> list[str]:
    notes = scorer.warnings(metrics)
    if metrics.get("missing") == metrics.get("n_queries", 0) + metrics.get("skipped_negatives", 0):
        notes.append("no prediction names a benchmark qid: do GT and PRED belong together?")
    if answers.unknown_qids:
        shown = ", ".join(answers.unknown_qids[:3])
        notes.append(
            f"{len(answers.unknown_qids)} predictions for qids not in the benchmark "
            f"were not scored (e.g. {shown})"
        )
    if answers.duplicate_qids:
        shown = ", ".join(answers.duplicate_qids[:3])
        notes.append(
            f"{len(answers.duplicate_qids)} repeated answers for the same qid were "
            f"ignored; the first answer was scored (e.g. {shown})"
        )
    if answers.skipped_records:
        notes.append(
            f"{len(answers.skipped_records)} prediction records had no usable qid and "
            f"were skipped (first: {answers.skipped_records[0]})"
        )
    return notes
