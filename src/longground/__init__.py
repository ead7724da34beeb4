"""longground: find every moment in a long video that matches a query, and score such systems."""

import os

# Idle OpenMP threads otherwise spin and, on a busy 2-core machine, make torch about 3x slower
# (measured in perf/bench_index.py). It only takes effect before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .errors import UserError
from .moments import Moments, tiou_matrix
from .samples import Prediction, Sample
from .timecode import format_time, parse_time

__all__ = [
    "EvalResult",
    "Moments",
    "Prediction",
    "Sample",
    "UserError",
    "evaluate",
    "find",
    "find_many",
    "format_time",
    "parse_time",
    "tiou_matrix",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    """`find`, `find_many`, `evaluate` and `EvalResult` load their code on first use, so
    `import longground` stays light."""
    if name in ("find", "find_many", "evaluate"):
        # By name: the API sits on top of every layer, and this package's own modules
        # (longground.cli, longground.run) import `longground` for its version.
        import importlib

        return getattr(importlib.import_module("longground.api"), name)
    if name == "EvalResult":
        from . import eval as scoring

        return getattr(scoring, name)
    raise AttributeError(f"module 'longground' has no attribute {name!r}")
