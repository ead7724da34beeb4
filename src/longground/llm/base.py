"""The chat interface every Video-LLM backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Message:
    """One chat message. `images` are `(H, W, 3)` uint8 RGB arrays sent after the text.

    `image_labels`, when given, is one text label per image (e.g. its timestamp), sent just
    before that image so the model sees the time signal.
    """

    role: str
    text: str
    images: list[np.ndarray] = field(default_factory=list)
    image_labels: list[str] | None = None


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    cost_usd: float = 0.0


class ChatClient(ABC):
    """Sends a conversation to a model and returns its text answer.

    Raises `UserError` (one line naming the URL and model) for failures the user must fix:
    unreachable server, 401, 404.
    """

    model: str

    @abstractmethod
    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        """The model's answer to `messages`."""
