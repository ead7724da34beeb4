"""Wavelet denoising of 1-D curves (similarity and motion signals).

Universal-threshold shrinkage (Donoho and Johnstone): the noise level comes from the median
absolute deviation of the finest detail coefficients, the threshold is sigma * sqrt(2 ln n), and
only detail coefficients are thresholded, so slow trends and the mean survive.
"""

from __future__ import annotations

import numpy as np

from ...errors import require

MODES = ("soft", "hard")


def wavelet_denoise(
    signal: np.ndarray,
    mode: str = "soft",
    wavelet: str = "db4",
    level: int | None = None,
    noise_sigma: float | None = None,
) -> np.ndarray:
    """Denoise a curve by thresholding its wavelet detail coefficients.

    Soft thresholding shrinks every coefficient (smooth result); hard thresholding keeps the
    large ones untouched, which preserves abrupt steps better.

    Args:
        signal: `(T,)` float curve.
        mode: "soft" or "hard".
        wavelet: a PyWavelets wavelet name; Daubechies-4 ("db4") by default.
        level: decomposition depth; default the deepest level the length allows.
        noise_sigma: the noise level, when known; default estimated from the finest detail
            coefficients (which assumes changes are sparse, see `plateau_noise`).

    Returns:
        `(T,)` float64, the denoised curve. Curves too short to decompose come back unchanged.

    >>> t = np.r_[np.ones(32), np.zeros(32)] + 0.01 * np.sin(np.arange(64) * 3.0)
    >>> out = wavelet_denoise(t, "hard")
    >>> out.shape, bool(abs(out[:28].mean() - 1) < 0.02), bool(abs(out[36:].mean()) < 0.02)
    ((64,), True, True)
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    pywt = require("pywt", "agent")
    x = np.asarray(signal, dtype=np.float64).reshape(-1)
    max_level = pywt.dwt_max_level(len(x), pywt.Wavelet(wavelet).dec_len)
    depth = max_level if level is None else min(level, max_level)
    if depth < 1:
        return x.copy()
    coeffs = pywt.wavedec(x, wavelet, mode="symmetric", level=depth)
    sigma = np.median(np.abs(coeffs[-1])) / 0.6745 if noise_sigma is None else noise_sigma
    threshold = sigma * np.sqrt(2.0 * np.log(len(x)))
    if threshold <= 0:
        return x.copy()
    details = [pywt.threshold(c, threshold, mode=mode) for c in coeffs[1:]]
    return pywt.waverec([coeffs[0], *details], wavelet, mode="symmetric")[: len(x)]


def plateau_noise(curve: np.ndarray, plateau: np.ndarray) -> float | None:
    """Noise level of a curve measured only where it is flat (`plateau` True).

    The universal threshold's usual noise estimate (MAD of the finest wavelet coefficients)
    assumes the changes are sparse. A video cut every few samples breaks that assumption: the
    cuts themselves then set the threshold and soft thresholding erases them. Measuring the
    noise from sample-to-sample differences inside plateaus avoids it.

    Args:
        curve: `(T,)` values.
        plateau: `(T,)` bool, the samples to measure on.

    Returns:
        The noise standard deviation, or None with fewer than 8 plateau differences.

    >>> rng = np.random.default_rng(0)
    >>> c = 0.95 + 0.01 * rng.normal(size=400); c[::5] = 0.3
    >>> round(plateau_noise(c, c > 0.8), 2)
    0.01
    """
    x = np.asarray(curve, dtype=np.float64)
    flat = np.asarray(plateau, bool)
    steps = np.diff(x)[flat[1:] & flat[:-1]]
    if steps.size < 8:
        return None
    return float(np.median(np.abs(steps - np.median(steps))) / 0.6745 / np.sqrt(2.0))
