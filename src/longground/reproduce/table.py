"""A reproduced paper table: this run's rows beside the paper's, in the paper's layout."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import atomic_open

DASH = "–"
#: A value that is undefined (a note under the table says why).
NA = "n/a"
#: Methods that ask a Video-LLM for every answer.
VIDEO_LLM_METHODS = frozenset({"monolithic", "hybrid"})


@dataclass(frozen=True)
class Part:
    """One table (a paper table may have two, e.g. EWB Table 5's Charades-STA and ours).

    Attributes:
        caption: what the part shows.
        header: the column names, in the paper's order and wording.
        rows: this run's rows (cells as printed), or empty when nothing was run for it.
        published: the paper's rows for the same header, or None when not shown.
    """

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...] = ()
    published: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        for row in (*self.rows, *(self.published or ())):
            if len(row) != len(self.header):
                raise ValueError(f"{self.caption}: row {row} does not fit {self.header}")


@dataclass(frozen=True)
class TableResult:
    """A reproduced table: its parts and the raw numbers behind this run's cells."""

    name: str
    title: str
    parts: tuple[Part, ...]
    values: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperTable:
    """A table that `longground reproduce NAME` can rebuild.

    Attributes:
        name: the command-line name ("ewb-table7").
        title: the paper and table.
        build: `(context) -> TableResult`, running what the table needs.
        methods: the methods its rows run.
        home: the benchmarks the paper's rows are on (`benchmarks.PaperBenchmark`).
    """

    name: str
    title: str
    build: Callable[[Any], TableResult]
    methods: tuple[str, ...] = ()
    home: tuple[Any, ...] = ()

    @property
    def needs_video_llm(self) -> bool:
        """Whether a row runs a method that cannot answer without a Video-LLM (the agent
        plays its roles offline when no model is named).

        >>> PaperTable("t", "T", lambda ctx: None, ("agent",)).needs_video_llm
        False
        """
        return bool(VIDEO_LLM_METHODS & set(self.methods))


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table.

    >>> print(markdown_table(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def to_markdown(result: TableResult, about: str) -> str:
    """The table as Markdown: for each part, this run's rows, then the paper's."""
    out = [f"# {result.title}", "", about]
    for part in result.parts:
        out += ["", f"## {part.caption}", ""]
        if part.rows:
            out += ["This run:", "", markdown_table(part.header, part.rows)]
        if part.published is not None:
            out += ["", "Published:", "", markdown_table(part.header, part.published)]
    if result.notes:
        out += ["", *(f"- {note}" for note in result.notes)]
    return "\n".join(out) + "\n"


def write_result(result: TableResult, out: Path, about: dict[str, Any]) -> tuple[Path, Path]:
    """Write `out/NAME.md` and `out/NAME.json`; returns both paths."""
    text = ", ".join(f"{k}: {v}" for k, v in about.items())
    md, js = Path(out) / f"{result.name}.md", Path(out) / f"{result.name}.json"
    with atomic_open(md) as handle:
        handle.write(to_markdown(result, text))
    record = {
        "table": result.name,
        "title": result.title,
        **about,
        "parts": [
            {
                "caption": p.caption,
                "header": list(p.header),
                "rows": [list(r) for r in p.rows],
                "published": None if p.published is None else [list(r) for r in p.published],
            }
            for p in result.parts
        ],
        "values": result.values,
        "notes": list(result.notes),
    }
    with atomic_open(js) as handle:
        json.dump(record, handle, indent=1)
    return md, js


def fraction(value: float | None, digits: int = 3) -> str:
    """A metric in [0, 1] as EWB prints it ("0.354"); None as a dash."""
    return DASH if value is None else f"{value:.{digits}f}"


def percent(value: float | None) -> str:
    """A metric in [0, 1] as CoMET prints it, in percent with one decimal ("16.2")."""
    return DASH if value is None else f"{100 * value:.1f}"
