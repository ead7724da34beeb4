"""Hostile inputs for the channels, beside those in test_cli.py: an audio stream without
samples, a ten-hour silent track, a file with no video, frames of noise at a size OCR
upscales."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from longground.cli.main import main

from .clips import write_clip

pytest.importorskip("pocketsphinx")
pytest.importorskip("rapidocr_onnxruntime")


def run(capsys, *args):
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return code, out, err


def write_mkv(path: Path, seconds: int, audio_hours: float, rate_hz: int = 100) -> Path:
    """A black 64x48 MKV of `seconds` at 1 fps with a silent 8-bit PCM track of
    `audio_hours` at `rate_hz` (tiny: 100 bytes a second), or an AAC stream with no packets
    when `audio_hours` is 0."""
    import av

    with av.open(str(path), mode="w") as container:
        video = container.add_stream("libx264", rate=Fraction(1))
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        codec = "pcm_u8" if audio_hours else "aac"
        audio = container.add_stream(codec, rate=rate_hz if audio_hours else 22050, layout="mono")
        black = np.zeros((48, 64, 3), np.uint8)
        for _ in range(seconds):
            container.mux(video.encode(av.VideoFrame.from_ndarray(black, format="rgb24")))
        container.mux(video.encode(None))
        block = np.full((1, rate_hz * 600), 128, np.uint8)  # ten minutes of silence
        for k in range(round(audio_hours * 6)):
            frame = av.AudioFrame.from_ndarray(block, format="u8", layout="mono")
            frame.sample_rate, frame.pts = rate_hz, k * block.shape[1]
            container.mux(audio.encode(frame))
        container.mux(audio.encode(None))
    return path


def test_audio_stream_without_samples_is_a_note(tmp_path, capsys):
    path = write_mkv(tmp_path / "empty_audio.mkv", 2, 0)
    cache = tmp_path / "cache"
    code, out, err = run(capsys, "index", path, "--cache-dir", cache, "--channels", "speech")
    assert code == 0 and "longground: note:" in err and "no samples" in err
    assert "Traceback" not in err and "speech skipped" in out
    code, _, err = run(capsys, "find", path, "someone says hello", "--cache-dir", cache)
    assert code == 2 and err.count("\n") == 1 and "no samples" in err
    code, _, err = run(capsys, "transcript", path, "--cache-dir", cache)
    assert code == 2 and err.count("\n") == 1


@pytest.mark.slow
def test_ten_hour_silent_track(tmp_path, capsys):
    """Decoded, resampled to 16 kHz and shown to the voice-activity detector 30 s at a time
    (576 million samples): about 12 s of CPU; memory does not grow with the length."""
    path = write_mkv(tmp_path / "silent.mkv", 2, 10.0)
    code, out, _ = run(capsys, "info", path)
    assert code == 0 and "100 Hz, 1 channel, 10:00:00" in out
    code, out, err = run(capsys, "transcript", path, "--cache-dir", tmp_path / "c")
    assert (code, out) == (1, "") and "Traceback" not in err


def test_a_file_without_video_is_one_line(tmp_path, capsys):
    import av

    path = tmp_path / "voice.m4a"
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("aac", rate=22050, layout="mono")
        frame = av.AudioFrame.from_ndarray(np.zeros((1, 1024), np.int16), layout="mono")
        frame.sample_rate, frame.pts = 22050, 0
        container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
    for args in (("index", path), ("find", path, "someone says hello"), ("transcript", path)):
        code, _, err = run(capsys, *args, "--cache-dir", tmp_path / "c")
        assert code == 2 and err.count("\n") == 1 and "no video stream" in err


def test_noise_at_a_size_ocr_upscales(tmp_path, capsys):
    rng = np.random.default_rng(1)
    noise = [rng.integers(0, 256, (270, 480, 3), np.uint8) for _ in range(2)]
    path = write_clip(tmp_path / "noise.mp4", noise, 1.0, fps=1)
    code, out, err = run(capsys, "index", path, "--cache-dir", tmp_path / "c", "--channels",
                         "text,people", "--encoder", "label-bridge")  # fmt: skip
    assert code == 0 and "Traceback" not in err
    assert "text 0 lines from 2 frames read" in out
