"""Frame preprocessing shared by the torch encoders: resize, centre crop, normalise, L2 rows.

Done in torch rather than torchvision, which is not a dependency.
"""

from __future__ import annotations

import numpy as np

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def check_frames(frames: np.ndarray) -> np.ndarray:
    """Validate a frame batch: `(N, H, W, 3)` uint8 RGB, returned unchanged.

    >>> check_frames(np.zeros((2, 4, 4, 3), np.uint8)).shape
    (2, 4, 4, 3)
    """
    from longground.errors import UserError

    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8:
        raise UserError(f"frames must be (N, H, W, 3) uint8 RGB, got {frames.shape} {frames.dtype}")
    return frames


def to_model_input(
    frames: np.ndarray,
    size: int = 224,
    mean: tuple[float, float, float] = IMAGENET_MEAN,
    std: tuple[float, float, float] = IMAGENET_STD,
    interpolation: str = "bilinear",
    squash: bool = False,
):
    """Resize the shorter side to `size`, centre-crop `size x size`, scale to [0, 1], normalise.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        size: output side in pixels.
        mean, std: per-channel normalisation, applied after dividing by 255.
        interpolation: "bilinear" or "bicubic" (antialiased when shrinking).
        squash: resize straight to `size x size` (no crop, aspect ratio not kept).

    Returns:
        `(N, 3, size, size)` float32 torch tensor, contiguous (`.numpy()` is ready for ONNX
        Runtime; a torch network that prefers channels-last converts it itself).

    >>> x = to_model_input(np.full((2, 240, 320, 3), 255, np.uint8))
    >>> tuple(x.shape), round(float(x[0, 0, 0, 0]), 3)
    ((2, 3, 224, 224), 2.249)
    """
    import torch
    import torch.nn.functional as F

    frames = check_frames(frames)
    height, width = frames.shape[1:3]
    new_h, new_w = (size, size) if squash else resized_shape(height, width, size)
    mean_255 = np.float32(255.0) * np.asarray(mean, np.float32)
    std_255 = np.float32(255.0) * np.asarray(std, np.float32)
    if (new_h, new_w) == (height, width):
        return torch.from_numpy(crop_normalise(frames, size, mean_255, std_255))
    x = torch.tensor(frames).permute(0, 3, 1, 2).float()
    shrink = new_h < height or new_w < width
    x = F.interpolate(
        x, size=(new_h, new_w), mode=interpolation, antialias=shrink, align_corners=False
    ).clamp_(0.0, 255.0)
    top, left = (new_h - size) // 2, (new_w - size) // 2
    x = x[:, :, top : top + size, left : left + size]
    x = (x - torch.from_numpy(mean_255).view(1, 3, 1, 1)) / torch.from_numpy(std_255).view(
        1, 3, 1, 1
    )
    return x.contiguous()


def resized_shape(height: int, width: int, size: int) -> tuple[int, int]:
    """`(new_h, new_w)` with the shorter side at `size` and the aspect ratio kept (each side
    at least `size`), before the centre crop.

    >>> resized_shape(240, 320, 224)
    (224, 299)
    """
    scale = size / min(height, width)
    return max(size, round(height * scale)), max(size, round(width * scale))


def crop_normalise(
    frames: np.ndarray, size: int, mean_255: np.ndarray, std_255: np.ndarray
) -> np.ndarray:
    """Centre `size x size` crop of `(N, H, W, 3)` uint8 frames, normalised to `(N, 3, size,
    size)` float32 in numpy: the same float32 values as the torch path, at a quarter of its
    CPU time (no float copy of the uncropped frame, no torch thread pool), which matters when
    the frames already come at the encoder's size (the index decodes them so)."""
    height, width = frames.shape[1:3]
    top, left = (height - size) // 2, (width - size) // 2
    crop = frames[:, top : top + size, left : left + size]
    out = np.empty((len(frames), 3, size, size), np.float32)
    for channel in range(3):
        np.subtract(crop[..., channel], mean_255[channel], out=out[:, channel], dtype=np.float32)
        out[:, channel] /= std_255[channel]
    return out


def l2_normalize(x: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Scale each row to unit L2 norm; all-zero rows stay zero. Returns float32.

    >>> l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(norms, eps)


def encode_in_batches(
    frames: np.ndarray, processor, embed, batch_size: int, dim: int
) -> np.ndarray:
    """Frames through a transformers image processor and `embed(pixel_values)`, a batch at a
    time, without gradients.

    Args:
        frames: `(N, H, W, 3)` uint8 RGB.
        processor: a transformers image processor (resizes, crops, normalises).
        embed: pixel values `(B, 3, S, S)` tensor -> `(B, dim)` numpy float32 features.
        batch_size: frames per forward pass.
        dim: feature size, for the shape of an empty result.

    Returns:
        `(N, dim)` float32, L2-normalised rows.
    """
    import torch

    frames = check_frames(frames)
    out = [np.zeros((0, dim), np.float32)]
    with torch.inference_mode():
        for start in range(0, len(frames), batch_size):
            batch = list(frames[start : start + batch_size])
            pixels = processor(images=batch, return_tensors="pt")["pixel_values"]
            out.append(embed(pixels))
    return l2_normalize(np.concatenate(out))
