"""Tiny audio-visual clips for the channel tests: drawn pictures, espeak-ng speech, and audio
tracks of unusual shapes (8 channels at 96 kHz, empty, junk packets, long silence)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np


def write_clip(path: Path, pictures: list[np.ndarray], seconds_each: float = 2.0,
               audio: np.ndarray | None = None, rate_hz: int = 22050, layout: str = "mono",
               fps: int = 2) -> Path:  # fmt: skip
    """An MP4 showing each picture for `seconds_each`, with `audio` `(channels, n)` int16 as
    AAC when given (an array of shape `(channels, 0)` makes an audio stream with no samples)."""
    import av

    height, width = pictures[0].shape[:2]
    with av.open(str(path), mode="w") as container:
        video = container.add_stream("libx264", rate=Fraction(fps))
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast"}
        stream = None
        if audio is not None:
            stream = container.add_stream("aac", rate=rate_hz, layout=layout)
            sent = 0
            while sent < audio.shape[1]:
                block = np.ascontiguousarray(audio[:, sent : sent + 1024])
                flat = block.T.reshape(1, -1)  # packed s16: samples interleaved by channel
                frame = av.AudioFrame.from_ndarray(flat, format="s16", layout=layout)
                frame.sample_rate, frame.pts = rate_hz, sent
                container.mux(stream.encode(frame))
                sent += block.shape[1]
        for picture in pictures:
            for _ in range(int(seconds_each * fps)):
                container.mux(video.encode(av.VideoFrame.from_ndarray(picture, format="rgb24")))
        container.mux(video.encode(None))
        if stream is not None:
            container.mux(stream.encode(None))
    return path


def junk_audio(source: Path, path: Path) -> Path:
    """A copy of `source` whose audio packets are replaced by random bytes."""
    import av

    rng = np.random.default_rng(0)
    with av.open(str(source)) as inp, av.open(str(path), mode="w") as out:
        streams = {s.index: out.add_stream_from_template(s) for s in inp.streams}
        for packet in inp.demux():
            if packet.dts is None:
                continue
            target = streams[packet.stream.index]
            if packet.stream.type == "audio":
                junk = av.Packet(rng.integers(0, 256, packet.size, np.uint8).tobytes())
                junk.pts, junk.dts, junk.time_base = packet.pts, packet.dts, packet.time_base
                packet = junk
            packet.stream = target
            out.mux(packet)
    return path


def speech(text: str) -> np.ndarray:
    """`(1, n)` int16 at 22050 Hz: `text` spoken by espeak-ng."""
    from longground.synth.av_render import speak

    return speak(text)[None, :]


def slide(title: str, width: int = 320, height: int = 180) -> np.ndarray:
    """A white picture with a dark title."""
    import cv2

    out = np.full((height, width, 3), 250, np.uint8)
    cv2.putText(out, title, (12, height // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (10, 10, 10), 2)
    return out


def face(width: int = 320, height: int = 180) -> np.ndarray:
    """scikit-image's astronaut, fitted into the frame."""
    from longground.synth.av_render import scene_picture

    return scene_picture("face", "astronaut", width, height)
