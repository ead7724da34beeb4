"""`eval --taxonomy --classifier llm` on files: pick the failures as the rules do, ask the
classifier about each, and print the two taxonomies side by side."""

from __future__ import annotations

import numpy as np

from ..eval.analysis import first_midpoints_s
from ..eval.result import EvalResult
from ..eval.taxonomy import CLASSES, NOT_FAILED, classify, nearest_midpoint_distance_s
from ..eval.taxonomy import sample_failures as draw
from ..llm.base import ChatClient
from .taxonomy import CATEGORIES, UNREADABLE, llm_taxonomy


def llm_taxonomy_of_files(
    gt_path, pred_path, result: EvalResult, client: ChatClient, *, fail_iou: float,
    offset_min: float, sample: int, seed: int, gt_format=None, pred_format=None, durations=None,
) -> dict:  # fmt: skip
    """The "llm" part of `eval --taxonomy`: the failures the rules find (or the `--sample`
    drawn from them with `seed`, as the paper classified 100 drawn with seed 42), each
    classified by `client`."""
    from ..eval.evaluate import align
    from ..formats import load_predictions, load_samples

    samples = load_samples(gt_path, fmt=gt_format, durations=durations)
    by_qid = {s.qid: s for s in samples}
    predictions = load_predictions(pred_path, fmt=pred_format, samples=by_qid)
    answers = align(samples, predictions)
    distance_s = nearest_midpoint_distance_s(
        first_midpoints_s(answers.pred_spans), [s.gt.spans for s in samples]
    )
    q = result.queries
    labels = classify(q["iou"], q["status"], q["n_pred"], distance_s, fail_iou, 60 * offset_min)
    picked = draw(labels, sample, seed) if sample > 0 else np.flatnonzero(labels != NOT_FAILED)
    failures = [
        (result.qids[i], CLASSES[labels[i]], float(q["iou"][i]), float(distance_s[i]))
        for i in picked
    ]
    by_pred = {p.qid: p for p in predictions}
    return llm_taxonomy(client, by_qid, by_pred, failures, offset_min)


def format_llm_section(llm: dict) -> str:
    """The classifier's counts beside the rules' (text, percentages)."""
    agreement = "-" if llm["agreement"] is None else f"{100 * llm['agreement']:.1f}%"
    lines = ["", f"LLM taxonomy ({llm['model']}): {llm['n']} failures, agreement with the "
             f"rules {agreement}"]  # fmt: skip
    names = (*CATEGORIES, UNREADABLE)
    corner = "rules / llm"
    lines.append(f"{corner:<20}" + "".join(f"{n:>19}" for n in names))
    for rule in CLASSES:
        row = llm["confusion"][rule]
        lines.append(f"{rule:<20}" + "".join(f"{row[n]:>19}" for n in names))
    cells = [f"{llm['counts'][n]} ({100 * llm['fractions'][n]:.1f}%)" for n in names]
    lines.append(f"{'all':<20}" + "".join(f"{c:>19}" for c in cells))
    return "\n".join(lines)
