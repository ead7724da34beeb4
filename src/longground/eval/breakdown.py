"""Breakdowns (`--by`): the protocol's metrics per attribute, domain, video duration and GT
event count, and interval-level metrics per GT position in the video.

Query-level breakdowns re-run the protocol's `summarize` on each group of queries, so a group's
numbers mean exactly what the headline numbers mean. Position breakdowns are interval-level,
because one query's GT intervals can sit in different parts of the video: each scored GT
interval counts once, with its best tIoU (`comet`) or the first prediction's IoU (`single`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import UserError
from ..samples import Sample
from .buckets import (
    COUNT_LABELS,
    DURATION_LABELS,
    POSITION_LABELS,
    count_bucket,
    duration_bucket,
    label_groups,
    position_bucket,
)
from .plain import plain_row
from .protocol import Protocol, threshold_key

NO_LABEL = "(none)"


@dataclass(frozen=True)
class BreakdownInput:
    """What a breakdown reads: the samples in scoring order and the protocol's tables."""

    samples: Sequence[Sample]
    protocol: Protocol
    theta: float
    queries: dict[str, np.ndarray]
    intervals: dict[str, np.ndarray]

    def summarize_groups(self, groups: dict[str, np.ndarray]) -> dict[str, dict]:
        """Protocol metrics for each group of query indices."""
        return {
            label: plain_row(self.protocol.summarize(self.queries, idx[None, :], self.theta))
            for label, idx in groups.items()
        }

    def summarize_intervals(self, groups: dict[str, np.ndarray]) -> dict[str, dict]:
        """Interval-level n, mIoU and recall at the protocol's thresholds per group of rows."""
        iou = self.intervals["iou"]
        out = {}
        for label, rows in groups.items():
            metrics = {"n_intervals": len(rows), "miou": float(iou[rows].mean())}
            for tau in self.protocol.thresholds(self.theta):
                metrics[threshold_key("recall", tau)] = float((iou[rows] >= tau).mean())
            out[label] = metrics
        return out

    def interval_durations_s(self) -> np.ndarray:
        """`(I,)` duration of the video of each interval row, in seconds."""
        durations = np.array([s.duration_s for s in self.samples], dtype=np.float64)
        return durations[self.intervals["query"]]


Breakdown = Callable[[BreakdownInput], dict]
BREAKDOWNS: dict[str, Breakdown] = {}


def register_breakdown(name: str) -> Callable[[Breakdown], Breakdown]:
    """Decorator: make a breakdown available to `--by NAME`."""

    def add(func: Breakdown) -> Breakdown:
        BREAKDOWNS[name] = func
        return func

    return add


@register_breakdown("attribute")
def by_attribute(inp: BreakdownInput) -> dict:
    """One group per attribute (a query can be in several); queries without any: "(none)"."""
    members: dict[str, list[int]] = {}
    for i, sample in enumerate(inp.samples):
        for attribute in sorted(sample.attributes) or [NO_LABEL]:
            members.setdefault(attribute, []).append(i)
    order = sorted(members, key=lambda a: (a == NO_LABEL, a))
    return inp.summarize_groups({a: np.array(members[a]) for a in order})


@register_breakdown("domain")
def by_domain(inp: BreakdownInput) -> dict:
    """One group per domain label; queries without one: "(none)"."""
    labels = np.array([s.domain or NO_LABEL for s in inp.samples], dtype=object)
    order = sorted(set(labels), key=lambda d: (d == NO_LABEL, d))
    return inp.summarize_groups({d: np.flatnonzero(labels == d) for d in order})


@register_breakdown("duration")
def by_duration(inp: BreakdownInput) -> dict:
    """Video duration buckets: <10, 10-30, 30-60, 60-90, >=90 minutes."""
    durations = np.array([s.duration_s for s in inp.samples], dtype=np.float64)
    return inp.summarize_groups(label_groups(duration_bucket(durations), DURATION_LABELS))


@register_breakdown("count")
def by_count(inp: BreakdownInput) -> dict:
    """GT event-count buckets: 0, 1, 2-3, 4-7, >=8."""
    return inp.summarize_groups(label_groups(count_bucket(inp.queries["n_gt"]), COUNT_LABELS))


def _positions(inp: BreakdownInput) -> np.ndarray:
    rows = inp.intervals
    return position_bucket(rows["start_s"], rows["end_s"], inp.interval_durations_s())


@register_breakdown("position")
def by_position(inp: BreakdownInput) -> dict:
    """Interval-level metrics per fifth of the video holding the GT interval's centre."""
    return inp.summarize_intervals(label_groups(_positions(inp), POSITION_LABELS))


@register_breakdown("duration_x_position")
def by_duration_and_position(inp: BreakdownInput) -> dict:
    """Interval-level metrics per video-duration bucket (outer) and GT position (inner)."""
    positions = _positions(inp)
    durations = duration_bucket(inp.interval_durations_s())
    table = {}
    for label, rows in label_groups(durations, DURATION_LABELS).items():
        inner = label_groups(positions[rows], POSITION_LABELS)
        table[label] = inp.summarize_intervals({k: rows[v] for k, v in inner.items()})
    return table


def check_breakdowns(names: Sequence[str]) -> None:
    """Raise `UserError` for any name that is not a registered breakdown.

    >>> check_breakdowns(["domain", "position"])
    """
    unknown = [name for name in names if name not in BREAKDOWNS]
    if unknown:
        known = ", ".join(BREAKDOWNS)
        raise UserError(f"unknown breakdown {', '.join(unknown)}; choose from {known}")


def breakdowns(inp: BreakdownInput, names: Sequence[str]) -> dict[str, dict]:
    """Every requested breakdown, by name, in the order asked."""
    check_breakdowns(names)
    return {name: BREAKDOWNS[name](inp) for name in dict.fromkeys(names)}
