"""A chat client that runs a local Video-LLM through transformers (extra `llm-local`).

Meant for the Qwen2.5-VL / Qwen3-VL family and other models that load with
`AutoModelForImageTextToText` and `AutoProcessor` and ship a chat template. Frames are passed
as images, each preceded by its label, in one user turn per message.
"""

from __future__ import annotations

import threading
from typing import Any

from ..errors import UserError, require
from .base import ChatClient, Completion, Message
from .placement import place_network
from .usage import UsageMeter
from .video_input import video_processor_kwargs


def hf_conversation(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in the transformers chat-template shape, images as PIL images.

    >>> import numpy as np
    >>> conv = hf_conversation([Message("user", "When?", [np.zeros((2, 2, 3), np.uint8)],
    ...                                 ["t=3.0 s"])])
    >>> [part["type"] for part in conv[0]["content"]]
    ['text', 'text', 'image']
    """
    image_module = require("PIL.Image", "llm-local")
    conversation = []
    for message in messages:
        content: list[dict[str, Any]] = []
        if message.text:
            content.append({"type": "text", "text": message.text})
        if message.video is not None:  # the model's own video processor reads the frames
            content.append({"type": "video", "video": message.video.frames})
        labels = message.image_labels or [None] * len(message.images)
        for label, frame in zip(labels, message.images, strict=True):
            if label is not None:
                content.append({"type": "text", "text": label})
            content.append({"type": "image", "image": image_module.fromarray(frame)})
        conversation.append({"role": message.role, "content": content})
    return conversation


def load_processor(name: str):
    """`AutoProcessor.from_pretrained(name)`, with failures as one-line `UserError`s."""
    transformers = require("transformers", "llm-local")
    try:
        return transformers.AutoProcessor.from_pretrained(name)
    except ImportError as exc:
        if "torchvision" in str(exc).lower():
            raise UserError(
                f"model {name!r}: its transformers processor needs torchvision "
                f"(pip install torchvision)"
            ) from exc
        raise UserError(f"model {name!r}: {_first_line(exc)}") from exc
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot load the processor of model {name!r}: {_first_line(exc)}") from exc


def load_network(name: str, device: str | None = None, dtype: str = "auto"):
    """The model weights through `AutoModelForImageTextToText`, in eval mode, placed by
    `place_network(device, dtype)`: a GPU when there is one (bfloat16 or float16), split
    over every GPU (`device_map="auto"`) when `device` is "auto" and there are several."""
    transformers = require("transformers", "llm-local")
    require("torch", "llm-local")
    placement = place_network(device, dtype)
    # transformers 5 names the argument `dtype`; 4.x called it `torch_dtype`.
    dtype_arg = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    kwargs = {dtype_arg: placement.dtype}
    if placement.device_map is not None:
        require("accelerate", "llm-local")
        kwargs["device_map"] = placement.device_map
    try:
        network = transformers.AutoModelForImageTextToText.from_pretrained(name, **kwargs)
    except (OSError, ValueError) as exc:
        raise UserError(
            f"cannot load model {name!r} with transformers: {_first_line(exc)}"
        ) from exc
    if placement.device is not None:
        network = network.to(placement.device)
    return network.eval()


class TransformersChatClient(ChatClient):
    """A local model answering chat messages with images. Calls run one at a time.

    Args:
        model: a hub id or a local directory with weights, processor and chat template.
        device: torch device; default CUDA when available, else CPU.
        dtype: weight dtype ("auto" keeps the checkpoint's).
        processor, network: already-loaded objects (skip loading `model`).
    """

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        dtype: str = "auto",
        processor=None,
        network=None,
    ):
        self._torch = require("torch", "llm-local")
        self.model = model
        self.processor = processor if processor is not None else load_processor(model)
        self.network = network if network is not None else load_network(model, device, dtype)
        self._lock = threading.Lock()
        self.usage = UsageMeter()

    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        inputs = self.processor.apply_chat_template(
            hf_conversation(messages),
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            **video_processor_kwargs(messages),
        ).to(self.network.device)
        sampling = {"do_sample": True, "temperature": temperature} if temperature > 0 else {}
        with self._lock, self._torch.inference_mode():
            output = self.network.generate(
                **inputs, max_new_tokens=max_tokens, **(sampling or {"do_sample": False})
            )
        n_prompt = int(inputs["input_ids"].shape[1])
        new_tokens = output[:, n_prompt:]
        text = self.processor.batch_decode(new_tokens, skip_special_tokens=True)[0]
        completion = Completion(text, n_prompt, int(new_tokens.shape[1]), cost_usd=0.0)
        self.usage.record(completion)
        return completion


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
