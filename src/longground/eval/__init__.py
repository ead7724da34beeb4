"""Scoring grounding systems: the `comet` and `single` protocols, breakdowns, bootstrap CIs,
and QVHighlights' own evaluation (`evaluate_qvhighlights`).

The metric functions (`counting`, `grounding`, `rejection`) are pure and vectorised across
queries; `evaluate` lines predictions up with a benchmark and runs a protocol over them.
"""

from .evaluate import evaluate, evaluate_files
from .protocol import PROTOCOLS
from .qvhighlights import evaluate_qvhighlights
from .registry import get_protocol
from .result import EvalResult

__all__ = [
    "PROTOCOLS", "EvalResult", "evaluate", "evaluate_files", "evaluate_qvhighlights",
    "get_protocol",
]  # fmt: skip
