"""Synthetic long-video benchmark with exact ground truth for every CoMET query type.

>>> from longground.synth import plan
>>> len(plan(1, 1.0, seed=0, tiny=True)[0].samples) > 0
True
"""

from .generate import (
    JSONL_NAME,
    PRESETS,
    PlannedVideo,
    Preset,
    generate,
    plan,
    rendering_preset,
)
from .stats import summarize

__all__ = [
    "JSONL_NAME",
    "PRESETS",
    "PlannedVideo",
    "Preset",
    "generate",
    "plan",
    "rendering_preset",
    "summarize",
]
