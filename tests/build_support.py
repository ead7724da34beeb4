"""Helpers for the `longground build` tests: small generated videos and scripted replies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from longground.video.writer import VideoWriter


def make_video(path: Path, grey: int, seconds: int = 10, fps: int = 5) -> Path:
    """A 64x48 clip of flat `grey` with a white square moving right, `seconds` long."""
    with VideoWriter(path, 64, 48, fps=fps) as writer:
        for i in range(seconds * fps):
            frame = np.full((48, 64, 3), grey, np.uint8)
            x = (i * 2) % 56
            frame[20:28, x : x + 8] = 255
            writer.write(frame)
    return path


def make_videos(folder: Path) -> list[Path]:
    """dark.mp4, bright.mp4 and broken.mp4 (not a video)."""
    folder.mkdir(parents=True, exist_ok=True)
    broken = folder / "broken.mp4"
    broken.write_bytes(b"this is not a video")
    return [make_video(folder / "dark.mp4", 40), make_video(folder / "bright.mp4", 200), broken]


def is_bright(seen) -> bool:
    return bool(seen.images) and float(np.mean(seen.images[0])) > 128


def attribute_list(text: str) -> str:
    """The attribute list a query prompt asks for."""
    marker = "combines exactly these attributes: "
    return text.split(marker, 1)[1].split("\n", 1)[0].strip()


def json_reply(value) -> str:
    return "```json\n" + json.dumps(value) + "\n```"
