"""Frame preprocessing in numpy: the same numbers as `preprocess.to_model_input`, without torch.

label-bridge's ONNX path runs on numpy alone, so the process never imports torch (about
200 MB of resident memory). Each axis is resized by a `(out, in)` weight matrix that
reproduces torch's `F.interpolate(mode="bilinear", align_corners=False)`: the plain
two-tap bilinear weights when enlarging, and, with `antialias=True`, the triangle filter
widened by the shrink factor (torch's `_upsample_bilinear2d_aa`, the PIL algorithm). Only
the rows and columns the centre crop keeps are computed. A test holds the result against
`to_model_input` to float32 rounding.
"""

from __future__ import annotations

import numpy as np

from .preprocess import IMAGENET_MEAN, IMAGENET_STD, check_frames, crop_normalise, resized_shape


def bilinear_weights(n_in: int, n_out: int, antialias: bool) -> np.ndarray:
    """`(n_out, n_in)` float64 resampling weights of one axis, rows summing to 1.

    >>> bilinear_weights(2, 4, antialias=False).round(2).tolist()
    [[1.0, 0.0], [0.75, 0.25], [0.25, 0.75], [0.0, 1.0]]
    >>> bilinear_weights(4, 2, antialias=True).round(3).tolist()
    [[0.429, 0.429, 0.143, 0.0], [0.0, 0.143, 0.429, 0.429]]
    """
    scale = n_in / n_out
    out = np.zeros((n_out, n_in))
    if antialias:
        support = max(scale, 1.0)
        inv = 1.0 / scale if scale > 1.0 else 1.0
        for i in range(n_out):
            centre = scale * (i + 0.5)
            lo = max(int(centre - support + 0.5), 0)
            hi = min(int(centre + support + 0.5), n_in)
            taps = np.arange(lo, hi)
            w = np.clip(1.0 - np.abs((taps - centre + 0.5) * inv), 0.0, None)
            out[i, lo:hi] = w / w.sum() if w.sum() > 0 else 0.0
        return out
    src = np.maximum((np.arange(n_out) + 0.5) * scale - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(int), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    rows = np.arange(n_out)
    np.add.at(out, (rows, lo), 1.0 - frac)
    np.add.at(out, (rows, hi), frac)
    return out


def to_model_input_np(
    frames: np.ndarray,
    size: int = 224,
    mean: tuple[float, float, float] = IMAGENET_MEAN,
    std: tuple[float, float, float] = IMAGENET_STD,
) -> np.ndarray:
    """Shorter side to `size` (bilinear, antialiased when shrinking), centre crop, normalise.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        size: output side in pixels.
        mean, std: per-channel normalisation, applied after dividing by 255.

    Returns:
        `(N, 3, size, size)` float32, C-contiguous: what `to_model_input(...).numpy()` gives.

    >>> x = to_model_input_np(np.full((2, 240, 320, 3), 255, np.uint8))
    >>> x.shape, round(float(x[0, 0, 0, 0]), 3)
    ((2, 3, 224, 224), 2.249)
    """
    frames = check_frames(frames)
    height, width = frames.shape[1:3]
    new_h, new_w = resized_shape(height, width, size)
    mean_255 = np.float32(255.0) * np.asarray(mean, np.float32)
    std_255 = np.float32(255.0) * np.asarray(std, np.float32)
    if (new_h, new_w) == (height, width):  # already at size (the index decodes at it)
        return crop_normalise(frames, size, mean_255, std_255)
    top, left = (new_h - size) // 2, (new_w - size) // 2
    shrink = new_h < height or new_w < width
    rows = bilinear_weights(height, new_h, shrink)[top : top + size].astype(np.float32)
    cols = bilinear_weights(width, new_w, shrink)[left : left + size].astype(np.float32)
    x = np.tensordot(frames.astype(np.float32), rows, axes=([1], [1]))  # (N, W, 3, size)
    x = np.tensordot(x, cols, axes=([1], [1]))  # (N, 3, size, size)
    np.clip(x, 0.0, 255.0, out=x)
    x -= mean_255.reshape(1, 3, 1, 1)
    x /= std_255.reshape(1, 3, 1, 1)
    return np.ascontiguousarray(x, dtype=np.float32)
