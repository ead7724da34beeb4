"""Sound for the montages: a file's audio decoded to mono int16 at one rate (PyAV)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import UserError, require

RATE_HZ = 24_000


@lru_cache(maxsize=32)
def read_audio(path: Path) -> np.ndarray:
    """The first audio stream of `path` as `(n,)` int16 mono at `RATE_HZ`, from its first
    sample; empty when the file has no audio.

    Raises:
        UserError: the audio cannot be decoded.
    """
    av = require("av", "video")
    chunks = []
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                return np.zeros(0, np.int16)
            resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE_HZ)
            for frame in container.decode(container.streams.audio[0]):
                chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
            chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    except (av.error.FFmpegError, OSError) as exc:
        raise UserError(f"{path}: the audio cannot be decoded ({exc})") from None
    out = np.concatenate(chunks).astype(np.int16) if chunks else np.zeros(0, np.int16)
    out.setflags(write=False)
    return out


def audio_length_s(path: Path) -> float:
    """Seconds of decoded audio in `path` (0 without audio)."""
    return len(read_audio(path)) / RATE_HZ
