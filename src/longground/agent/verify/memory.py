"""The global memory bank: verified instances, deduplicated online by temporal NMS.

Each entry is CoMET's tuple <summary, (start, end), confidence>, plus the node it came from and
its embedding (used later to tell identities apart). A new entry whose tIoU with an existing
one exceeds gamma is a duplicate of it: the higher-confidence entry stays (Algorithm 1,
lines 10-22).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...moments import Moments, tiou_matrix

DEFAULT_GAMMA = 0.5


@dataclass(frozen=True, eq=False)
class MemoryEntry:
    """One verified instance.

    Attributes:
        summary: short text describing what was verified.
        start_s, end_s: the instance's interval in seconds.
        confidence: verifier confidence in [0, 1].
        node: the candidate action node it came from (-1 if none).
        z: `(D,)` embedding of the instance, or None.
    """

    summary: str
    start_s: float
    end_s: float
    confidence: float
    node: int = -1
    z: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.end_s >= self.start_s:
            raise ValueError(
                f"memory entry needs end_s >= start_s, got {self.start_s}, {self.end_s}"
            )
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {self.confidence}")

    def same_as(self, other: MemoryEntry) -> bool:
        """Equal as CoMET's tuple <summary, (start, end), confidence>."""
        return (self.summary, self.start_s, self.end_s, self.confidence) == (
            other.summary,
            other.start_s,
            other.end_s,
            other.confidence,
        )

    def to_record(self) -> dict:
        return {
            "summary": self.summary,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "confidence": self.confidence,
            "node": self.node,
        }


class MemoryBank:
    """Verified entries with online deduplication.

    >>> bank = MemoryBank(gamma=0.5)
    >>> bank.commit(MemoryEntry("a cat", 0, 10, 0.6))
    'appended'
    >>> bank.commit(MemoryEntry("a cat", 1, 10, 0.9))
    'replaced'
    >>> bank.commit(MemoryEntry("a cat", 0, 9, 0.7))
    'duplicate'
    >>> [(e.start_s, e.confidence) for e in bank.entries]
    [(1, 0.9)]
    """

    def __init__(self, gamma: float = DEFAULT_GAMMA):
        self.gamma = gamma
        self.entries: list[MemoryEntry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def commit(self, entry: MemoryEntry) -> str:
        """Add a verified entry under temporal NMS.

        Returns:
            "appended" (novel event), "replaced" (the overlapping entries it outranks are
            removed and it takes their place, once: an equal tuple is not stored twice) or
            "duplicate" (every overlapping entry was at least as confident; nothing changed).
        """
        if not self.entries:
            self.entries.append(entry)
            return "appended"
        spans = np.array([[e.start_s, e.end_s] for e in self.entries])
        iou = tiou_matrix(np.array([[entry.start_s, entry.end_s]]), spans)[0]
        overlapping = np.flatnonzero(iou > self.gamma)
        if overlapping.size == 0:
            self.entries.append(entry)
            return "appended"
        beaten = {int(i) for i in overlapping if entry.confidence > self.entries[i].confidence}
        if not beaten:
            return "duplicate"
        self.entries = [e for i, e in enumerate(self.entries) if i not in beaten]
        if not any(e.same_as(entry) for e in self.entries):  # the bank is a set of tuples
            self.entries.append(entry)
        return "replaced"

    def moments(self) -> Moments:
        """The entries as `Moments` (scores = confidences), in time order."""
        if not self.entries:
            return Moments.empty()
        spans = [[e.start_s, e.end_s] for e in self.entries]
        return Moments.from_list(spans, [e.confidence for e in self.entries]).sorted()

    def state(self) -> list[dict]:
        """A snapshot of the entries for the trace."""
        return [e.to_record() for e in self.entries]
