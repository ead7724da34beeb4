"""Rough token counts for `--dry-run`: what a stage would send, before any request.

Text is counted at 4 characters a token (the usual rule of thumb for English with BPE
vocabularies); an image at one token per 28x28-pixel patch, as Qwen2-VL-style models tile
them. Real counts depend on the model; the manifest records the counts the server reports.
"""

from __future__ import annotations

import math

from ..llm.base import Message

CHARS_PER_TOKEN = 4
PATCH_PX = 28


def text_tokens(text: str) -> int:
    """Tokens of `text`, at 4 characters each.

    >>> text_tokens("twelve chars")
    3
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def image_tokens(height: int, width: int) -> int:
    """Tokens of one `height` x `width` image, one per 28-pixel patch.

    >>> image_tokens(224, 336)
    96
    """
    return math.ceil(height / PATCH_PX) * math.ceil(width / PATCH_PX)


def message_tokens(messages: list[Message]) -> int:
    """Estimated prompt tokens of a conversation: text, image labels and images.

    >>> import numpy as np
    >>> message_tokens([Message("user", "abcd", [np.zeros((56, 56, 3), np.uint8)], ["t=0"])])
    6
    """
    total = 0
    for message in messages:
        total += text_tokens(message.text)
        total += sum(text_tokens(label) for label in message.image_labels or [])
        total += sum(image_tokens(*image.shape[:2]) for image in message.images)
    return total
