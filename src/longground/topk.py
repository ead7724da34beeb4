"""ExtremeWhenBench's top-K retrieval windows as one named value.

ExtremeWhenBench reads a retrieval curve as its K best peaks, at least `nms_s` apart, each
widened to `±half_width_s`: the hybrid grounds inside the top 3 (Table 2), window recall and
the construction pipeline's P6 look at the top 10 (Table 6, App. B). The numbers live here
once; settings dataclasses and the command line take their defaults from `EWB_WINDOWS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import UserError


@dataclass(frozen=True)
class TopKWindows:
    """K windows around the best peaks of a score curve.

    Attributes:
        k: number of windows.
        half_width_s: each window reaches this far either side of its peak, in seconds.
        nms_s: peaks closer than this (seconds) count as one.

    >>> EWB_WINDOWS.params()
    {'mode': 'topk', 'k': 10, 'half_width_s': 60.0, 'nms_s': 60.0}
    """

    k: int
    half_width_s: float
    nms_s: float

    def __post_init__(self) -> None:
        if self.k < 1 or not self.half_width_s > 0 or not self.nms_s >= 0:
            raise UserError(
                f"top-K windows want k >= 1, half_width_s > 0 and nms_s >= 0, got {self}"
            )

    def params(self) -> dict[str, Any]:
        """The retrieval method's `-p` values that produce these windows (typed)."""
        return {"mode": "topk", "k": self.k, "half_width_s": self.half_width_s,
                "nms_s": self.nms_s}  # fmt: skip


# ExtremeWhenBench Table 6 and App. B (P6): top-10 windows of ±1 min, NMS 60 s.
EWB_WINDOWS = TopKWindows(k=10, half_width_s=60.0, nms_s=60.0)
EWB_WINDOWS_NAME = "ewb-windows"  # the retrieval preset that answers with these windows
EWB_WINDOWS_SOURCE = "ExtremeWhenBench Table 6 and App. B (P6): top-10 windows, ±60 s, NMS 60 s"
