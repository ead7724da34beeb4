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


COLOURS = {"red": (220, 30, 30), "green": (30, 200, 30), "blue": (30, 30, 220)}


class ColourEncoder:
    """A tiny stand-in encoder: a frame is its mean colour; a text counts colour words."""

    encoder_id = "test-colour-1"
    default_threshold = 0.5

    def encode_images(self, frames):
        mean = frames.reshape(len(frames), -1, 3).mean(axis=1).astype(np.float32) + 1.0
        return mean / np.linalg.norm(mean, axis=1, keepdims=True)

    def encode_texts(self, texts):
        rows = []
        for text in texts:
            words = text.lower().split()
            row = np.array([words.count(c) for c in COLOURS], np.float32) + 0.01
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows)

    def image_features(self, frames):
        emb = self.encode_images(frames)
        return {"embedding": emb, "appearance": emb}

    def score(self, features, text):
        return features["embedding"] @ self.encode_texts([text])[0]


def register_colour_encoder() -> str:
    from longground.encoders.base import ENCODERS, ImageTextEncoder

    ImageTextEncoder.register(ColourEncoder)
    ENCODERS["test-colour"] = lambda arg: ColourEncoder()
    return "test-colour"


def make_colour_video(path: Path, plan: list[tuple[str, int]], fps: int = 2) -> Path:
    """A 64x48 clip of flat colours: `plan` = [(colour, seconds), ...]."""
    with VideoWriter(path, 64, 48, fps=fps) as writer:
        for colour, seconds in plan:
            for _ in range(seconds * fps):
                writer.write(np.full((48, 64, 3), COLOURS[colour], np.uint8))
    return path
