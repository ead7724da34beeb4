"""A static HTML report (tables, figures as PNG and PDF) comparing methods on a benchmark.

Usage, with a benchmark and two methods' predictions (`longground report` on the command line)::

    from longground.report import build_report
    build_report("gt.jsonl", ["a.jsonl", "b.jsonl"], "report/")  # -> report/index.html
"""

from .build import build_report

__all__ = ["build_report"]
