"""The build pipelines' prompt files: a leading `<!-- ... -->` note says what the prompt must
enforce (for people, and hashed with the rest); the model sees only what follows it."""

from __future__ import annotations

import re
import string

from ..llm.prompts import prompt_text

_NOTE = re.compile(r"\A\s*<!--.*?-->\s*", re.S)


def build_prompt(name: str, **fields: object) -> str:
    """The template `prompts/{name}.md` without its note, every `$field` filled in.

    >>> text = build_prompt("build_comet_annotate", query="a dog jumps", n_frames=8,
    ...                     duration_s="60.0", duration_hms="00:01:00")
    >>> text.startswith("You are shown 8 frames") and "Must enforce" not in text
    True
    """
    body = _NOTE.sub("", prompt_text(name), count=1)
    return string.Template(body).substitute(fields).strip() + "\n"


def prompt_note(name: str) -> str:
    """The note at the top of a prompt file (what it must enforce), or "".

    >>> "exhaustive enumeration" in prompt_note("build_comet_annotate")
    True
    """
    match = _NOTE.match(prompt_text(name))
    return match.group(0).strip()[4:-3].strip() if match else ""
