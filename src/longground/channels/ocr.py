"""The on-screen-text channel: rapidocr (PP-OCRv4 ONNX from its wheel) run only on frames
where the picture changed since the last frame read (slides, captions and scoreboards stay
still for seconds)."""

from __future__ import annotations

import numpy as np

from ..errors import require

THUMB = (320, 180)  # width, height of the thumbnail two frames are compared on
CHANGED_LEVEL = 32  # grey levels a thumbnail pixel must move by to count as changed
CHANGED_SHARE = 0.0003  # share of changed pixels that makes a new picture (a score digit)
MIN_CONFIDENCE = 0.6  # rapidocr's line score below which a line is dropped
MAX_LINES = 40  # more lines than this on one frame is texture or noise, not text
#: rapidocr scales a frame up until its shorter side has this many pixels before detecting
#: text (its default, 736, made a 270-pixel frame 7x the pixels and read no more text).
DETECT_SIDE = 480
#: ONNX Runtime threads per OCR model: one, since its idle threads spin on a busy CPU (1.5x
#: the CPU for the same text measured on 2 cores) and speech runs alongside the frame pass.
THREADS = 1


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """A small grey `(180, 320)` int16 copy of an `(H, W, 3)` uint8 frame for change checks."""
    cv2 = require("cv2", "channels")
    grey = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
    return cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA).astype(np.int16)


def changed(before: np.ndarray | None, after: np.ndarray) -> bool:
    """True when thumbnail `after` differs from `before` by more than a few pixels.

    >>> a = np.zeros((180, 320), np.int16); b = a.copy(); b[40:45, 70:75] = 200
    >>> changed(None, a), changed(a, a), changed(a, b)
    (True, False, True)
    """
    if before is None:
        return True
    moved = np.abs(after - before) > CHANGED_LEVEL
    return bool(moved.mean() > CHANGED_SHARE)


class TextReader:
    """rapidocr with its packaged models; `read(frame)` -> `[(text, confidence), ...]`."""

    def __init__(self):
        module = require("rapidocr_onnxruntime", "channels")
        self._ocr = module.RapidOCR(det_limit_side_len=DETECT_SIDE, intra_op_num_threads=THREADS,
                                    inter_op_num_threads=THREADS)  # fmt: skip

    def read(self, frame: np.ndarray) -> list[tuple[str, float]]:
        """The text lines of an `(H, W, 3)` uint8 RGB frame, top to bottom."""
        bgr = np.ascontiguousarray(frame[..., ::-1])
        result, _ = self._ocr(bgr, use_cls=False)
        if not result:
            return []
        lines = [(str(text).strip(), float(score)) for _box, text, score in result]
        lines = [(t, s) for t, s in lines if t and s >= MIN_CONFIDENCE]
        return [] if len(lines) > MAX_LINES else lines
