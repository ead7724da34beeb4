"""Which channels exist, which are installed, and extracting them from one video.

Speech reads the audio stream; on-screen text and people share one pass over frames sampled
at `fps`, and look only at frames whose picture changed. A channel that cannot be extracted
from this video (no audio stream, an audio stream that does not decode) leaves a note
instead of data; the other channels go on.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from pathlib import Path

from ..errors import UserError
from .evidence import People, Readings, Transcript

CHANNELS = ("speech", "text", "people")
#: The modules each channel needs (all in the `channels` extra).
NEEDS = {
    "speech": ("pocketsphinx", "silero_vad", "onnxruntime", "av"),
    "text": ("rapidocr_onnxruntime", "cv2", "av"),
    "people": ("cv2", "av"),
}
OCR_SIDE = 720  # frames are read for text with their shorter side at most this many pixels


def installed(name: str) -> bool:
    """True when every module channel `name` needs can be imported (people: and OpenCV ships
    its cascades, which OpenCV 5 does not)."""
    if not all(importlib.util.find_spec(m) is not None for m in NEEDS[name]):
        return False
    if name == "people":
        import cv2

        return hasattr(cv2, "HOGDescriptor_getDefaultPeopleDetector") and bool(
            getattr(getattr(cv2, "data", None), "haarcascades", "")
        )
    return True


def parse_channels(text: str | None) -> tuple[str, ...]:
    """`--channels`: None or "auto" = every installed channel; "none" = no channel; else a
    comma-separated list of names, each of which must be installed.

    >>> parse_channels("none"), parse_channels(" people ,text")
    ((), ('text', 'people'))
    """
    if text is None or text.strip() == "auto":
        return tuple(c for c in CHANNELS if installed(c))
    if text.strip() == "none":
        return ()
    names = {part.strip() for part in text.split(",") if part.strip()}
    unknown = sorted(names - set(CHANNELS))
    if unknown or not names:
        raise UserError(
            f"--channels: unknown channel(s) {', '.join(unknown) or repr(text)}; "
            f"choose from {', '.join(CHANNELS)}, auto or none"
        )
    for name in names:
        if not installed(name):
            raise UserError(
                f"--channels: the {name} channel's models are not installed: "
                "pip install 'longground[channels]'"
            )
    return tuple(c for c in CHANNELS if c in names)


def extract_audio_channel(video: Path) -> tuple[Transcript | None, str | None, bool]:
    """The transcript, or None and the note that says why there is none, and whether that
    note is a warning (the stream exists but does not decode) rather than a plain note."""
    from contextlib import closing

    from .audio import BadAudio, pcm_chunks, probe_audio
    from .speech import extract_speech

    if probe_audio(video) is None:
        return None, "no audio stream; speech channel skipped", False
    try:
        with closing(pcm_chunks(video, chunk_s=0.01)) as first:
            if next(first, None) is None:  # reads packets only until the first samples
                return None, "the audio stream has no samples; speech channel skipped", False
        return extract_speech(video), None, False
    except BadAudio as exc:
        reason = str(exc).split(": ", 1)[-1]
        return None, f"audio unreadable, speech channel skipped: {reason}", True


def extract_visual_channels(
    video: Path, names: tuple[str, ...], fps: float, on_frames: Callable[[int], None] | None = None
) -> dict:
    """`{"text": Readings, "people": People}` for the names asked, from one pass over frames.

    Frames are decoded once, scaled inside the decoder to at most OCR_SIDE (the people
    detector scales them down further, and its boxes are in these pixels either way, so they
    do not depend on which channels were asked for). Both channels look only at frames
    whose picture changed since the last frame looked at (`ocr.changed` on a grey thumbnail):
    an unchanged frame keeps the lines on screen and repeats the last people counts, which is
    what a detector would find again on the same picture.
    """
    import numpy as np

    from ..video import probe, sample_frames
    from .ocr import TextReader, changed_band, thumbnail
    from .people import PeopleDetector

    info = probe(video)
    reader = TextReader() if "text" in names else None
    detector = PeopleDetector() if "people" in names else None
    last_thumb, shown, rows, n_read = None, [], [], 0  # shown: lines on screen since a time
    times, faces, persons, boxes = [], [], [], []
    counted = (0, 0, [[], []])
    short_side = None if min(info.width, info.height) <= OCR_SIDE else OCR_SIDE
    for batch in sample_frames(video, fps, short_side=short_side):
        for frame, time_s in zip(batch.frames, batch.times_s):
            thumb = thumbnail(frame)
            band = changed_band(last_thumb, thumb)
            new_picture = band is not None
            if new_picture:
                last_thumb = thumb
            if reader is not None and new_picture:
                top, bottom = _band_rows(band, frame.shape[0], shown)
                ends = [line for line in shown if line[3][0] < bottom and line[3][1] > top]
                rows += [(start, float(time_s), t, c) for start, t, c, _ in ends]
                kept = [line for line in shown if line not in ends]
                read = reader.read(frame, top, bottom)
                shown = kept + [(float(time_s), t, c, span) for t, c, span in read]
                n_read += 1
            if detector is not None:
                counted = detector.count(frame) if new_picture else counted
                times.append(float(time_s)), faces.append(counted[0])
                persons.append(counted[1]), boxes.append(counted[2])
        if on_frames is not None:
            on_frames(len(batch))
    rows += [(start, info.duration_s, t, c) for start, t, c, _ in shown]
    out = {}
    if reader is not None:
        out["text"] = Readings.from_rows(rows, n_read)
    if detector is not None:
        out["people"] = People(np.array(times), np.array(faces, np.int64),
                               np.array(persons, np.int64), tuple(boxes), 1.0 / fps)  # fmt: skip
    return out


def _band_rows(band: tuple[float, float], height: int, shown: list) -> tuple[int, int]:
    """The rows of a frame `height` pixels high to read again when the rows `band` (shares
    of the height) changed: the band with a margin, grown to the whole of every line on
    screen it touches; all rows when that is most of the frame."""
    from .ocr import BAND_MARGIN, FULL_READ_SHARE

    top = max(0, int((band[0] - BAND_MARGIN) * height))
    bottom = min(height, math.ceil((band[1] + BAND_MARGIN) * height))
    for _start, _text, _conf, (line_top, line_bottom) in shown:
        if line_top < bottom and line_bottom > top:
            top, bottom = min(top, line_top), max(bottom, line_bottom)
    if bottom - top > FULL_READ_SHARE * height:
        return 0, height
    return top, bottom
