"""Boxes of ImageNet-class targets from class activation maps of the label bridge's classifier.

EfficientNet-Lite0 is fully convolutional up to its last layer, so the final layer can be
applied to each cell of the last feature map (`EfficientNetLite0.location_logits`): a
softmax over the 1000 classes per cell gives, for the classes a query names
(`class_words.named_classes`), the probability that the cell shows one of them. The whole
frame goes in (shorter side `side_px`, no centre crop), and

- a frame shows the target when some cell gives the named classes at least `PRESENT_P`
  (the whole frame's pooled probability is diluted by the backdrop: on a 3-minute generated
  video it missed every grey cat, whose cells read 1.0);
- the map is upsampled (bilinear) and cut at `FRACTION` of its peak; each connected region is
  a box, scored by its peak probability.

Nothing here knows the backdrop: a cell counts by what the classifier reads in it. The
constants were read off one generated 3-minute video (docs/tracks.md has the numbers): peak
cell probability on frames with the object 0.96-1.0 (motorcycle, cat; the rocket's median
0.43), without it at most 0.009 (0.44 once for the cat). Inside an object the cells read
close to 1, so half the peak is where the object's cells end; 224 px (7 cells) costs half
of 320 px (10 cells) for a box 0.63 instead of 0.74 IoU on the cat photo of the tests.

The network runs through ONNX Runtime when it is installed (an export per frame shape,
cached with the encoders' exports; the logits match torch's to 3e-5): on the loaded 2-core
machine 100 ms a 224 x 398 frame against torch's 294.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from ..encoders.class_words import named_classes
from ..errors import require
from .detections import Detections

SIDE_PX = 224  # the frame's shorter side as the network sees it (7 cells)
FRACTION = 0.5  # a cell is in the object where its probability is at least this of the peak
UPSAMPLE = 8  # map cells are split this many times each way before cutting
PRESENT_P = 0.1  # the peak cell probability of a frame that shows the target
BATCH = 4
MEAN = np.array([0.485, 0.456, 0.406], np.float32) * 255
STD = np.array([0.229, 0.224, 0.225], np.float32) * 255


def region_boxes(prob: np.ndarray, fraction: float = FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """Boxes of the regions of a probability map at or above `fraction` of its peak.

    Args:
        prob: `(h, w)` probabilities over the frame's cells.
        fraction: the cut, relative to the peak.

    Returns:
        `(K, 4)` normalised xyxy boxes (a cell spans `1/w` by `1/h`) and `(K,)` peak
        probabilities, highest first.

    >>> p = np.zeros((4, 8)); p[1:3, 5:7] = 0.9; p[0, 0] = 0.2
    >>> boxes, scores = region_boxes(p)
    >>> boxes.tolist(), scores.tolist()
    ([[0.625, 0.25, 0.875, 0.75]], [0.9])
    """
    peak = float(prob.max()) if prob.size else 0.0
    if peak <= 0:
        return np.zeros((0, 4)), np.zeros(0)
    labels, n = ndimage.label(prob >= fraction * peak)
    spans = ndimage.find_objects(labels)
    h, w = prob.shape
    boxes = np.array(
        [[s[1].start / w, s[0].start / h, s[1].stop / w, s[0].stop / h] for s in spans]
    )
    scores = np.asarray(ndimage.maximum(prob, labels, np.arange(1, n + 1)), dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    return boxes.reshape(-1, 4)[order], scores[order]


def class_probability(logits: np.ndarray, classes: tuple[int, ...]) -> np.ndarray:
    """Per-cell probability of any of `classes`: `(N, 1000, h, w)` logits -> `(N, h, w)`.

    >>> logits = np.zeros((1, 3, 1, 2)); logits[0, 2, 0, 1] = 10.0
    >>> class_probability(logits, (2,)).round(3).tolist()
    [[[0.333, 1.0]]]
    """
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted[:, list(classes)].sum(axis=1) / shifted.sum(axis=1)


class CamLocaliser:
    """Boxes of targets that name ImageNet classes ("a dog", "the cars", "a motorcycle").

    Args:
        side_px: the frames' shorter side as the network sees them.
        fraction: the cut of the class map, relative to its peak.
    """

    name = "cam"

    def __init__(self, side_px: int = SIDE_PX, fraction: float = FRACTION):
        self.side_px, self.fraction = side_px, fraction
        self._net = None
        self._runners: dict[tuple[int, int], object] = {}

    def accepts(self, target: str) -> bool:
        return bool(named_classes(target))

    def decode_side(self, target: str) -> int:
        """The shorter side, in pixels, to decode frames at (the network's view)."""
        return self.side_px

    def location_logits(self, frames: np.ndarray) -> np.ndarray:
        """`(N, 1000, h, w)` float32 class logits per cell of whole `(N, H, W, 3)` frames.
        Frames already at the network's size (`decode_side`, as the tracks step decodes
        them) go in as they are; others are resized (bilinear, antialiased when shrunk)."""
        out = []
        for start in range(0, len(frames), BATCH):
            x = ((frames[start : start + BATCH] - MEAN) / STD).astype(np.float32)
            x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
            scale = self.side_px / min(x.shape[-2:])
            size = (round(x.shape[-2] * scale), round(x.shape[-1] * scale))
            if size != x.shape[-2:]:
                x = _resized(x, size, antialias=scale < 1)
            out.append(self._runner(size)(x))
        return np.concatenate(out) if out else np.zeros((0, 1000, 1, 1), np.float32)

    def _runner(self, size: tuple[int, int]):
        """`(N, 3, H, W)` torch tensor -> `(N, 1000, h, w)` logits: ONNX Runtime's session
        for frames of this size when it is installed, else the torch network."""
        if size not in self._runners:
            self._runners[size] = _onnx_runner(size) or self._torch_runner
        return self._runners[size]

    def _torch_runner(self, x: np.ndarray) -> np.ndarray:
        import torch

        if self._net is None:
            from ..encoders.efficientnet_lite import load_efficientnet_lite0

            self._net = load_efficientnet_lite0()
        with torch.inference_mode():
            x = torch.from_numpy(x).contiguous(memory_format=torch.channels_last)
            return self._net.location_logits(x).numpy()

    def __call__(self, frames: np.ndarray, target: str) -> Detections:
        """Boxes of `target` in each of `(N, H, W, 3)` uint8 RGB frames."""
        classes = named_classes(target)
        maps = class_probability(self.location_logits(frames), classes)
        parts = []
        for k in range(len(frames)):
            if maps[k].max() < PRESENT_P:
                parts.append(Detections.empty())
                continue
            fine = maps[k].repeat(UPSAMPLE, axis=0).repeat(UPSAMPLE, axis=1)
            boxes, scores = region_boxes(_smooth(fine, UPSAMPLE), self.fraction)
            scores = np.clip(scores, 0.0, 1.0)  # the smoothing may round a hair above 1
            parts.append(Detections(boxes, scores, np.zeros(len(scores), np.int64)))
        return Detections.joined(parts)


def _onnx_runner(size: tuple[int, int]):
    """The class-map network for `(H, W)` inputs in ONNX Runtime, or None without it."""
    from ..encoders import onnx_net

    if not onnx_net.onnx_available():
        return None
    from ..encoders.lite0_weights import packaged_weights

    def make_net():  # only when the export is not cached yet
        import torch

        from ..encoders.efficientnet_lite import load_efficientnet_lite0

        class Locations(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = load_efficientnet_lite0()

            def forward(self, x):
                return self.net.location_logits(x)

        return Locations().eval()

    net = onnx_net.cached_onnx_net(make_net, packaged_weights(), "efficientnet-lite0-locations",
                                   size, ("logits",))  # fmt: skip
    return lambda x: net(x)[0]


def _resized(x: np.ndarray, size: tuple[int, int], antialias: bool) -> np.ndarray:
    """`(N, 3, H, W)` float32 images resized to `size` as torch's bilinear interpolation does."""
    torch = require("torch", "labelbridge")
    resized = torch.nn.functional.interpolate(
        torch.from_numpy(x), size=size, mode="bilinear", align_corners=False, antialias=antialias
    )
    return resized.numpy()


def _smooth(fine: np.ndarray, cell: int) -> np.ndarray:
    """A blocky upsampled map made bilinear (a box filter one cell wide)."""
    return ndimage.uniform_filter(fine, size=cell, mode="nearest")
