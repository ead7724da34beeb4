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
from dataclasses import dataclass, field
from typing import Any

STAGES = ("planner", "graph", "verification", "aggregator")


@dataclass(frozen=True)
class ParseFailure:
    """Why an empty agent answer says nothing about the video: the model's replies could not
    be read (every verifier reply, or with no candidate to verify, every filter reply).

    Attributes:
        reason: one line, e.g. "model reply unreadable: not valid JSON".
        raw: the last unreadable reply, when one was kept.
    """

    reason: str
    raw: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "raw": self.raw}


@dataclass
class Trace:
    """Collects what happened during one `ground` call.

    Attributes:
        record: JSON-ready entries by name (plan, graph, verifications, memory, ...).
        timings: seconds per "step.part".
        counters: counts by name (llm calls, malformed replies, ...).
        parse_failure: set when the run's answer is unreadable rather than empty (see
            `ParseFailure`); the pipeline decides it from its typed results.

    >>> t = Trace()
    >>> with t.timed("graph.events"):
    ...     t.put("n_events", 3)
    >>> t.count("llm_calls", 2)
    >>> d = t.to_dict()
    >>> d["n_events"], d["counters"]["llm_calls"], sorted(d["stage_times_s"])
    (3, 2, ['aggregator', 'graph', 'planner', 'total', 'verification'])
    """

    record: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counters: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    parse_failure: ParseFailure | None = None

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
        failure = (
            {} if self.parse_failure is None else {"parse_failure": self.parse_failure.to_dict()}
        )
        return {
            **self.record,
            **failure,
            "counters": dict(self.counters),
            "timings_s": dict(self.timings),
            "stage_times_s": self.stage_times(),
        }
