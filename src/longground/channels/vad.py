"""Voice activity: silero-vad's ONNX model over 32 ms windows, then hysteresis into segments.

The model runs on ONNX Runtime directly (no torch). Windows quieter than `SILENCE_RMS` are
not shown to the model (probability 0): a long silent track costs only the decoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import MissingExtra, require
from .audio import RATE_HZ

WINDOW = 512  # samples per model call at 16 kHz (32 ms), as the model requires
CONTEXT = 64  # samples of the previous window the model sees first
SILENCE_RMS = 1e-4  # of full scale; quieter windows are silence without asking the model


def model_path() -> Path:
    """The ONNX model inside the silero-vad wheel, found without importing the package (its
    `__init__` imports torch: 2.3 s of CPU and 140 MiB of memory)."""
    import importlib.util

    spec = importlib.util.find_spec("silero_vad")
    path = None
    if spec is not None and spec.submodule_search_locations:
        path = Path(list(spec.submodule_search_locations)[0]) / "data" / "silero_vad.onnx"
    if path is None or not path.is_file():
        raise MissingExtra("silero_vad", "channels")
    return path


class SileroVad:
    """Speech probability per 32 ms window of 16 kHz float audio; state carries across calls."""

    def __init__(self):
        ort = require("onnxruntime", "channels")
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._state = np.zeros((2, 1, 128), np.float32)
        self._context = np.zeros((1, CONTEXT), np.float32)
        self._sr = np.array(RATE_HZ, dtype=np.int64)

    def probabilities(self, samples: np.ndarray) -> np.ndarray:
        """`(len // 512,)` speech probabilities of `samples` `(n,)` float32 in [-1, 1]."""
        n = len(samples) // WINDOW
        out = np.zeros(n, np.float32)
        windows = samples[: n * WINDOW].reshape(n, WINDOW).astype(np.float32)
        rms = np.sqrt((windows**2).mean(axis=1)) if n else np.zeros(0)
        for i in range(n):
            if rms[i] < SILENCE_RMS:
                self._context[:] = 0.0
                continue
            x = np.concatenate([self._context, windows[i : i + 1]], axis=1)
            prob, self._state = self._session.run(
                None, {"input": x, "state": self._state, "sr": self._sr}
            )
            out[i] = float(prob.reshape(-1)[0])
            self._context = x[:, -CONTEXT:]
        return out


@dataclass
class Segmenter:
    """Speech segments from window probabilities: starts at `on`, ends after `min_silence_s`
    below `off`; segments shorter than `min_speech_s` are dropped; `pad_s` on each side.

    >>> seg = Segmenter()
    >>> probs = np.r_[np.zeros(20), np.ones(40), np.zeros(40)].astype(np.float32)
    >>> [(round(a, 2), round(b, 2)) for a, b in seg.feed(probs)]
    [(0.44, 2.12)]
    """

    on: float = 0.5
    off: float = 0.35
    min_silence_s: float = 0.4
    min_speech_s: float = 0.25
    pad_s: float = 0.2
    window_s: float = WINDOW / RATE_HZ
    _index: int = 0
    _start: int | None = None
    _last_voiced: int = 0
    _done: list = field(default_factory=list)

    def feed(self, probs: np.ndarray) -> Iterator[tuple[float, float]]:
        """The segments `(start_s, end_s)` that these windows close."""
        quiet_windows = self.min_silence_s / self.window_s
        for prob in probs:
            i = self._index
            self._index += 1
            if self._start is None:
                if prob >= self.on:
                    self._start, self._last_voiced = i, i
                continue
            if prob >= self.off:
                self._last_voiced = i
            elif i - self._last_voiced > quiet_windows:
                yield from self._close()
        return

    @property
    def open_since_s(self) -> float | None:
        """When the segment still open started (seconds), or None."""
        return None if self._start is None else self._start * self.window_s

    def finish(self) -> Iterator[tuple[float, float]]:
        """The segment still open at the end of the audio."""
        if self._start is not None:
            yield from self._close()

    def _close(self) -> Iterator[tuple[float, float]]:
        start, stop = self._start, self._last_voiced + 1
        self._start = None
        if (stop - start) * self.window_s >= self.min_speech_s:
            yield (max(0.0, start * self.window_s - self.pad_s), stop * self.window_s + self.pad_s)
