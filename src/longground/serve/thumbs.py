"""Thumbnails of hits: the frame shown at a time, as a small JPEG, kept in memory."""

from __future__ import annotations

import io
import threading
from collections import OrderedDict

from .library import Video, signature

#: The thumbnail's shorter side, in pixels.
THUMB_SIDE = 144
#: Thumbnails kept in memory.
KEEP_THUMBS = 2_000


class Thumbnails:
    """JPEG frames by (video, time to the millisecond), least recently used dropped first."""

    def __init__(self, keep: int = KEEP_THUMBS):
        self.keep = keep
        self._cache: OrderedDict[tuple, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def jpeg(self, video: Video, t_s: float) -> bytes:
        """The frame of `video` shown at `t_s` (clamped into the video), as JPEG bytes.

        Raises:
            UserError: the file cannot be decoded.
        """
        if video.duration_s is not None:
            t_s = min(t_s, max(0.0, video.duration_s - 0.05))
        key = (video.id, signature(video.path), round(t_s, 3))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        data = _encode(video, t_s)
        with self._lock:
            self._cache[key] = data
            while len(self._cache) > self.keep:
                self._cache.popitem(last=False)
        return data


def _encode(video: Video, t_s: float) -> bytes:
    from PIL import Image

    from ..video import frames_at

    frame = frames_at(video.path, [t_s], short_side=THUMB_SIDE).frames[0]
    out = io.BytesIO()
    Image.fromarray(frame).save(out, format="JPEG", quality=80)
    return out.getvalue()
