"""What a scoring protocol is, and the table protocols register in (see `registry`).

A protocol turns per-query GT and predicted spans into tables (`score`), then reduces any
selection of queries to metrics (`summarize`). The same `summarize` serves the headline
numbers, every breakdown group, and every bootstrap resample, because it reduces over the last
axis of an index array: `(1, Q)` for the whole benchmark, `(B, Q)` for B resamples.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import UserError
from .padded import SpanTable

# Per-query answer status, stored in the "status" column.
ANSWERED, MISSING, PARSE_FAILURE = 0, 1, 2
STATUS_NAMES = ("answered", "missing", "parse_failure")


@dataclass(frozen=True)
class Column:
    """One metric as shown in a table.

    Args:
        key: metric name in `EvalResult.metrics` and in JSON.
        label: short header, as in the papers' tables.
        group: header spanning related columns ("Counting", ...).
        percent: print as a percentage (fractions) rather than as a plain number.
        unit: what a plain number is measured in, for the table's legend.
    """

    key: str
    label: str
    group: str
    percent: bool = True
    unit: str = ""


@dataclass(frozen=True)
class ScoreTables:
    """Everything a protocol computed, before any averaging.

    Attributes:
        queries: per-query columns, each `(Q,)`: always "n_gt" and "n_pred", plus the
            protocol's own (NaN where a query is not scored).
        intervals: one row per scored GT interval, each `(I,)`: "query", "gt_index",
            "start_s", "end_s", "iou" (its best tIoU), "pred_index" (-1 if none).
        matches: one row per matched (prediction, GT) pair, each `(M,)`: "query",
            "pred_index", "gt_index", "tiou".
    """

    queries: dict[str, np.ndarray]
    intervals: dict[str, np.ndarray]
    matches: dict[str, np.ndarray]


def threshold_key(prefix: str, theta: float) -> str:
    """Metric name for a threshold, e.g. "recall@0.5".

    >>> threshold_key("recall", 0.5), threshold_key("f1", 0.75)
    ('recall@0.5', 'f1@0.75')
    """
    return f"{prefix}@{theta:g}"


def accounting(queries: dict[str, np.ndarray], idx: np.ndarray, scored: np.ndarray) -> dict:
    """Counts of missing answers, parse failures and dropped invalid intervals.

    Args:
        queries: per-query columns with "status" and "invalid_intervals".
        idx: `(B, n)` query indices.
        scored: `(B, n)` bool, which of those queries the protocol scores.

    Returns:
        dict of `(B,)` int arrays: "missing", "parse_failures", "invalid_intervals".
    """
    status = queries["status"][idx]
    return {
        "missing": ((status == MISSING) & scored).sum(axis=-1),
        "parse_failures": ((status == PARSE_FAILURE) & scored).sum(axis=-1),
        "invalid_intervals": np.where(scored, queries["invalid_intervals"][idx], 0).sum(axis=-1),
    }


class Protocol(ABC):
    """A scoring protocol; subclasses register with `@register_protocol`.

    Besides scoring, a protocol answers what the tables, warnings and report ask of it, so
    no caller compares protocol names:

    Attributes:
        name: the registered name.
        query_key: the per-query grounding score column ("miou", "iou").
        query_label: its label in figures ("mIoU", "IoU").
        report_figures: names of the extra report figures its metrics allow (the report's
            figure registry draws them).
        failure_taxonomy: its results carry what the failure taxonomy reads (the first
            interval's IoU per query).
        first_interval_only: only a prediction's first interval is scored (report timelines
            draw the others faint).
    """

    name: ClassVar[str]
    query_key: ClassVar[str]
    query_label: ClassVar[str]
    report_figures: ClassVar[tuple[str, ...]] = ()
    failure_taxonomy: ClassVar[bool] = False
    first_interval_only: ClassVar[bool] = False

    def configured(self, top_k=None, iou=None) -> Protocol:
        """This protocol with R{K}@τ for the given K and tIoU thresholds; only protocols that
        take them override this."""
        if top_k is not None or iou is not None:
            raise UserError(f"--top-k and --iou apply to the single protocol, not {self.name}")
        return self

    def settings(self) -> dict:
        """Options that differ from the protocol's defaults (empty for most protocols)."""
        return {}

    @abstractmethod
    def thresholds(self, theta: float) -> tuple[float, ...]:
        """tIoU thresholds this protocol reports at for the user's θ."""

    @abstractmethod
    def score(self, gt: SpanTable, pred: SpanTable, theta: float) -> ScoreTables:
        """Score Q queries given their GT and predicted spans in seconds."""

    @abstractmethod
    def summarize(self, queries: dict[str, np.ndarray], idx: np.ndarray, theta: float) -> dict:
        """Metrics over the queries `idx` (`(B, n)` ints): dict of `(B,)` arrays."""

    @abstractmethod
    def columns(self, theta: float) -> list[Column]:
        """The metrics a table shows, in order; also the ones given confidence intervals."""

    @abstractmethod
    def breakdown_keys(self, theta: float) -> tuple[str, str]:
        """The two metrics a breakdown chart shows."""

    def scope(self, metrics: dict) -> str:
        """The query counts of a summary line."""
        return f"queries scored: {metrics['n_queries']}"

    def warnings(self, metrics: dict) -> list[str]:
        """Notes on metrics this protocol could not define (empty for none)."""
        return []


PROTOCOLS: dict[str, Protocol] = {}


def register_protocol(cls: type[Protocol]) -> type[Protocol]:
    """Class decorator: make a protocol available by its `name`."""
    PROTOCOLS[cls.name] = cls()
    return cls
