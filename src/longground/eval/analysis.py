"""The analysis sections of `eval` (failure taxonomy, top-K window recall) computed from a
benchmark, a system's predictions and their `EvalResult`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import UserError
from ..samples import Prediction, Sample
from .evaluate import align
from .registry import get_protocol
from .result import EvalResult
from .taxonomy import failure_taxonomy, nearest_midpoint_distance_s
from .window_recall import window_recall


def first_midpoints_s(pred_spans: Sequence[np.ndarray]) -> np.ndarray:
    """`(Q,)` midpoint of each query's first predicted span, NaN where there is none.

    >>> first_midpoints_s([np.array([[10.0, 20.0], [0, 1]]), np.zeros((0, 2))]).tolist()
    [15.0, nan]
    """
    return np.array([float(s[0].mean()) if len(s) else np.nan for s in pred_spans])


def taxonomy_of(
    samples: Sequence[Sample], predictions: Iterable[Prediction], result: EvalResult, **options
) -> dict:
    """`failure_taxonomy` of a single-protocol `result`; `options` are its keyword arguments
    (fail_iou, offset_min, sample, seed).

    Raises:
        UserError: `result` was not scored with the single protocol.
    """
    if not get_protocol(result.protocol).failure_taxonomy:
        raise UserError("--taxonomy needs --protocol single")
    answers = align(samples, predictions)
    distance_s = nearest_midpoint_distance_s(
        first_midpoints_s(answers.pred_spans), [s.gt.spans for s in samples]
    )
    q = result.queries
    return failure_taxonomy(q["iou"], q["status"], q["n_pred"], distance_s, result.qids, **options)


def window_recall_of(samples: Sequence[Sample], windows: Iterable[Prediction]) -> dict:
    """`window_recall` of a windows file (predictions whose intervals are windows, best first)."""
    answers = align(samples, windows)
    return window_recall([s.gt.spans for s in samples], answers.pred_spans)


def analysis_files(
    gt_path, pred_path, result: EvalResult, *, taxonomy: dict | None = None, windows=None,
    gt_format: str | None = None, pred_format: str | None = None, durations=None,
) -> dict:  # fmt: skip
    """The sections `eval --taxonomy` / `--windows FILE` add: "taxonomy" and "window_recall".

    Args:
        taxonomy: `failure_taxonomy` options (fail_iou, offset_min, sample, seed), or None.
        windows: the windows file (a prediction file of top-K windows, best first), or None.
        gt_format, pred_format, durations: as for `evaluate_files`.
    """
    from ..formats import load_predictions, load_samples

    if taxonomy is None and windows is None:
        return {}
    samples = load_samples(gt_path, fmt=gt_format, durations=durations)
    by_qid = {s.qid: s for s in samples}
    out = {}
    if taxonomy is not None:
        parse = result.metrics.get("parse")  # the mode `evaluate_files` scored
        predictions = load_predictions(pred_path, fmt=pred_format, samples=by_qid, parse=parse)
        out["taxonomy"] = taxonomy_of(samples, predictions, result, **taxonomy)
    if windows is not None:
        out["window_recall"] = window_recall_of(samples, load_predictions(windows, samples=by_qid))
    return out


def format_sections(sections: dict) -> str:
    """The sections as text tables (percentages), "" when there are none."""
    lines = []
    if "taxonomy" in sections:
        t = sections["taxonomy"]
        lines += [
            "",
            f"Failures (IoU < {t['fail_iou']:g}): {t['n_failures']} of {t['n_scored']} queries",
        ]
        rows = [(f"used ±{t['offset_min']:g} min", t)] + [
            (f"±{row['offset_min']:g} min", row) for row in t["sensitivity"]
        ]
        if "sample" in t:
            rows.append((f"sample of {t['sample']['n']}", t["sample"]))
        lines.append(f"{'':<16}" + "".join(f"{name:>20}" for name in t["counts"]))
        for label, row in rows:
            cells = [f"{n} ({100 * row['fractions'][k]:.1f}%)" for k, n in row["counts"].items()]
            lines.append(f"{label:<16}" + "".join(f"{c:>20}" for c in cells))
    if "window_recall" in sections:
        w = sections["window_recall"]
        lines += ["", f"Top-K window recall over {w['n_queries']} queries"]
        for name in ("inside", "overlap"):
            cells = [f"{k}={_percent(v)}" for k, v in w.items() if k.startswith(name + "@")]
            lines.append(f"{name:<10}" + "  ".join(cells))
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"
