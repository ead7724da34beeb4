"""Which benchmark a file is: the papers' numbers are comparable only on the papers' own.

A benchmark is recognised by the checksum of a released file we hold (Charades-STA's test
split and ActivityNet Captions' val_1, as 2D-TAN keeps them), or else by its published size,
queries and videos together (CoMET-Bench's 2,789 over 600; ExtremeWhenBench's 2,273 over
194): a subset, a converted sample or a generated file is none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cache.fingerprint import file_sha256
from ..samples import Sample


@dataclass(frozen=True)
class PaperBenchmark:
    """A benchmark the papers report on.

    Attributes:
        name: as the tables name it.
        n_queries, n_videos: its published size.
        sha256: checksums of released files known to be it.
        source: where the size is stated.
    """

    name: str
    n_queries: int
    n_videos: int
    sha256: tuple[str, ...] = ()
    source: str = ""

    def describe(self) -> str:
        """`CoMET-Bench (2,789 queries over 600 videos)`."""
        return f"{self.name} ({self.n_queries:,} queries over {self.n_videos:,} videos)"


COMET_BENCH = PaperBenchmark("CoMET-Bench", 2789, 600, source="CoMET §3.3")
EWB = PaperBenchmark("ExtremeWhenBench", 2273, 194, source="ExtremeWhenBench §1")
CHARADES_TEST = PaperBenchmark(
    "Charades-STA test", 3720, 1334,
    ("fab341679c20b0917173dcffffde367a71113fe63f3a645558cef2ebfbfefb55",),
    "charades_sta_test.txt (2D-TAN's copy)",
)  # fmt: skip
ACTIVITYNET_VAL1 = PaperBenchmark(
    "ActivityNet Captions val_1", 17505, 4917,
    ("466aaccb9ebe45c6db4c98488a4ddbeb5b22faffe62e1bbce81222c14fc29e1c",),
    "val.json (2D-TAN's copy)",
)  # fmt: skip
ACTIVITYNET_VAL2 = PaperBenchmark(
    "ActivityNet Captions val_2", 17031, 4885, source="ActivityNet Captions' val_2 split"
)
KNOWN = (COMET_BENCH, EWB, CHARADES_TEST, ACTIVITYNET_VAL1, ACTIVITYNET_VAL2)


def identify(path: Path, samples: Sequence[Sample]) -> PaperBenchmark | None:
    """The paper benchmark `path` (read as `samples`) is, or None.

    >>> from longground import Moments
    >>> tiny = [Sample("q1", "a.mp4", 16.0, "a dog", Moments.empty())]
    >>> identify(Path(__file__), tiny) is None
    True
    """
    checksum = file_sha256(path)
    for known in KNOWN:
        if checksum in known.sha256:
            return known
    size = (len(samples), len({s.video for s in samples}))
    return next((k for k in KNOWN if (k.n_queries, k.n_videos) == size), None)


def published_note(home: Sequence[PaperBenchmark], found: PaperBenchmark | None, bench: Path,
                   shown: bool) -> str:  # fmt: skip
    """The note under a table saying whether the paper's rows compare with this run's.

    >>> print(published_note([COMET_BENCH], None, Path("tiny.jsonl"), shown=False))
    the paper's rows are left out: tiny.jsonl is not CoMET-Bench (2,789 queries over 600 \
videos), so this run's numbers are not comparable with them (--published always shows them)
    """
    names = " or ".join(k.describe() for k in home)
    if found in home:
        return f"the paper's rows are on {found.name}, which {bench} is, so they compare"
    if shown:
        return (f"the paper's rows are on {names}; {bench} is not, so this run's numbers are "
                "not comparable with them")  # fmt: skip
    return (f"the paper's rows are left out: {bench} is not {names}, so this run's numbers are "
            "not comparable with them (--published always shows them)")  # fmt: skip
