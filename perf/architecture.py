"""Architecture figures of docs/design.md: modules, import edges and module cycles of
`longground` (grimp, as import-linter counts them), plus the string branches and repeated
defaults that issue 19 removed.

    PYTHONPATH=src .venv/bin/python perf/architecture.py

The "before" column of docs/design.md was counted on the commit before issue 19's work:

    git archive 5b1d4dd src | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before/src .venv/bin/python perf/architecture.py /tmp/before/src
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SRC = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src")
SRC = SRC / "longground"

# What each figure counts, as a regular expression over the source lines.
PATTERNS = {
    "protocol == / != branches": r"protocol\s*[!=]=\s*['\"]|['\"]\s*[!=]=\s*\w*\.?protocol\b",
    "cache kind == / != branches (cache/, cli/cache_cmd.py)": r"\bkind\s*[!=]=\s*['\"]",
    "literal ExtremeWhenBench window numbers (60 s, k=10)": (
        r"(half_width_s|nms_s)\s*(:\s*float)?\s*=\s*60|(half_width_s|nms_s)=60|"
        r"\bk=10\b|top_k: int = 10|typer\.Option\(\s*(10|60\.0),"
    ),
    "literal defaults in the build command's options": r"typer\.Option\(\s*-?[0-9][0-9.]*\s*,",
    "-p value converters": r"^def (_coerce|_convert)\b",
    "function-level imports of video/ and methods/ in curate/": r"^\s+from \.\.(video|methods)\b",
}
SCOPES = {"cache kind == / != branches (cache/, cli/cache_cmd.py)": ("cache/", "cli/cache_cmd.py"),
          "literal defaults in the build command's options": ("cli/build_cmd.py",),
          "function-level imports of video/ and methods/ in curate/": ("curate/",)}  # fmt: skip


def graph_figures() -> dict[str, int]:
    import grimp
    import networkx as nx

    graph = grimp.build_graph("longground")
    edges = [(m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m)]
    digraph = nx.DiGraph(edges)
    cycles = [c for c in nx.strongly_connected_components(digraph) if len(c) > 1]
    return {"modules": len(graph.modules), "import edges": len(edges), "module cycles": len(cycles)}


def pattern_figures() -> dict[str, int]:
    files = sorted(SRC.rglob("*.py"))
    out = {}
    for name, pattern in PATTERNS.items():
        scope = SCOPES.get(name)
        count = 0
        for path in files:
            rel = path.relative_to(SRC).as_posix()
            if scope and not rel.startswith(scope):
                continue
            flags = re.MULTILINE
            count += len(re.findall(pattern, path.read_text(encoding="utf-8"), flags))
        out[name] = count
    return out


def main() -> None:
    figures = {**graph_figures(), **pattern_figures()}
    width = max(map(len, figures))
    for name, value in figures.items():
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    sys.exit(main())
