"""A JSON-ready record of one agent run: plan, graph, filter decisions, every verification,
memory-bank states, counters, and the time spent per step (the profile of CoMET Table 7b).

Timings are named "step.part" (e.g. "graph.flow"); `stage_times` folds them into the four
stages planner / graph / verification / aggregator.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STAGES = ("planner", "graph", "verification", "aggregator")


class Trace:
    """Collects what happened during one `ground` call.

    >>> t = Trace()
    >>> with t.timed("graph.events"):
    ...     t.put("n_events", 3)
    >>> t.count("llm_calls", 2)
    >>> d = t.to_dict()
    >>> d["n_events"], d["counters"]["llm_calls"], sorted(d["stage_times_s"])
    (3, 2, ['aggregator', 'graph', 'planner', 'total', 'verification'])
    """

    def __init__(self) -> None:
        self.record: dict[str, Any] = {}
        self.timings: dict[str, float] = defaultdict(float)
        self.counters: dict[str, int] = defaultdict(int)

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Add the wall time of the block to timing `name`."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] += time.perf_counter() - start

    def put(self, key: str, value: Any) -> None:
        self.record[key] = value

    def append(self, key: str, value: Any) -> None:
        self.record.setdefault(key, []).append(value)

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] += n

    def stage_times(self) -> dict[str, float]:
        """Seconds per stage (sums of its "stage.part" timings) and the total."""
        out = {stage: 0.0 for stage in STAGES}
        for name, seconds in self.timings.items():
            stage = name.split(".", 1)[0]
            if stage in out:
                out[stage] += seconds
        out["total"] = sum(out[s] for s in STAGES)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.record,
            "counters": dict(self.counters),
            "timings_s": dict(self.timings),
            "stage_times_s": self.stage_times(),
        }
