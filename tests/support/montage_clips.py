"""Small generated clips and recordings with known content, and manifests over them, for the
montage builder's tests (no real media needed)."""

from __future__ import annotations

import json
import wave
from fractions import Fraction
from pathlib import Path

import numpy as np

from longground.video.writer import VideoWriter

COLOURS = {"red": (220, 30, 30), "green": (30, 200, 30), "blue": (30, 30, 220)}


def colour_clip(
    path: Path, colours: list[tuple[str, float]], fps: int = 10, size: tuple[int, int] = (64, 48)
) -> Path:
    """A silent clip showing each `(colour, seconds)` in turn (hard cuts between)."""
    with VideoWriter(path, *size, fps=Fraction(fps)) as writer:
        for name, seconds in colours:
            frame = np.zeros((size[1], size[0], 3), np.uint8)
            frame[:] = COLOURS[name]
            for _ in range(round(seconds * fps)):
                writer.write(frame)
    return path


def tone(path: Path, seconds: float, loud: tuple[float, float], rate: int = 16_000) -> Path:
    """A mono WAV of `seconds`: silence, except a 440 Hz tone over `loud` (start, end)."""
    t = np.arange(round(seconds * rate)) / rate
    samples = np.where((t >= loud[0]) & (t < loud[1]), 8000 * np.sin(2 * np.pi * 440 * t), 0)
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(samples.astype(np.int16).tobytes())
    return path


def manifest_data() -> dict:
    """A manifest over `write_world`'s files: two clips, one recording, labels and phrases."""
    return {
        "name": "test",
        "clips": [
            {
                "id": "rg",
                "file": "rg.mp4",
                "cuts": [2.0],
                "shows": {"red": [[0, 2.0]], "green": [[2.0, 4.0]]},
            },
            {"id": "b", "file": "b.mp4", "shows": {"blue": [[0, 3.0]]}},
        ],
        "recordings": [
            {
                "id": "hum",
                "file": "hum.wav",
                "says": [{"start_s": 0.5, "end_s": 1.5, "text": "Hello there, world."}],
            },
        ],
        "labels": {
            "red": {"kind": "object", "names": ["a red screen"], "near_misses": ["orange"]},
            "green": {"kind": "scene", "names": ["a green screen", "green"]},
            "blue": {"kind": "text", "names": ["the blue card"], "queries": ["when is it blue"]},
            "orange": {"kind": "object", "names": ["an orange screen"]},
        },
        "phrases": {"hello there": [], "goodbye": ["someone says goodbye"]},
    }


def write_world(folder: Path, data: dict | None = None) -> Path:
    """The clips, the recording and the manifest in `folder`; returns the manifest's path."""
    colour_clip(folder / "rg.mp4", [("red", 2.0), ("green", 2.0)])
    colour_clip(folder / "b.mp4", [("blue", 3.0)])
    tone(folder / "hum.wav", 2.0, (0.5, 1.5))
    path = folder / "m.json"
    path.write_text(json.dumps(manifest_data() if data is None else data))
    return path


def talking_clip(path: Path, seconds: float, loud: tuple[float, float], fps: int = 10) -> Path:
    """A grey clip with sound: a 440 Hz tone over `loud`, silence elsewhere (H.264 + AAC)."""
    import av

    rate = 16_000
    t = np.arange(round(seconds * rate)) / rate
    track = np.where((t >= loud[0]) & (t < loud[1]), 8000 * np.sin(2 * np.pi * 440 * t), 0)
    track = track.astype(np.int16)
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = container.add_stream("aac", rate=rate, layout="mono")
        for _ in range(round(seconds * fps)):
            picture = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 90, np.uint8), "rgb24")
            container.mux(video.encode(picture))
        for at in range(0, len(track), 1024):
            frame = av.AudioFrame.from_ndarray(track[None, at : at + 1024], "s16", "mono")
            frame.sample_rate, frame.pts = rate, at
            container.mux(audio.encode(frame))
        container.mux(video.encode(None))
        container.mux(audio.encode(None))
    return path
