"""silero-vad's model is loaded without importing its package (whose `__init__` imports torch)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("silero_vad")
pytest.importorskip("onnxruntime")

PROBE = """
import sys
import numpy as np
from longground.channels.vad import SileroVad, model_path
assert model_path().is_file()
probs = SileroVad().probabilities(np.zeros(1024, np.float32))
print(len(probs), "silero_vad" in sys.modules, "torch" in sys.modules)
"""


def test_model_loads_without_torch():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()  # fmt: skip
    assert out == ["2", "False", "False"]
