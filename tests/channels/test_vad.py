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


def test_long_talk_is_answered_in_cues():
    """pyannote's telephone conversation is 23 s without a pause the voice-activity detector
    ends a segment at; its cues are at most `CUE_MAX_S` long, and the cue where "Chicago" is
    first said overlaps that phrase of the conversation's own transcript (14.44-17.77 s) by
    at least 0.5 tIoU."""
    pytest.importorskip("pocketsphinx")
    from longground.channels.match import speech_moments
    from longground.channels.speech import CUE_MAX_S, extract_speech
    from longground.eval.reference import tiou
    from tests.support.real_media import real_media

    (wav,) = real_media("pyannote-sample.wav")
    transcript = extract_speech(wav)
    lengths = transcript.segments.lengths_s
    assert lengths.max() <= CUE_MAX_S and len(transcript.segments) >= 4
    found = speech_moments(transcript, "Chicago")[0].to_list()
    assert found and max(tiou(span, [14.44, 17.77]) for span in found) >= 0.5
    assert all(span[1] - span[0] <= CUE_MAX_S for span in found)
