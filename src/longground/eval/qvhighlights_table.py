"""Text output of `longground eval --protocol qvhighlights`: the moment-retrieval table by
GT length bucket, the highlight table by saliency level, and the counts."""

from __future__ import annotations

import numpy as np

from .qvhighlights import BUCKETS, LEVELS, QVHighlightsScores
from .table import format_value, render

MR_COLUMNS = (
    ("mAP", "MR-mAP", "average"),
    ("mAP@0.5", "MR-mAP", "0.5"),
    ("mAP@0.75", "MR-mAP", "0.75"),
    ("R1@0.5", "MR-R1", "0.5"),
    ("R1@0.7", "MR-R1", "0.7"),
)


def format_qvhighlights(scores: QVHighlightsScores) -> str:
    """Tables of percentages with two decimals, as the papers print them."""
    metrics = scores.metrics()
    mr_rows = []
    for name in ("full", *(b[0] for b in BUCKETS if b[0] != "full")):
        n = int((~np.isnan(scores.mr_iou[name])).sum())
        cells = [format_value(metrics[name][group][key], True) for _, group, key in MR_COLUMNS]
        mr_rows.append([name, str(n), *cells])
    hl_rows = [
        [f"{label} (>={level})", *(
            format_value(metrics[f"HL-min-{label}"][key], True) for key in ("HL-mAP", "HL-Hit1")
        )]
        for label, level in LEVELS
    ]  # fmt: skip
    missing = int((~scores.answered).sum())
    lines = [f"protocol qvhighlights, queries: {len(scores.qids)}", ""]
    lines += render(["moment retrieval", "n", *(c[0] for c in MR_COLUMNS)], mr_rows)
    lines += ["", *render(["highlight detection", "HL-mAP", "HL-Hit1"], hl_rows), ""]
    counts = (
        f"missing {missing}, invalid windows {scores.invalid_windows}, "
        f"unknown qids {len(scores.unknown_qids)}"
    )
    if scores.duplicate_qids:
        counts += f", duplicate predictions {len(scores.duplicate_qids)}"
    return "\n".join([*lines, counts])
