"""Turning `Message`s into OpenAI chat-completions JSON, and reading the answer back."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np

from ..errors import require
from .base import Message
from .video_input import video_processor_kwargs

IMAGE_FORMATS = {"jpeg": ("JPEG", "image/jpeg"), "png": ("PNG", "image/png")}


def image_data_url(frame: np.ndarray, image_format: str = "jpeg", quality: int = 85) -> str:
    """A `(H, W, 3)` uint8 RGB frame as a base64 `data:` URL.

    >>> url = image_data_url(np.zeros((4, 6, 3), np.uint8), "png")
    >>> url.startswith("data:image/png;base64,")
    True
    """
    pil_format, mime = IMAGE_FORMATS[image_format]
    image_module = require("PIL.Image", "llm")
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"images must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
    buffer = io.BytesIO()
    options = {"quality": quality} if pil_format == "JPEG" else {}
    image_module.fromarray(np.ascontiguousarray(frame)).save(buffer, format=pil_format, **options)
    return f"data:{mime};base64,{base64.b64encode(buffer.getvalue()).decode('ascii')}"


def video_data_url(frames: np.ndarray, quality: int = 85) -> str:
    """`(N, H, W, 3)` uint8 frames as one `data:video/jpeg;base64,` URL: each frame a base64
    JPEG, joined by commas, the form vLLM's video loader reads as a list of frames.

    >>> url = video_data_url(np.zeros((2, 4, 4, 3), np.uint8))
    >>> url.startswith("data:video/jpeg;base64,"), url.count(",")
    (True, 2)
    """
    encoded = [image_data_url(f, "jpeg", quality).partition("base64,")[2] for f in frames]
    return "data:video/jpeg;base64," + ",".join(encoded)


def message_json(message: Message, image_format: str = "jpeg") -> dict[str, Any]:
    """One message in the chat-completions shape.

    Text only: `content` is a string. With images: a list of parts, the message text first,
    then for each image its label (when given) as a text part and the image itself. With a
    video (`Message.video`): the text, then one `video_url` part.

    >>> m = Message("user", "Where?", [np.zeros((2, 2, 3), np.uint8)], ["t=1.0 s"])
    >>> [part["type"] for part in message_json(m)["content"]]
    ['text', 'text', 'image_url']
    """
    if message.video is not None:
        parts: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
        url = video_data_url(message.video.frames)
        parts.append({"type": "video_url", "video_url": {"url": url}})
        return {"role": message.role, "content": parts}
    if not message.images:
        return {"role": message.role, "content": message.text}
    labels = message.image_labels
    if labels is not None and len(labels) != len(message.images):
        raise ValueError(f"{len(labels)} image labels for {len(message.images)} images")
    parts = []
    if message.text:
        parts.append({"type": "text", "text": message.text})
    for i, frame in enumerate(message.images):
        if labels is not None:
            parts.append({"type": "text", "text": labels[i]})
        url = image_data_url(frame, image_format)
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": message.role, "content": parts}


def request_json(
    model: str,
    messages: list[Message],
    max_tokens: int,
    temperature: float,
    image_format: str = "jpeg",
) -> dict[str, Any]:
    """The full `/chat/completions` request body.

    A conversation with a video part also carries `mm_processor_kwargs`: the frames' sampling
    rate (`fps`, when their times are known) and `do_sample_frames: false`, so the server's
    video processor keeps every frame sent and dates them at that rate.
    """
    body = {
        "model": model,
        "messages": [message_json(m, image_format) for m in messages],
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    kwargs = video_processor_kwargs(messages)
    if kwargs:
        body["mm_processor_kwargs"] = kwargs
    return body


class BadResponse(ValueError):
    """A 200 response whose body is not a chat completion."""


def read_completion(body: Any) -> tuple[str, int, int]:
    """The answer text and token counts from a chat-completions response body.

    Returns:
        `(text, prompt_tokens, completion_tokens)`; token counts are 0 when the server
        does not report usage.

    Raises:
        BadResponse: the body has no `choices[0].message`.

    >>> read_completion({"choices": [{"message": {"content": "[[1, 2]]"}}],
    ...                  "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    ('[[1, 2]]', 7, 3)
    """
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise BadResponse(f"no choices[0].message in {str(body)[:120]!r}") from None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    usage = body.get("usage") or {}
    return (
        content or "",
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
    )


def error_detail(text: str, limit: int = 200) -> str:
    """A server's error message on one short line, from a JSON error body or plain text.

    >>> error_detail('{"error": {"message": "The model `m` does not exist."}}')
    'The model `m` does not exist.'
    >>> error_detail("Bad\\ngateway")
    'Bad gateway'
    """
    import json

    detail = text
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            err = err.get("message") or err.get("detail") or err
        detail = err if isinstance(err, str) else json.dumps(err)
    detail = " ".join(detail.split())
    return detail if len(detail) <= limit else detail[: limit - 3] + "..."
