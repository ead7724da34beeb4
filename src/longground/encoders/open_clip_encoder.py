"""`open_clip:ARCH/PRETRAINED_OR_PATH`: an OpenCLIP model (package `open-clip-torch`).

ARCH is an OpenCLIP model name ("ViT-B-32"); PRETRAINED is one of its pretrained tags
("laion2b_s34b_b79k", resolved through the Hugging Face cache, so it must already be downloaded
when `HF_HUB_OFFLINE=1`) or a local checkpoint file. `open_clip:hf-hub:ORG/REPO` is passed to
OpenCLIP whole. Frames are preprocessed in torch with the model's own size, mean, std and
resize mode. `score` is the cosine, or the match probability for models with a learned logit
bias (SigLIP); see `contrastive`.

open-clip-torch 3.x imports torchvision at import time, which longground does not install;
without it this encoder reports the missing extra.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..device import Device, place_module, to_device
from .base import ImageTextEncoder, register_encoder
from .contrastive import (
    CLIP_COSINE_THRESHOLD,
    PROBABILITY_THRESHOLD,
    check_query,
    match_probability,
)
from .disk_cache import files_fingerprint
from .preprocess import check_frames, l2_normalize, to_model_input


def parse_open_clip_arg(arg: str) -> tuple[str, str | None]:
    """Split "ARCH/PRETRAINED" into (arch, pretrained or None).

    >>> parse_open_clip_arg("ViT-B-32//models/vit.bin")
    ('ViT-B-32', '/models/vit.bin')
    >>> parse_open_clip_arg("hf-hub:laion/CLIP-ViT-B-32-laion2B-s34B-b79K")
    ('hf-hub:laion/CLIP-ViT-B-32-laion2B-s34B-b79K', None)
    """
    if arg.startswith("hf-hub:"):
        return arg, None
    arch, _, pretrained = arg.partition("/")
    return arch, pretrained or None


class OpenCLIPEncoder(ImageTextEncoder):
    """An OpenCLIP model: score = cosine, or match probability for SigLIP-style models.

    Args:
        arch: OpenCLIP model name.
        pretrained: pretrained tag or checkpoint path; None for the hf-hub form.
        batch_size: frames per forward pass.
        device: where the model runs (half precision on a GPU, noted in `encoder_id`).
    """

    def __init__(
        self, arch: str, pretrained: str | None, batch_size: int = 32, device: Device = Device()
    ):
        from longground.errors import UserError

        try:
            import open_clip
        except ImportError as exc:  # open-clip-torch itself, or torchvision, which it imports
            raise UserError(
                f"open_clip:{arch}: cannot import open_clip ({exc}); install it with "
                "pip install 'longground[openclip]' torchvision"
            ) from exc
        try:
            model, _, _ = open_clip.create_model_and_transforms(
                arch, pretrained=pretrained, device="cpu"
            )
        except (RuntimeError, OSError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UserError(f"open_clip:{arch}/{pretrained}: cannot load ({reason})") from exc
        self.model, self.device = place_module(model.eval(), device), device
        self.tokenizer = open_clip.get_tokenizer(arch)
        cfg = open_clip.get_model_preprocess_cfg(model)
        size = cfg["size"]
        self.size = int(size if isinstance(size, int) else size[0])
        self.input_size = self.size
        self.mean = tuple(cfg.get("mean", open_clip.OPENAI_DATASET_MEAN))
        self.std = tuple(cfg.get("std", open_clip.OPENAI_DATASET_STD))
        self.interpolation = cfg.get("interpolation", "bicubic")
        self.squash = cfg.get("resize_mode", "shortest") == "squash"
        self.batch_size = batch_size
        self.sigmoid_score = getattr(model, "logit_bias", None) is not None
        self.default_threshold = (
            PROBABILITY_THRESHOLD if self.sigmoid_score else CLIP_COSINE_THRESHOLD
        )
        local = pretrained is not None and Path(pretrained).expanduser().exists()
        version = files_fingerprint(Path(pretrained).expanduser()) if local else pretrained
        self.encoder_id = f"open_clip-{open_clip.__version__}:{arch}/{version}{device.id_suffix}"
        self.dim = int(self.encode_texts(["a"]).shape[1])

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        import torch

        frames = check_frames(frames)
        out = [np.zeros((0, self.dim), np.float32)]
        with torch.inference_mode():
            for start in range(0, len(frames), self.batch_size):
                x = to_model_input(
                    frames[start : start + self.batch_size],
                    size=self.size,
                    mean=self.mean,
                    std=self.std,
                    interpolation=self.interpolation,
                    squash=self.squash,
                )
                x = to_device(x, self.device)
                out.append(self.model.encode_image(x).float().cpu().numpy())
        return l2_normalize(np.concatenate(out))

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with torch.inference_mode():
            tokens = to_device(self.tokenizer(list(texts)), self.device)
            features = self.model.encode_text(tokens)
        return l2_normalize(features.float().cpu().numpy())

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Cosine, or match probability for SigLIP-style models, per frame: `(N,)`."""
        cosines = features["embedding"] @ self.encode_texts([check_query(text)])[0]
        if not self.sigmoid_score:
            return cosines.astype(np.float32)
        scale, bias = self.model.logit_scale.item(), self.model.logit_bias.item()
        return match_probability(cosines, scale, bias)


@register_encoder("open_clip")
def _make(arg: str, device: Device = Device(), batch_size: int = 32) -> OpenCLIPEncoder:
    """`open_clip:ARCH/PRETRAINED_OR_PATH`."""
    from longground.errors import UserError

    arch, pretrained = parse_open_clip_arg(arg)
    if not arch:
        raise UserError("open_clip: needs ARCH/PRETRAINED, e.g. open_clip:ViT-B-32/openai")
    return OpenCLIPEncoder(arch, pretrained, batch_size, device)
