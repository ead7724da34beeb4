"""Request size per `--video-input` mode: bytes on the wire, parts, and estimated visual
tokens, with ratios against the frames mode measured in the same run.

    PYTHONPATH=src python perf/bench_video_input.py [N_FRAMES] [SHORT_SIDE]

Frames are crops of scikit-image's astronaut photo (JPEG sizes of a natural image), 16:9 at
SHORT_SIDE pixels (default 128 frames at 336 px, the monolithic's defaults). Tokens use
`curate.estimate.image_tokens` (one per 28-px patch); in video mode Qwen-VL merges two
frames per temporal patch, so its estimate is half the frames' (an estimate, not a count a
server reported).
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np

from longground.curate.estimate import image_tokens
from longground.llm.payload import request_json
from longground.llm.timing import timed_frames_message
from longground.llm.video_input import VideoInput, convert_messages
from longground.video import mosaic


def frames(n: int, short_side: int) -> np.ndarray:
    from PIL import Image
    from skimage import data

    photo = Image.fromarray(data.astronaut())
    width = round(short_side * 16 / 9)
    out = np.empty((n, short_side, width, 3), np.uint8)
    for i in range(n):  # a sliding crop, so no two frames are alike
        box = (i % 200, (3 * i) % 150, i % 200 + 300, (3 * i) % 150 + 169)
        out[i] = np.asarray(photo.crop(box).resize((width, short_side)))
    return out


def visual_tokens(mode: str, message) -> int:
    if message.video is not None:
        n, h, w = message.video.frames.shape[:3]
        return math.ceil(n / 2) * image_tokens(h, w)
    return sum(image_tokens(*image.shape[:2]) for image in message.images)


def main(n_frames: int = 128, short_side: int = 336) -> None:
    batch = frames(n_frames, short_side)
    pts_s = (np.arange(n_frames) + 0.5) * 3600.0 / n_frames
    message = timed_frames_message("Find every goal.", batch, pts_s)
    rows = []
    for mode in ("frames", "video", "grid"):
        start = time.perf_counter()
        (sent,) = convert_messages([message], VideoInput(mode), mosaic)
        body = json.dumps(request_json("m", [sent], 256, 0.0)).encode()
        seconds = time.perf_counter() - start
        parts = len(sent.images) + (sent.video is not None)
        rows.append((mode, len(body), parts, visual_tokens(mode, sent), seconds))
    base_bytes, base_tokens = rows[0][1], rows[0][3]
    print(f"{n_frames} frames at {short_side} px (16:9), one request")
    print(f"{'mode':8}{'MB':>8}{'x frames':>10}{'media parts':>13}{'~vis. tokens':>14}"
          f"{'x frames':>10}{'build s':>9}")  # fmt: skip
    for mode, size, parts, tokens, seconds in rows:
        print(f"{mode:8}{size / 1e6:8.2f}{size / base_bytes:10.2f}{parts:13d}{tokens:14d}"
              f"{tokens / base_tokens:10.2f}{seconds:9.2f}")  # fmt: skip


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
