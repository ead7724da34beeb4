"""`longground reproduce TABLE`: one command per table of the two papers.

Each table runs the methods it needs over a benchmark (resumably, answers cached), scores them
and writes `DIR/TABLE.md` and `DIR/TABLE.json` in the paper's layout, beside the paper's own
numbers when the benchmark is the paper's (see docs/reproduce.md).
"""

from __future__ import annotations

from . import comet, ewb
from .runs import Context
from .table import PaperTable, Part, TableResult, to_markdown, write_result

TABLES: dict[str, PaperTable] = {
    t.name: t
    for t in (
        PaperTable("ewb-table1", "ExtremeWhenBench Table 1 (hour-scale collapse)", ewb.table1),
        PaperTable("ewb-table5", "ExtremeWhenBench Table 5 (frame-count sweep)", ewb.table5),
        PaperTable("ewb-table6", "ExtremeWhenBench Table 6 (hybrid, per K)", ewb.table6),
        PaperTable("ewb-table7", "ExtremeWhenBench Table 7 (window clipping)", ewb.table7),
        PaperTable("comet-table2", "CoMET Table 2 (main results)", comet.table2),
        PaperTable("comet-table5", "CoMET Table 5 (Charades-STA, ActivityNet)", comet.table5),
        PaperTable("comet-table6", "CoMET Table 6 (ablations)", comet.table6),
        PaperTable("comet-table7", "CoMET Table 7 (inference cost)", comet.table7),
    )
}

# Which benchmark formats are the paper's own for each table (its numbers are shown then);
# "comet" is a benchmark whose queries carry CoMET attributes.
HOME_FORMATS: dict[str, tuple[str, ...]] = {
    "ewb-table1": ("ewb", "charades"),
    "ewb-table5": ("ewb", "charades"),
    "ewb-table6": ("ewb",),
    "ewb-table7": ("ewb",),
    "comet-table2": ("comet",),
    "comet-table5": ("charades", "activitynet"),
    "comet-table6": ("comet",),
    "comet-table7": ("comet",),
}

__all__ = [
    "HOME_FORMATS",
    "TABLES",
    "Context",
    "PaperTable",
    "Part",
    "TableResult",
    "to_markdown",
    "write_result",
]
