"""`longground reproduce TABLE`: one command per table of the two papers.

Each table runs the methods it needs over a benchmark (resumably, answers cached), scores them
and writes `DIR/TABLE.md` and `DIR/TABLE.json` in the paper's layout, beside the paper's own
numbers when the benchmark is the paper's (see docs/reproduce.md).
"""

from __future__ import annotations

from . import comet, ewb
from .benchmarks import (
    ACTIVITYNET_VAL1,
    ACTIVITYNET_VAL2,
    CHARADES_TEST,
    COMET_BENCH,
    EWB,
    identify,
    published_note,
)
from .runs import Context
from .table import PaperTable, Part, TableResult, to_markdown, write_result

_EWB_T15 = (EWB, CHARADES_TEST)
_COMET_T5 = (CHARADES_TEST, ACTIVITYNET_VAL1, ACTIVITYNET_VAL2)
_MONO_RETR = ("monolithic", "retrieval")
TABLES: dict[str, PaperTable] = {
    t.name: t
    for t in (
        PaperTable("ewb-table1", "ExtremeWhenBench Table 1 (hour-scale collapse)", ewb.table1,
                   _MONO_RETR, _EWB_T15),
        PaperTable("ewb-table5", "ExtremeWhenBench Table 5 (frame-count sweep)", ewb.table5,
                   ("monolithic",), _EWB_T15),
        PaperTable("ewb-table6", "ExtremeWhenBench Table 6 (hybrid, per K)", ewb.table6,
                   ("hybrid",), (EWB,)),
        PaperTable("ewb-table7", "ExtremeWhenBench Table 7 (window clipping)", ewb.table7,
                   _MONO_RETR, (EWB,)),
        PaperTable("comet-table2", "CoMET Table 2 (main results)", comet.table2,
                   ("monolithic", "agent"), (COMET_BENCH,)),
        PaperTable("comet-table5", "CoMET Table 5 (Charades-STA, ActivityNet)", comet.table5,
                   ("agent",), _COMET_T5),
        PaperTable("comet-table6", "CoMET Table 6 (ablations)", comet.table6,
                   ("monolithic", "agent"), (COMET_BENCH,)),
        PaperTable("comet-table7", "CoMET Table 7 (inference cost)", comet.table7,
                   ("agent",), (COMET_BENCH,)),
    )
}  # fmt: skip

__all__ = [
    "TABLES",
    "identify",
    "published_note",
    "Context",
    "PaperTable",
    "Part",
    "TableResult",
    "to_markdown",
    "write_result",
]
