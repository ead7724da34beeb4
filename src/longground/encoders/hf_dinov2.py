"""Frame feature extractors for the agent's graph: a DINOv2 checkpoint, or any encoder.

CoMET segments events on DINOv2 features (App. C.2, App. D) and weighs edges with a separate
video embedding model. `load_feature_encoder("hf:PATH")` gives a `Dinov2Encoder` when the
checkpoint's `config.json` says `model_type: dinov2` (transformers `Dinov2Model`, the CLS token
of the last layer, L2-normalised), and the registered encoder for every other spec. A
`Dinov2Encoder` has no text tower: it fills the feature index like any encoder, but cannot
score a query.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np

from ..device import Device, place_module, resolve_device, to_device
from ..errors import UserError, require
from .base import ImageTextEncoder
from .disk_cache import files_fingerprint
from .load import load_encoder, parse_spec
from .preprocess import encode_in_batches

# transformers model types whose frames give an appearance feature through `hf:`.
IMAGE_TEXT_TYPES = ("clip", "siglip")

_LOADED: dict[str, Dinov2Encoder] = {}
_LOCK = threading.Lock()


class Dinov2Encoder(ImageTextEncoder):
    """`hf:PATH` of a DINOv2 checkpoint: `(N, D)` CLS features as "embedding" and "appearance".

    Args:
        source: a local folder or a Hub repo id holding a `Dinov2Model`.
        batch_size: frames per forward pass.
        device: where the model runs (half precision on a GPU, noted in `encoder_id`).
    """

    def __init__(self, source: str, batch_size: int = 32, device: Device = Device()):
        transformers = require("transformers", "clip")
        require("torch", "clip")
        location, kwargs = _location(source)
        try:
            self.model = transformers.Dinov2Model.from_pretrained(location, **kwargs).eval()
            self.processor = transformers.AutoImageProcessor.from_pretrained(location, **kwargs)
        except (OSError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UserError(f"hf:{source}: cannot load the DINOv2 model ({reason})") from exc
        self.source, self.batch_size, self.device = source, batch_size, device
        self.model = place_module(self.model, device)
        self.dim = int(self.model.config.hidden_size)
        crop = getattr(self.processor, "crop_size", None) or {}
        self.input_size = int(crop.get("height", 224))
        local = "local_files_only" in kwargs
        version = files_fingerprint(Path(location)) if local else "hub"
        self.encoder_id = f"hf-dinov2:{location}@{version}{device.id_suffix}"

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        """`(N, H, W, 3)` uint8 RGB -> `(N, D)` float32 L2-normalised CLS tokens."""

        def embed(pixels):
            hidden = self.model(pixel_values=to_device(pixels, self.device)).last_hidden_state
            return hidden[:, 0].float().cpu().numpy()

        return encode_in_batches(frames, self.processor, embed, self.batch_size, self.dim)

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        raise UserError(
            f"hf:{self.source} is a DINOv2 image model without a text tower: use it as "
            "--appearance or --segment-encoder, not as --encoder"
        )


def model_type(source: str) -> str:
    """The `model_type` of an `hf:` checkpoint, read from its `config.json`.

    Raises:
        UserError: the checkpoint has no readable config.
    """
    location, kwargs = _location(source)
    config = Path(location) / "config.json"
    if "local_files_only" in kwargs:
        try:
            return str(json.loads(config.read_text()).get("model_type", ""))
        except (OSError, ValueError) as exc:
            raise UserError(f"hf:{source}: cannot read {config} ({exc})") from exc
    transformers = require("transformers", "clip")
    try:
        return str(transformers.AutoConfig.from_pretrained(location).model_type)
    except (OSError, ValueError) as exc:
        raise UserError(f"hf:{source}: cannot load the model config ({exc})") from exc


def load_feature_encoder(
    spec: str, feature: str, role: str, device: str | None = None, batch_size: int | None = None
) -> ImageTextEncoder:
    """The encoder that gives the agent its `feature` ("appearance" or "embedding") for `role`.

    Args:
        spec: an encoder spec; `hf:PATH` of a DINOv2 checkpoint gives a `Dinov2Encoder`.
        feature: the `image_features` key the caller reads.
        role: the option it came from, for messages ("--appearance").
        device: `--device` for the model; None: its default (the CPU for DINOv2).
        batch_size: frames per forward pass; None: the encoder's default.

    Raises:
        UserError: one line naming `spec`, when it cannot produce `feature`.
    """
    name, arg = parse_spec(spec)
    if name == "hf" and arg:
        kind = model_type(arg)
        if kind == "dinov2":
            where = resolve_device(device) if device is not None else Device()
            key = f"{arg}|{where}|{batch_size}"
            with _LOCK:
                if key not in _LOADED:
                    _LOADED[key] = Dinov2Encoder(arg, batch_size or 32, where)
                return _LOADED[key]
        if kind not in IMAGE_TEXT_TYPES:
            raise UserError(
                f"{role} {spec}: a {kind or 'untyped'} checkpoint cannot produce an {feature} "
                f"feature; use a DINOv2 (dinov2) or image-text ({', '.join(IMAGE_TEXT_TYPES)}) "
                "checkpoint"
            )
    encoder = load_encoder(spec, device, batch_size)
    probe = encoder.image_features(np.zeros((1, 32, 32, 3), np.uint8))
    if feature not in probe:
        raise UserError(f"{role} {spec}: encoder {encoder.encoder_id} produces no {feature} "
                        f"feature (it gives {', '.join(sorted(probe))})")  # fmt: skip
    return encoder


def _location(source: str) -> tuple[str, dict]:
    """A local folder (loaded offline) or a Hub repo id."""
    path = Path(source).expanduser()
    if path.is_dir():
        return str(path), {"local_files_only": True}
    if source.startswith(("/", ".", "~", "\\")):
        raise UserError(f"hf:{source}: no such model folder")
    return source, {}
