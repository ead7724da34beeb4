"""Prompt templates shipped as package data (`longground/prompts/*.md`).

Templates use `$name` placeholders (`string.Template`), so JSON brackets in the text need no
escaping.
"""

from __future__ import annotations

import string
from importlib import resources

from ..errors import UserError


def prompt_text(name: str) -> str:
    """The raw template `longground/prompts/{name}.md`.

    >>> "$query" in prompt_text("monolithic")
    True
    """
    path = resources.files("longground").joinpath("prompts", f"{name}.md")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"no prompt template named {name!r}") from None


def render_prompt(name: str, **fields: object) -> str:
    """The template with every `$field` filled in; a missing field is a `KeyError`.

    >>> text = render_prompt("monolithic", query="a dog", n_frames=4,
    ...                      duration_s="60.0", duration_hms="00:01:00.0")
    >>> "a dog" in text and "$" not in text
    True
    """
    return string.Template(prompt_text(name)).substitute(fields).strip() + "\n"
