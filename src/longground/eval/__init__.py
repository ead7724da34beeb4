"""Scoring grounding systems: the `comet` and `single` protocols, breakdowns, bootstrap CIs,
and QVHighlights' own evaluation (`evaluate_qvhighlights`).

The metric functions (`counting`, `grounding`, `rejection`) are pure and vectorised across
queries; `evaluate` lines predictions up with a benchmark and runs a protocol over them.
"""

from . import comet, single  # noqa: F401  (importing registers the protocols)
from .evaluate import evaluate, evaluate_files
from .protocol import PROTOCOLS, get_protocol
from .qvhighlights import evaluate_qvhighlights
from .result import EvalResult

__all__ = [
    "PROTOCOLS", "EvalResult", "evaluate", "evaluate_files", "evaluate_qvhighlights",
    "get_protocol",
]  # fmt: skip
