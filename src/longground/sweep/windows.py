"""Window-clipping sweep settings: the window list and the GT-centred crop of a query."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import UserError

DEFAULT_WINDOWS = "15s,30s,2.5m,5m,10m,20m,full"
_UNITS = {"s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}
_WINDOW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|min|h)\s*$")


@dataclass(frozen=True)
class Window:
    """One sweep setting: the crop reaches `half_width_s` either side of the GT midpoint;
    None is the whole video.

    >>> Window("2.5m", 150.0).crop(np.array([[100.0, 120.0]]), 600.0)
    (0.0, 260.0)
    """

    label: str
    half_width_s: float | None

    def crop(self, gt: np.ndarray, duration_s: float) -> tuple[float, float]:
        """`[c - w, c + w]` clipped to `[0, duration_s]`, where c is the midpoint of the first
        GT interval `gt[0]` (seconds)."""
        if self.half_width_s is None or len(gt) == 0:
            return 0.0, float(duration_s)
        centre_s = float(gt[0].mean())
        return (
            max(0.0, centre_s - self.half_width_s),
            min(float(duration_s), centre_s + self.half_width_s),
        )

    @property
    def file_stem(self) -> str:
        """A file-name-safe form of the label ("2.5m" -> "2_5m")."""
        return self.label.replace(".", "_")


def parse_windows(text: str) -> list[Window]:
    """`"15s,30s,2.5m,full"` as `Window`s, in the order given.

    >>> [(w.label, w.half_width_s) for w in parse_windows("15s, 2.5m,1h,full")]
    [('15s', 15.0), ('2.5m', 150.0), ('1h', 3600.0), ('full', None)]
    """
    windows = []
    for item in (part.strip() for part in text.split(",")):
        if item == "full":
            windows.append(Window("full", None))
            continue
        match = _WINDOW.match(item)
        if match is None or float(match.group(1)) <= 0:
            raise UserError(f"--windows: {item!r} is not a positive length like 30s, 2.5m or full")
        windows.append(Window(item, float(match.group(1)) * _UNITS[match.group(2)]))
    labels = [w.label for w in windows]
    if len(set(labels)) != len(labels):
        raise UserError(f"--windows: repeated window in {text!r}")
    return windows
