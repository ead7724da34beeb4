"""The encoder interface every image-text model implements, and the encoder registry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np


class ImageTextEncoder(ABC):
    """Embeds frames and texts into one space so a query can score frames.

    Implementations register a factory in `ENCODERS` under a name; `load_encoder("name:arg")`
    builds one. `encoder_id` must change whenever the features would change (weights, version),
    because the feature cache is keyed on it.
    """

    encoder_id: str
    #: Score at or above which a frame is taken to show the query (the retrieval method's
    #: "no such event" line). Each encoder calibrates its own; see docs/encoders.md.
    default_threshold: float = 0.5
    #: The square side, in pixels, the model's own preprocessing brings a frame to (224 for
    #: label-bridge, 336 for CLIP ViT-L/14-336). The index decodes frames at this short side,
    #: so the encoder never sees upscaled frames (issue 13; docs/video-and-index.md).
    input_size: int = 224

    @abstractmethod
    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        """Embed frames.

        Args:
            frames: `(N, H, W, 3)` uint8 RGB.

        Returns:
            `(N, D)` float32, each row L2-normalised.
        """

    @abstractmethod
    def encode_texts(self, texts: list[str]) -> np.ndarray:
        """Embed texts: `(M, D)` float32, rows L2-normalised."""

    def image_features(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        """Everything the index stores for these frames, as named `(N, ...)` float32 arrays.

        Must hold "embedding" (what `score` reads) and "appearance" (used for segmentation).
        The default uses the embedding for both.
        """
        emb = self.encode_images(frames)
        return {"embedding": emb, "appearance": emb}

    #: Score units per unit of log-odds in the default `presence`: how far above the
    #: threshold a score must be to be "clearly" there.
    presence_scale: float = 0.05

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Relevance of each indexed frame to `text`: `(N,)` float32, higher is better.

        The default is the cosine between the frame embedding and the text embedding.
        """
        return features["embedding"] @ self.encode_texts([text])[0]

    def presence(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Log-odds that each frame shows `text`: `(N,)` float32, 0 at even odds.

        An encoder with a fitted presence model overrides this (label-bridge). The default
        reads the score against `default_threshold`, `presence_scale` score units per unit
        of log-odds: uncalibrated, so a user's own CLIP weights should be given
        `-p presence_threshold=` where the default does not fit (docs/encoders.md).
        """
        return _default_presence(self, features, text)


def presence_scores(encoder, features: dict[str, np.ndarray], text: str) -> np.ndarray:
    """`encoder.presence(features, text)`; for an encoder registered with
    `ImageTextEncoder.register` rather than subclassed, which may lack it, the default
    reading of its score against its `default_threshold`."""
    own = getattr(encoder, "presence", None)
    return own(features, text) if own is not None else _default_presence(encoder, features, text)


def _default_presence(encoder, features: dict[str, np.ndarray], text: str) -> np.ndarray:
    scale = getattr(encoder, "presence_scale", ImageTextEncoder.presence_scale)
    return (encoder.score(features, text) - encoder.default_threshold) / scale


EncoderFactory = Callable[[str], ImageTextEncoder]
ENCODERS: dict[str, EncoderFactory] = {}
DEFAULT_ENCODER = "label-bridge"


def register_encoder(name: str) -> Callable[[EncoderFactory], EncoderFactory]:
    def wrap(factory: EncoderFactory) -> EncoderFactory:
        ENCODERS[name] = factory
        return factory

    return wrap
