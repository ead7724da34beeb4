"""Scores for contrastive dual encoders (CLIP, SigLIP), shared by the `hf:` and `open_clip:`
encoders.

CLIP is trained with a softmax over a batch, so its cosine has no natural "present" line; the
default threshold below is a rough value, not calibrated here (no CLIP weights are available
offline), and should be set per model. SigLIP is trained as a per-pair binary classifier, so
`sigmoid(exp(logit_scale) * cos + logit_bias)` is the model's own match probability and 0.5 is
its natural threshold.
"""

from __future__ import annotations

import numpy as np

# Matching image-caption pairs typically reach a cosine of 0.25-0.35 with CLIP ViT-B models and
# unrelated pairs 0.1-0.2; a rough line, to be tuned per model.
CLIP_COSINE_THRESHOLD = 0.25
PROBABILITY_THRESHOLD = 0.5


def match_probability(cosines: np.ndarray, logit_scale: float, logit_bias: float) -> np.ndarray:
    """SigLIP's pairwise match probability from cosines.

    Args:
        cosines: `(N,)` cosine similarities.
        logit_scale: the model's learned log temperature (the scale is `exp(logit_scale)`).
        logit_bias: the model's learned bias.

    Returns:
        `(N,)` float32 probabilities in [0, 1].

    >>> match_probability(np.array([0.0, 0.1]), logit_scale=np.log(10.0), logit_bias=-1.0).round(3)
    array([0.269, 0.5  ], dtype=float32)
    """
    logits = np.asarray(cosines, dtype=np.float64) * np.exp(logit_scale) + logit_bias
    return (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)


def check_query(text: str) -> str:
    """Reject an empty query with a one-line error."""
    from longground.errors import UserError

    if not text.strip():
        raise UserError("the query is empty")
    return text
