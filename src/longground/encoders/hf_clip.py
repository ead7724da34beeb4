"""`hf:REPO_OR_PATH`: a CLIP or SigLIP checkpoint in Hugging Face transformers format.

The model class comes from the checkpoint's `config.json` (`model_type`), looked up in
`HF_MODEL_TYPES`. Images go through the checkpoint's own image processor (the PIL/numpy one; no
torchvision needed), texts through its tokenizer. `score` is the cosine for CLIP and the model's
own match probability for SigLIP (see `contrastive`). A local folder is loaded with
`local_files_only=True`; a repo id is resolved by huggingface_hub, which honours
`HF_HUB_OFFLINE=1` (only already-downloaded weights are used then).
"""

from __future__ import annotations

from dataclasses import dataclass
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
from .preprocess import encode_in_batches, l2_normalize


@dataclass(frozen=True)
class HFModelType:
    """How to run one transformers model family.

    Attributes:
        model_class: the class name in `transformers`.
        text_padding: "max_length" for models trained on fixed-length text (SigLIP), else
            "longest".
        sigmoid_score: score with the model's match probability (needs `logit_bias`).
        default_threshold: the score meaning "present".
    """

    model_class: str
    text_padding: str
    sigmoid_score: bool
    default_threshold: float


HF_MODEL_TYPES: dict[str, HFModelType] = {
    "clip": HFModelType("CLIPModel", "longest", False, CLIP_COSINE_THRESHOLD),
    "siglip": HFModelType("SiglipModel", "max_length", True, PROBABILITY_THRESHOLD),
}


class HFImageTextEncoder(ImageTextEncoder):
    """A transformers dual encoder: CLIP (score = cosine) or SigLIP (score = match probability).

    Args:
        source: a local folder or a Hub repo id.
        batch_size: frames per forward pass.
        device: where the model runs (half precision on a GPU, which adds the dtype to
            `encoder_id`).
    """

    def __init__(self, source: str, batch_size: int = 32, device: Device = Device()):
        from longground.errors import UserError, require

        transformers = require("transformers", "clip")
        require("torch", "clip")
        local = Path(source).expanduser().is_dir()
        if not local and source.startswith(("/", ".", "~", "\\")):
            raise UserError(f"hf:{source}: no such model folder")
        kwargs = {"local_files_only": True} if local else {}
        location = str(Path(source).expanduser()) if local else source
        try:
            config = transformers.AutoConfig.from_pretrained(location, **kwargs)
            family = HF_MODEL_TYPES.get(config.model_type)
            if family is None:
                known = ", ".join(sorted(HF_MODEL_TYPES))
                raise UserError(f"hf:{source}: model type {config.model_type!r}; known: {known}")
            model_class = getattr(transformers, family.model_class)
            self.model = model_class.from_pretrained(location, **kwargs).eval()
            self.processor = transformers.AutoImageProcessor.from_pretrained(location, **kwargs)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(location, **kwargs)
        except (OSError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UserError(f"hf:{source}: cannot load the model ({reason})") from exc
        self.family = family
        self.default_threshold = family.default_threshold
        self.dim = int(getattr(config, "projection_dim", 0) or config.text_config.hidden_size)
        self.max_text_tokens = config.text_config.max_position_embeddings
        self.batch_size, self.device = batch_size, device
        self.model = place_module(self.model, device)
        self.input_size = int(getattr(config.vision_config, "image_size", 224))
        version = files_fingerprint(Path(location)) if local else (config._commit_hash or "hub")
        self.encoder_id = f"hf:{location}@{version}{device.id_suffix}"

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        def embed(pixels):
            pixels = to_device(pixels, self.device)
            return _as_features(self.model.get_image_features(pixel_values=pixels))

        return encode_in_batches(frames, self.processor, embed, self.batch_size, self.dim)

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, self.dim), np.float32)
        tokens = self.tokenizer(
            list(texts),
            padding=self.family.text_padding,
            truncation=True,
            max_length=self.max_text_tokens,
            return_tensors="pt",
        )
        tokens = {name: to_device(value, self.device) for name, value in tokens.items()}
        with torch.inference_mode():
            features = self.model.get_text_features(**tokens)
        return l2_normalize(_as_features(features))

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Cosine (CLIP) or match probability (SigLIP) of each frame for `text`: `(N,)`."""
        cosines = features["embedding"] @ self.encode_texts([check_query(text)])[0]
        if not self.family.sigmoid_score:
            return cosines.astype(np.float32)
        scale, bias = self.model.logit_scale.item(), self.model.logit_bias.item()
        return match_probability(cosines, scale, bias)


def _as_features(output) -> np.ndarray:
    """transformers 5 returns a model output with the projected embedding as `pooler_output`;
    earlier versions return the tensor itself."""
    tensor = output if hasattr(output, "numpy") else output.pooler_output
    return tensor.float().cpu().numpy()


@register_encoder("hf")
def _make(arg: str, device: Device = Device(), batch_size: int = 32) -> HFImageTextEncoder:
    """`hf:REPO_OR_PATH`."""
    from longground.errors import UserError

    if not arg:
        raise UserError("hf: needs a model folder or repo id, e.g. hf:/models/clip-vit-base")
    return HFImageTextEncoder(arg, batch_size, device)
