"""A static HTML report (tables, figures as PNG and PDF) comparing methods on a benchmark.

>>> from longground.report import build_report  # doctest: +SKIP
>>> build_report("gt.jsonl", ["a.jsonl", "b.jsonl"], "report/")  # doctest: +SKIP
"""

from .build import build_report

__all__ = ["build_report"]
