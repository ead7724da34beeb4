"""`longground stats BENCH`: query diversity, query lengths and attribute counts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from . import file_options as fo
from .main import app


def benchmark_stats(samples: list) -> dict:
    """The `stats --json` object: the diversity figures (keys of
    `longground.eval.diversity.Diversity`), then "length_distribution" (tokens per query),
    "attribute_counts" and "domain_counts" (queries per attribute / domain, when present).

    >>> from longground import Moments, Sample
    >>> s = Sample("q", "v", 9.0, "A dog", Moments.empty(), frozenset({"negative"}))
    >>> out = benchmark_stats([s])
    >>> out["n_tokens"], out["attribute_counts"]
    (2, {'negative': 1})
    """
    from ..eval.diversity import diversity, length_distribution

    queries = [s.query for s in samples]
    out = diversity(queries).to_dict()
    out["length_distribution"] = length_distribution(queries)
    attributes = Counter(a for s in samples for a in s.attributes)
    out["attribute_counts"] = dict(sorted(attributes.items()))
    domains = Counter(s.domain for s in samples if s.domain)
    out["domain_counts"] = dict(sorted(domains.items()))
    return out


def format_stats(stats: dict) -> str:
    """A plain-text table of `benchmark_stats` (ratios as percentages)."""
    counts = ("n_queries", "n_tokens", "unique_bigrams", "unique_stems")
    ratios = ("ttr", "mattr", "distinct_1", "distinct_2", "distinct_3", "distinct_4",
              "top5_stem_coverage")  # fmt: skip
    lines = [f"{key:<20}{stats[key]:>10d}" for key in counts]
    lines += [f"{key:<20}{100 * stats[key]:>9.2f}%" for key in ratios]
    length = stats["length_distribution"]
    lines.append(
        f"{'tokens per query':<20}min {length['min']}  mean {length['mean']:.2f}  "
        f"median {length['median']:g}  p90 {length['p90']:g}  max {length['max']}"
    )
    for title, key in (("attribute", "attribute_counts"), ("domain", "domain_counts")):
        lines += [f"{title} {name:<10}{n:>10d}" for name, n in stats[key].items()]
    return "\n".join(lines)


@app.command("stats")
def stats_command(
    bench: Annotated[
        Path, typer.Argument(metavar="BENCH", help="Benchmark file (canonical or a known format).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    fmt: Annotated[
        str | None, typer.Option("--format", help="Benchmark format (default: guessed).")
    ] = None,
    durations: fo.Durations = None,
) -> None:
    """Query diversity of BENCH (TTR, MATTR, Distinct-n, 4-gram stems; EWB Table 8), the
    number of tokens per query and the attribute counts. Conventions: docs/analysis.md.

    Exit code 0, or 2 when BENCH is unusable.
    """
    from ..formats import load_samples

    samples = load_samples(bench, fmt=fmt, durations=durations)
    stats = benchmark_stats(samples)
    typer.echo(json.dumps(stats) if as_json else format_stats(stats))
