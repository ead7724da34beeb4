"""Rendering an audio-visual plan (`synth.audiovisual`) to an MP4: H.264 pictures drawn with
OpenCV and an AAC track of sentences spoken by espeak-ng at their planned times.

espeak-ng runs once per sentence (a fraction of a second each), offline.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np

from ..errors import UserError, require
from ..video.writer import write_with_sound
from .assets import package_dir, photo
from .audiovisual import AvPlan

AUDIO_RATE_HZ = 22_050  # espeak-ng's own rate
VOICE = ("-v", "en-us", "-s", "150")


def speak(text: str) -> np.ndarray:
    """`text` spoken by espeak-ng: `(n,)` int16 mono at `AUDIO_RATE_HZ`.

    Raises:
        UserError: espeak-ng is not installed or fails.
    """
    program = shutil.which("espeak-ng")
    if program is None:
        raise UserError("the audio-visual benchmark needs espeak-ng: apt-get install espeak-ng")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "say.wav"
        done = subprocess.run([program, *VOICE, "-w", str(path), text], capture_output=True)
        if done.returncode != 0:
            raise UserError(f"espeak-ng failed: {done.stderr.decode(errors='replace')[:120]}")
        with wave.open(str(path)) as handle:
            if handle.getframerate() != AUDIO_RATE_HZ or handle.getnchannels() != 1:
                raise UserError("espeak-ng wrote an unexpected WAV format")
            return np.frombuffer(handle.readframes(handle.getnframes()), np.int16).copy()


def soundtrack(plan: AvPlan) -> tuple[np.ndarray, dict[int, tuple[float, float]]]:
    """The whole track `(n,)` int16 and each utterance's spoken span in seconds (the speech
    itself, without espeak-ng's leading and trailing silence)."""
    track = np.zeros(int(plan.duration_s * AUDIO_RATE_HZ), np.int16)
    spans = {}
    for i, utterance in enumerate(plan.utterances):
        voice = speak(utterance.text)
        loud = np.flatnonzero(np.abs(voice.astype(np.int32)) > 300)
        if len(loud) == 0:
            continue
        voice = voice[loud[0] : loud[-1] + 1]
        at = int(utterance.start_s * AUDIO_RATE_HZ)
        voice = voice[: max(0, len(track) - at)]
        track[at : at + len(voice)] = voice
        spans[i] = (round(at / AUDIO_RATE_HZ, 3), round((at + len(voice)) / AUDIO_RATE_HZ, 3))
    return track, spans


@cache
def _astronaut() -> np.ndarray:
    """scikit-image's astronaut photo, whose face OpenCV's frontal-face cascade finds."""
    image_mod = require("PIL.Image", "video")
    with image_mod.open(package_dir("skimage", "scikit-image") / "data" / "astronaut.png") as im:
        return np.asarray(im.convert("RGB"))


@cache
def scene_picture(kind: str, label: str, width: int, height: int) -> np.ndarray:
    """The background of a scene, `(height, width, 3)` uint8 RGB."""
    cv2 = require("cv2", "channels")
    if kind == "slide":
        out = np.full((height, width, 3), 245, np.uint8)
        out[: height // 5] = (30, 60, 140)
        _text(out, label, (width // 16, height // 8), height / 300, (255, 255, 255), 2)
        for k in range(3):
            y = height // 3 + k * height // 7
            cv2.rectangle(out, (width // 10, y), (width // 10 + width // 2 - k * 30, y + 6),
                          (150, 150, 150), -1)  # fmt: skip
        return out
    source = _astronaut() if kind == "face" else photo(label)[..., :3]
    scale = min(width / source.shape[1], height / source.shape[0])
    size = (max(2, round(source.shape[1] * scale)), max(2, round(source.shape[0] * scale)))
    fitted = cv2.resize(np.ascontiguousarray(source), size, interpolation=cv2.INTER_AREA)
    out = np.full((height, width, 3), 40, np.uint8)
    x, y = (width - size[0]) // 2, (height - size[1]) // 2
    out[y : y + size[1], x : x + size[0]] = fitted
    return out


def _text(image, text, origin, scale, color, thickness) -> None:
    cv2 = require("cv2", "channels")
    cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, color, thickness,
                cv2.LINE_AA)  # fmt: skip


def frame_at(plan: AvPlan, time_s: float, width: int, height: int) -> np.ndarray:
    """The picture on screen at `time_s`."""
    cv2 = require("cv2", "channels")
    scene = next((s for s in plan.scenes if s.start_s <= time_s < s.end_s), plan.scenes[-1])
    out = scene_picture(scene.kind, scene.label, width, height).copy()
    for overlay in plan.overlays:
        if not overlay.start_s <= time_s < overlay.end_s:
            continue
        if overlay.kind == "caption":
            top = height - height // 6
            cv2.rectangle(out, (0, top), (width, height), (0, 0, 0), -1)
            _text(out, overlay.text, (width // 10, height - height // 18), height / 320,
                  (255, 255, 0), 2)  # fmt: skip
        else:
            box = (width * 2 // 5, height // 9)
            cv2.rectangle(out, (width - box[0] - 4, 4), (width - 4, 4 + box[1]), (20, 20, 20), -1)
            _text(out, overlay.text, (width - box[0], 4 + box[1] * 3 // 4), height / 450,
                  (255, 255, 255), 1)  # fmt: skip
    return out


def write_av_video(plan: AvPlan, path: Path, width: int = 480, height: int = 270,
                   fps: Fraction = Fraction(5)) -> dict[int, tuple[float, float]]:  # fmt: skip
    """Render `plan` to `path` (H.264 + mono AAC); returns each utterance's spoken span."""
    track, spans = soundtrack(plan)
    n_frames = int(plan.duration_s * fps)
    frames = (frame_at(plan, float(i / fps), width, height) for i in range(n_frames))
    write_with_sound(path, frames, n_frames, fps, track, AUDIO_RATE_HZ, width, height, crf=26,
                     preset="ultrafast")  # fmt: skip
    return spans
