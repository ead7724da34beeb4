"""Where a Video-LLM is reached: the settings `make_chat_client` builds a client from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LLMConfig:
    """Where a Video-LLM is reached. `backend` is "openai" (HTTP) or "transformers".

    Attributes:
        backend: a name registered in `CHAT_BACKENDS`.
        model: the model name; empty means `$LONGGROUND_LLM_MODEL`.
        base_url: the API root; None means the environment or the OpenAI API. Several
            roots separated by spaces (or the path of a file listing them) spread requests
            over those servers (`llm/spread.py`).
        api_key: the API key; None means the environment.
        timeout_s: seconds one request may take.
        max_retries: retries after a failed request.
        concurrency: requests in flight at once.
        video_input: how frames are sent: "frames", "video" or "grid"
            (`longground.llm.video_input`).
        grid_side: tiles per side of a grid mosaic (video_input "grid").
        reasoning_effort: OpenAI-style `reasoning_effort` sent with every request ("low",
            "medium", "high", ...), for servers that take it; None sends none.

    >>> LLMConfig(model="m").backend
    'openai'
    """

    backend: str = "openai"
    model: str = ""
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 4
    concurrency: int = 4
    video_input: str = "frames"
    grid_side: int = 8
    reasoning_effort: str | None = None
