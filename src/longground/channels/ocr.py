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
#: Frames are scaled up until their shorter side has this many pixels before OCR (rapidocr's
#: own default, 736, made a 270-pixel frame 7x the pixels and read no more text; 480 took twice
#: the detector's CPU of 360 on `synth --av` frames and the benchmark read the same answers).
DETECT_SIDE = 360
#: Where only a band of rows changed (a caption, a score), only that band is read, grown by
#: this share of the frame's height above and below; a band taller than FULL_READ_SHARE of
#: the frame is read whole.
BAND_MARGIN, FULL_READ_SHARE = 0.04, 0.6
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


def changed_band(before: np.ndarray | None, after: np.ndarray) -> tuple[float, float] | None:
    """The rows where thumbnail `after` differs from `before`, as `(top, bottom)` shares of
    the height, when it differs (as `changed` decides); `(0, 1)` when there is no `before`.

    >>> a = np.zeros((180, 320), np.int16); b = a.copy(); b[45:90, 70:75] = 200
    >>> changed_band(None, a), changed_band(a, a), changed_band(a, b)
    ((0.0, 1.0), None, (0.25, 0.5))
    """
    if before is None:
        return 0.0, 1.0
    moved = np.abs(after - before) > CHANGED_LEVEL
    if moved.mean() <= CHANGED_SHARE:
        return None
    rows = np.flatnonzero(moved.any(axis=1))
    return float(rows[0] / len(moved)), float((rows[-1] + 1) / len(moved))


class TextReader:
    """rapidocr with its packaged models; `read(frame)` -> `[(text, confidence), ...]`."""

    def __init__(self):
        module = require("rapidocr_onnxruntime", "channels")
        # Frames arrive already scaled (`read`), so the detector only rounds to its grid.
        self._ocr = module.RapidOCR(det_limit_type="max", det_limit_side_len=4000,
                                    intra_op_num_threads=THREADS,
                                    inter_op_num_threads=THREADS)  # fmt: skip
        self._cv2 = require("cv2", "channels")

    def read(
        self, frame: np.ndarray, top: int = 0, bottom: int | None = None
    ) -> list[tuple[str, float, tuple[int, int]]]:
        """The text lines of rows `top:bottom` of an `(H, W, 3)` uint8 RGB frame, scaled as
        the whole frame would be: `[(text, confidence, (line_top, line_bottom)), ...]`, the
        line's rows in pixels of `frame`."""
        scale = max(1.0, DETECT_SIDE / min(frame.shape[:2]))
        band = frame[top:bottom]
        if scale > 1.0:
            size = (round(band.shape[1] * scale), round(band.shape[0] * scale))
            band = self._cv2.resize(band, size, interpolation=self._cv2.INTER_LINEAR)
        result, _ = self._ocr(np.ascontiguousarray(band[..., ::-1]), use_cls=False)
        lines = []
        for box, text, score in result or []:
            ys = [point[1] for point in box]
            rows = (top + int(min(ys) / scale), top + int(np.ceil(max(ys) / scale)))
            lines.append((str(text).strip(), float(score), rows))
        lines = [line for line in lines if line[0] and line[1] >= MIN_CONFIDENCE]
        return [] if len(lines) > MAX_LINES else lines
