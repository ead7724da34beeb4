"""Text statistics of a benchmark, laid out like CoMET-Bench's Figure 3: query types, video
durations and events per query."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..samples import Sample

TYPE_ORDER = ("causal", "sequential", "synchronous", "bounded", "static", "dynamic", "identity")
DURATION_BINS_MIN = (
    (0, 10, "<10 min"),
    (10, 30, "10-30 min"),
    (30, 60, "30-60 min"),
    (60, 90, "60-90 min"),
    (90, float("inf"), ">=90 min"),
)
EVENT_BINS = (
    (0, 0, "0"),
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 5, "3-5"),
    (6, 10, "6-10"),
    (11, 20, "11-20"),
    (21, float("inf"), "21+"),
)
BAR_WIDTH = 30


def _bar(count: int, top: int) -> str:
    return "#" * (round(BAR_WIDTH * count / top) if top else 0)


def _table(title: str, rows: list[tuple[str, int]], total: int) -> list[str]:
    top = max((n for _, n in rows), default=0)
    lines = [title]
    for label, n in rows:
        share = 100 * n / total if total else 0.0
        lines.append(f"  {label:<12} {n:>6}  {share:5.1f}%  {_bar(n, top)}")
    return lines


def query_types(
    samples: Sequence[Sample], types: Sequence[str] = TYPE_ORDER
) -> list[tuple[str, int]]:
    """How many positive queries carry each of `types`, then how many are negative."""
    positive = Counter(a for s in samples if not s.is_negative for a in s.attributes)
    rows = [(a, positive[a]) for a in types]
    return rows + [("negative", sum(s.is_negative for s in samples))]


def duration_histogram(samples: Sequence[Sample]) -> list[tuple[str, int]]:
    """Videos per duration bin (each video counted once)."""
    minutes = [d / 60 for d in {s.video: s.duration_s for s in samples}.values()]
    return [(label, sum(lo <= m < hi for m in minutes)) for lo, hi, label in DURATION_BINS_MIN]


def event_histogram(samples: Sequence[Sample]) -> list[tuple[str, int]]:
    """Queries per number of ground-truth events."""
    counts = [len(s.gt) for s in samples]
    return [(label, sum(lo <= n <= hi for n in counts)) for lo, hi, label in EVENT_BINS]


def summarize(samples: Sequence[Sample], types: Sequence[str] = TYPE_ORDER) -> str:
    """The three distributions as a text report; `types`: the attributes counted as query
    types (default CoMET's seven).

    >>> from longground.moments import Moments
    >>> s = [Sample("a", "v", 600.0, "q", Moments.from_list([[1, 2]]), frozenset({"static"})),
    ...      Sample("b", "v", 600.0, "q", Moments.empty(), frozenset({"negative"}))]
    >>> print(summarize(s).splitlines()[0])
    1 videos, 2 queries: 1 positive, 1 negative (50.0%)
    """
    n_videos = len({s.video for s in samples})
    n_neg = sum(s.is_negative for s in samples)
    share = 100 * n_neg / len(samples) if samples else 0.0
    types = query_types(samples, types)
    n_tags = sum(n for _, n in types)
    lines = [
        f"{n_videos} videos, {len(samples)} queries: {len(samples) - n_neg} positive, "
        f"{n_neg} negative ({share:.1f}%)",
        "",
        *_table(
            "Query types (share of all attribute tags; a query may carry several)", types, n_tags
        ),
        "",
        *_table("Video durations", duration_histogram(samples), n_videos),
        "",
        *_table("Events per query", event_histogram(samples), len(samples)),
    ]
    return "\n".join(lines)
