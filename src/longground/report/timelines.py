"""Per-query timelines: GT against each method's predictions along the video, for the queries
where the methods do worst and best."""

from __future__ import annotations

import textwrap

import numpy as np

from ..eval import get_protocol
from ..eval.protocol import PARSE_FAILURE
from .figure import ReportFigure, new_figure
from .inputs import ReportInput

N_SHOWN = 10
GT_COLOUR = "#222222"
WIDTH_IN = 10.0
RIGHT = 0.98  # the panels' right edge, as a fraction of the width
# Text sizes for the fixed layout, on the safe side: a 10-point title line is about 0.19 in
# tall and its characters at most 0.085 in wide on average; a 9-point lane label's 0.075 in.
TITLE_LINE_IN = 0.19
TITLE_CHAR_IN = 0.085
LANE_CHARS = 22
LABEL_CHAR_IN = 0.075


def query_scores(report: ReportInput) -> np.ndarray:
    """`(M, Q)` per-query grounding score of each method: mIoU_q (`comet`) or IoU (`single`);
    NaN for negative queries."""
    key = get_protocol(report.protocol).query_key
    return np.stack([np.asarray(run.result.queries[key], dtype=float) for run in report.methods])


def pick_queries(scores: np.ndarray, n: int = N_SHOWN) -> tuple[np.ndarray, np.ndarray]:
    """The positive queries with the lowest and the highest mean score over methods: `n` of
    each, or half of the positives each when there are fewer than `2n`, so that no query is
    in both lists.

    Args:
        scores: `(M, Q)`, NaN for negatives.

    Returns:
        `(worst, best)` query indices, worst first / best first; ties keep benchmark order.

    >>> pick_queries(np.array([[0.5, np.nan, 0.1, 0.9]]), n=2)
    (array([2]), array([3]))
    """
    mean = scores.mean(axis=0)
    positive = np.flatnonzero(np.isfinite(mean))
    ascending = positive[np.argsort(mean[positive], kind="stable")]
    shown = min(n, len(positive) // 2)
    worst = ascending[:shown]
    rest = positive[~np.isin(positive, worst)]
    best = rest[np.argsort(-mean[rest], kind="stable")][:shown]
    return worst, best


def timeline_figure(report: ReportInput, picked: np.ndarray, which: str) -> ReportFigure:
    """One panel per picked query: GT lane on top, one lane per method below. Under the
    `single` protocol only a method's first interval is scored: it is drawn solid, the
    others faint."""
    scores = query_scores(report)
    mean = scores.mean(axis=0)
    protocol = get_protocol(report.protocol)
    first_only = protocol.first_interval_only
    lanes = ["GT", *(_wrapped(run.name, LANE_CHARS) for run in report.methods)]
    # fixed margins: a regular stack of panels needs no layout solver (the slow part); the
    # left one holds the longest lane label, the space above each panel its wrapped title
    label_in = LABEL_CHAR_IN * max(len(line) for lane in lanes for line in lane.split("\n"))
    label_in += 0.25
    title_chars = int((WIDTH_IN * RIGHT - label_in) / TITLE_CHAR_IN)
    titles = [_wrapped(f"{report.samples[q].qid}: {_short(report.samples[q].query)}  "
                       f"[{_scores_text(report, scores, mean, q)}]", title_chars)
              for q in picked]  # fmt: skip
    title_in = TITLE_LINE_IN * max((t.count("\n") + 1 for t in titles), default=1)
    panel_in = 0.36 * len(lanes) + 0.5 + title_in
    height_in = max(1, len(picked)) * panel_in + 0.5
    fig, axes = new_figure(WIDTH_IN, height_in, nrows=max(1, len(picked)), layout=None)
    fig.subplots_adjust(
        left=label_in / WIDTH_IN,
        right=RIGHT,
        top=1 - (title_in + 0.1) / height_in,
        bottom=0.45 / height_in,
        hspace=(title_in + 0.3) / (panel_in - title_in - 0.3),
    )
    for ax, q, title in zip(axes[:, 0], picked, titles, strict=False):
        sample = report.samples[q]
        _lane(ax, 0, sample.gt.spans, GT_COLOUR)
        for m, run in enumerate(report.methods, start=1):
            if run.status[q] == PARSE_FAILURE:
                ax.text(0.0, -m, " parse failure", va="center", fontsize=9, color="red")
            spans = np.asarray(run.spans[q], dtype=float).reshape(-1, 2)
            if first_only:
                _lane(ax, m, spans[1:], f"C{m - 1}", alpha=0.2)
                spans = spans[:1]
            _lane(ax, m, spans, f"C{m - 1}")
        ax.set_xlim(0, sample.duration_s)
        ax.set_ylim(-len(lanes) + 0.5, 0.5)  # every lane, even one with nothing drawn
        ax.set_yticks(-np.arange(len(lanes)), lanes, fontsize=9)
        ax.set_title(title, fontsize=10, loc="left")
        ax.tick_params(axis="x", labelsize=9)
    axes[-1, 0].set_xlabel("video time (s)", fontsize=10)
    qids = ", ".join(report.samples[q].qid for q in picked)
    metric = protocol.query_label
    scored = ("only each method's first interval is scored (single protocol): it is solid, "
              "the others are faint" if first_only else "every interval is scored")  # fmt: skip
    return ReportFigure(
        f"timelines_{which}",
        f"The {len(picked)} {which} queries",
        f"Timelines of {len(picked)} queries ({qids}): ground-truth intervals on the top lane "
        f"and each method's predicted intervals on its own lane, along the whole video; "
        f"{scored}.",
        f"The {which} positive queries, ranked by the mean {metric} over the methods (the first "
        f"number in brackets, in percent; then each method's). No query is in both lists. "
        f"Bars are drawn to scale on the video's time axis; {scored}.",
        fig,
    )


def _scores_text(report: ReportInput, scores: np.ndarray, mean: np.ndarray, q: int) -> str:
    """`mean 42.0%: a 50.0%, b 34.0%` (just `42.0%` for one method)."""
    if len(report.methods) == 1:
        return f"{100 * mean[q]:.1f}%"
    each = ", ".join(f"{run.name} {100 * scores[m, q]:.1f}%"
                     for m, run in enumerate(report.methods))  # fmt: skip
    return f"mean {100 * mean[q]:.1f}%: {each}"


def _lane(ax, lane: int, spans: np.ndarray, colour: str, alpha: float = 1.0) -> None:
    spans = np.asarray(spans, dtype=float).reshape(-1, 2)
    if len(spans):
        ax.broken_barh(
            list(zip(spans[:, 0], spans[:, 1] - spans[:, 0], strict=True)),
            (-lane - 0.35, 0.7),
            facecolors=colour,
            edgecolors=colour,
            linewidth=0.8,
            alpha=alpha,
        )


def _wrapped(text: str, width: int) -> str:
    """`text` wrapped to lines of at most `width` characters (a word longer than that is
    split), so a title or label is never cut at the figure's edge.

    >>> _wrapped("q1: a dog  [mean 42.0%: retrieval 50.0%, agent 34.0%]", 30)
    'q1: a dog  [mean 42.0%:\\nretrieval 50.0%, agent 34.0%]'
    """
    return textwrap.fill(text, width, break_long_words=True, replace_whitespace=False)


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
