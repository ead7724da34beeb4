"""label-bridge: the offline default encoder, an ImageNet classifier bridged to text by class names.

A frame goes through EfficientNet-Lite0 (ImageNet-1k). Its top-k class probabilities, renormalised
to sum to 1 over those k classes, weight the MiniLM embeddings of the sentences
"a photo of a {class name}"; the weighted sum is the frame's `label_mix` (384-d, not normalised).
For a query embedding q, `label_mix @ q` is the probability-weighted cosine between the query and
the frame's top-k class names.

`score` standardises that cosine per query against the whole vocabulary:
`(label_mix @ q - mean_c cos(q, class_c)) / std_c cos(q, class_c)`, i.e. how many standard
deviations the frame's labels sit above an average ImageNet class for this query. The ranking of
frames for one query is unchanged, but one absolute threshold (`NO_MATCH_SCORE`) then separates
"present" from "absent" across queries, which the raw cosine did not (see docs/encoders.md).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..device import Device
from .base import ImageTextEncoder, register_encoder
from .class_words import (
    class_logp,
    class_mass,
    class_score,
    named_classes,
    neighbour_classes,
)
from .contrastive import check_query
from .imagenet_labels import N_CLASSES, class_prompts
from .preprocess import check_frames, l2_normalize

VERSION = "3"
DEFAULT_TOP_K = 10
CLASS_PROMPT = "a photo of a {}"
TEXT_DIM = 384
#: Text embeddings kept by one encoder (a few hundred bytes each).
TEXT_CACHE = 4096
APPEARANCE_DIM = 1280
# Scores at or above this mean "the query is probably visible": just above the 90th percentile of
# absent queries' maxima (2.35) and below the weakest real peak through the index (2.46) on the
# sample media (docs/encoders.md).
NO_MATCH_SCORE = 2.4
# Probability on a query's confusable neighbour classes (`class_words.neighbour_classes`)
# from which a neighbour counts as clearly seen: a motorcycle photo puts 0.5 or more on the
# moped and scooter classes, a blurred street 0.04 on uniforms and sunglasses.
NEIGHBOUR_SEEN = 0.25
# The feature holding the class logits of the left and right halves of each frame's centre
# crop (one pass: the last feature map pooled per half, see `efficientnet_lite.WithHalves`).
HALF_LOGITS = "half_logits"
HALVES = ("left half", "right half")


def label_mix(probs: np.ndarray, class_embeddings: np.ndarray, top_k: int) -> np.ndarray:
    """Mix each frame's top-k class embeddings, weighted by renormalised probabilities.

    Args:
        probs: `(N, C)` class probabilities per frame.
        class_embeddings: `(C, D)` unit-norm class-name embeddings.
        top_k: classes kept per frame.

    Returns:
        `(N, D)` float32; `label_mix @ q` is the weighted mean cosine to a unit vector q.

    >>> emb = np.eye(3, dtype=np.float32)
    >>> label_mix(np.array([[0.6, 0.3, 0.1]]), emb, top_k=2).astype(float).round(3).tolist()
    [[0.667, 0.333, 0.0]]
    """
    top_k = min(top_k, probs.shape[1])
    top = np.argpartition(-probs, top_k - 1, axis=1)[:, :top_k]
    weights = np.take_along_axis(probs, top, axis=1)
    weights = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-12)
    return np.einsum("nk,nkd->nd", weights, class_embeddings[top]).astype(np.float32)


def standardized_score(
    mix: np.ndarray, query: np.ndarray, class_embeddings: np.ndarray
) -> np.ndarray:
    """Frame scores for one query, in standard deviations of the query's class similarities.

    Args:
        mix: `(N, D)` label mixes from `label_mix`.
        query: `(D,)` unit-norm query embedding.
        class_embeddings: `(C, D)` unit-norm class-name embeddings.

    Returns:
        `(N,)` float32: `(mix @ query - mean(cos)) / std(cos)`, cos over the C classes.

    >>> classes = np.eye(4, dtype=np.float32)
    >>> standardized_score(classes[:2], classes[0], classes).astype(float).round(3).tolist()
    [1.732, -0.577]
    """
    cosines = class_embeddings @ query
    spread = max(float(cosines.std()), 1e-6)
    return ((mix @ query - cosines.mean()) / spread).astype(np.float32)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of `(N, C)` logits, float32.

    >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]])).round(3).tolist()
    [[0.5, 0.5], [0.25, 0.75]]
    """
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)


class LabelBridgeEncoder(ImageTextEncoder):
    """EfficientNet-Lite0 + all-MiniLM-L6-v2, both from PyPI wheels; runs offline on a CPU.

    Models load on first use: scoring an indexed video needs only the text model.

    Args:
        top_k: classes per frame in the label mix.
        batch_size: frames per forward pass.
        backend: how the classifier runs: "onnx" (ONNX Runtime), "torch", or "auto" (ONNX
            Runtime when installed). Same features either way, so the encoder id does not change.
        device: where the classifier runs (`encoders.device`; the CPU by default): ONNX
            Runtime's CUDA provider or torch on that GPU, in float32 either way, so the id does
            not change either. The text model stays on the CPU (one query at a time).

    >>> encoder = LabelBridgeEncoder(top_k=5)
    >>> encoder.encoder_id, encoder.default_threshold
    ('label-bridge-v3:efficientnet-lite0+all-minilm-l6-v2:top5', 2.4)
    """

    default_threshold = NO_MATCH_SCORE

    def __init__(
        self,
        top_k: int = DEFAULT_TOP_K,
        batch_size: int = 8,
        backend: str = "auto",
        device: Device = Device(),
    ):
        self.top_k, self.device = top_k, device
        self.batch_size = batch_size
        self.backend = backend
        self.encoder_id = f"label-bridge-v{VERSION}:efficientnet-lite0+all-minilm-l6-v2:top{top_k}"
        if backend == "int8":  # other features: other entries
            self.encoder_id += "+int8"
        self._net = None
        self._text = None
        self._classes: np.ndarray | None = None
        self._texts: dict[str, np.ndarray] = {}

    @property
    def text_model(self):
        if self._text is None:
            from .minilm import MiniLM

            self._text = MiniLM()
        return self._text

    @property
    def class_embeddings(self) -> np.ndarray:
        """`(1000, 384)` unit-norm embeddings of the class prompts, cached on disk."""
        if self._classes is None:
            from .disk_cache import cached_array

            prompts = class_prompts(CLASS_PROMPT)
            key = "\n".join([self.text_model.fingerprint, *prompts])
            digest = hashlib.sha256(key.encode()).hexdigest()[:16]
            self._classes = cached_array(
                f"label-bridge-classes-{digest}",
                (N_CLASSES, TEXT_DIM),
                lambda: self.text_model.encode(prompts, batch_size=128),
            )
        return self._classes

    def classify(self, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Run the classifier.

        Args:
            frames: `(N, H, W, 3)` uint8 RGB, any size (shorter side resized to 224, centre crop).

        Returns:
            `(N, 1000)` float32 class probabilities and `(N, 1280)` float32 pooled features.
        """
        probs, pooled, _ = self._run(frames)
        return probs, pooled

    def _run(self, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Class probabilities `(N, 1000)`, pooled features `(N, 1280)` and the logits of the
        left and right halves of the centre crop `(N, 2, 1000)`, all float32, from one pass.
        Preprocessing is numpy (`resize`), so the ONNX path never imports torch."""
        from .resize import to_model_input_np

        frames = check_frames(frames)
        if self._net is None:
            from .lite0_runner import efficientnet_lite0_runner

            self._net = efficientnet_lite0_runner(self.backend, device=self.device)
        probs = [np.zeros((0, N_CLASSES), np.float32)]
        pooled = [np.zeros((0, APPEARANCE_DIM), np.float32)]
        halves = [np.zeros((0, len(HALVES), N_CLASSES), np.float32)]
        for start in range(0, len(frames), self.batch_size):
            images = to_model_input_np(frames[start : start + self.batch_size])
            logits, features, half_logits = self._net(images)
            probs.append(softmax(logits))
            pooled.append(features)
            halves.append(half_logits)
        return np.concatenate(probs), np.concatenate(pooled), np.concatenate(halves)

    def image_features(self, frames: np.ndarray) -> dict[str, np.ndarray]:
        """Per-frame features, all float32.

        Returns:
            "label_mix" `(N, 384)` (what `score` reads), "class_logp" `(N, 1000)` the class
            log-probabilities (`class_words`, for queries that name classes), "embedding"
            `(N, 384)` the label mix L2-normalised, "appearance" `(N, 1280)` the pooled CNN
            feature L2-normalised, and `HALF_LOGITS` `(N, 2, 1000)` the class logits of the
            left and right halves of the centre crop (`region_features` turns them into
            features of the halves).
        """
        probs, pooled, half_logits = self._run(frames)
        mix = label_mix(probs, self.class_embeddings, self.top_k)
        return {
            "label_mix": mix,
            "class_logp": class_logp(probs),
            "embedding": l2_normalize(mix),
            "appearance": l2_normalize(pooled),
            HALF_LOGITS: half_logits,
        }

    def region_features(self, features: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Features of the left and right halves from stored whole-frame features, with no
        pass through the network: `(N, 2, ...)` "label_mix", "class_logp" and "embedding"
        (what `score` reads) from `features[HALF_LOGITS]` `(N, 2, 1000)`.

        >>> encoder = LabelBridgeEncoder()
        >>> encoder._classes = np.eye(1000, 384, dtype=np.float32)  # stand-in class names
        >>> logits = np.zeros((1, 2, 1000), np.float32); logits[0, 1, 7] = 20.0
        >>> halves = encoder.region_features({HALF_LOGITS: logits})
        >>> halves["label_mix"].shape, int(halves["class_logp"][0, 1].argmax())
        ((1, 2, 384), 7)
        """
        logits = np.asarray(features[HALF_LOGITS], dtype=np.float32)
        n, regions, n_classes = logits.shape
        probs = softmax(logits.reshape(n * regions, n_classes))
        mix = label_mix(probs, self.class_embeddings, self.top_k)
        rows = {"label_mix": mix, "class_logp": class_logp(probs), "embedding": l2_normalize(mix)}
        return {k: v.reshape(n, regions, *v.shape[1:]) for k, v in rows.items()}

    def presence(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Log-odds that each frame shows `text` (`PRESENCE` on the bridge's readings): the
        named classes' probability for a text that names ImageNet classes, the bridged score
        otherwise. `(...)` like the features' leading dimensions.
        """
        check_query(text)
        named = named_classes(text)
        if named and "class_logp" in features:
            logp = features["class_logp"]
            mass = class_mass(logp, named)
            others = class_mass(logp, neighbour_classes(named))
            return PRESENCE.log_odds(mass, others, None, named=True)
        query = self.encode_texts([text])[0]
        bridged = standardized_score(features["label_mix"], query, self.class_embeddings)
        return PRESENCE.log_odds(None, None, bridged, named=False)

    def encode_images(self, frames: np.ndarray) -> np.ndarray:
        return self.image_features(frames)["embedding"]

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        """`(M, 384)` text embeddings; the last `TEXT_CACHE` texts are kept, since a query
        is scored on every video of a library and every graph level of the agent."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._texts]
        if missing:
            for text, row in zip(missing, self.text_model.encode(missing)):
                self._texts[text] = row
            while len(self._texts) > TEXT_CACHE:
                self._texts.pop(next(iter(self._texts)))
        return np.stack([self._texts[t] for t in texts]) if texts else np.zeros((0, TEXT_DIM))

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        """Standardised probability-weighted cosine per frame (see module docstring): `(N,)`.

        Reads `features["label_mix"]`, and `features["class_logp"]` when the query names
        ImageNet classes by a WordNet word (`class_words`): the larger of the two scores,
        except on frames where the named classes' confusable neighbours
        (`class_words.neighbour_classes`) hold more probability than they do, which keep the
        class score alone (near misses: "a car" where only a motorcycle is). Frames are not
        re-encoded.
        """
        from longground.errors import UserError

        check_query(text)
        if "label_mix" not in features:
            raise UserError(f"these features were not made by {self.encoder_id}: re-index")
        query = self.encode_texts([text])[0]
        bridged = standardized_score(features["label_mix"], query, self.class_embeddings)
        named = named_classes(text)
        if not named or "class_logp" not in features:
            return bridged
        logp = features["class_logp"]
        own = class_score(logp, named)
        neighbours = neighbour_classes(named)
        if not neighbours:
            return np.maximum(bridged, own)
        # Where a confusable neighbour is clearly seen (`NEIGHBOUR_SEEN`) and holds more of the
        # frame's probability than the named classes ("a car" on a motorcycle), only the
        # named classes' own mass may speak: the bridge's sentence similarity cannot tell
        # neighbours apart.
        other = class_mass(logp, neighbours)
        confused = (other >= NEIGHBOUR_SEEN) & (other > class_mass(logp, named))
        return np.where(confused, own, np.maximum(bridged, own)).astype(np.float32)


@dataclass(frozen=True)
class PresenceModel:
    """A logistic model of "this frame shows the text" on the bridge's readings.

    For a text naming classes: `named_log_mass * ln(p) + named_bias`, p the probability the
    classifier puts on the named classes, lowered by `confusion` where a confusable
    neighbour (`class_words.neighbour_classes`) is clearly seen and more probable. For any
    other text: `bridged_slope * (bridged score - bridged_centre)`.
    """

    named_log_mass: float
    named_bias: float
    confusion: float
    bridged_slope: float
    bridged_centre: float

    def log_odds(self, mass, neighbours, bridged, named: bool) -> np.ndarray:
        """`(...)` float32 log-odds from the readings (same shapes)."""
        if not named:
            return (self.bridged_slope * (bridged - self.bridged_centre)).astype(np.float32)
        odds = self.named_log_mass * np.log(np.maximum(mass, 1e-6)) + self.named_bias
        confused = (neighbours >= NEIGHBOUR_SEEN) & (neighbours > mass)
        return (odds - self.confusion * confused).astype(np.float32)


#: Fitted by `perf/fit_presence.py` on the tuning montage (data/montage/tuning.json) and two
#: renderings of the generator (seeds 4 and 5, 6 minutes), whole frames at 1 fps; checked on
#: the held-out montage (docs/encoders.md, "Presence").
PRESENCE = PresenceModel(
    named_log_mass=0.803, named_bias=2.042, confusion=1.313, bridged_slope=0.985,
    bridged_centre=3.228,
)


@register_encoder("label-bridge")
def _make(arg: str, device: Device = Device(), batch_size: int = 8) -> LabelBridgeEncoder:
    """`label-bridge`, `label-bridge:K` (top-K classes per frame, 1..1000, default 10), or
    `label-bridge:int8` (the classifier quantised to int8; docs/video-and-index.md)."""
    from longground.errors import UserError

    if not arg:
        return LabelBridgeEncoder(batch_size=batch_size, device=device)
    if arg == "int8":  # the classifier quantised to int8 (ONNX Runtime), opt-in
        return LabelBridgeEncoder(batch_size=batch_size, backend="int8", device=device)
    if not arg.isdigit() or not 1 <= int(arg) <= N_CLASSES:
        raise UserError(f"label-bridge:{arg}: expected a top-k between 1 and {N_CLASSES}")
    return LabelBridgeEncoder(top_k=int(arg), batch_size=batch_size, device=device)
