"""Strict-JSON answers from a chat model, with one corrective retry.

A reply must be one JSON value (a ```json fence around it is tolerated) that passes the role's
validator. When it does not, the model is asked once more, shown its own answer and what was
wrong with it (a plain resend would hit the response cache and get the same text). A second
failure is reported as malformed; the role then treats it as a rejection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ...llm.base import ChatClient, Message

T = TypeVar("T")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)


class BadReply(ValueError):
    """A reply that is not the JSON the role asked for; the message says what is wrong."""


def parse_json(text: str) -> Any:
    """The JSON value of a reply, allowing one surrounding code fence.

    >>> parse_json('```json\\n{"keep": [1]}\\n```')
    {'keep': [1]}
    >>> parse_json("Sure! {}")
    Traceback (most recent call last):
    ...
    longground.agent.roles.reply.BadReply: not valid JSON (Expecting value at char 0)
    """
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        raise BadReply(f"not valid JSON ({exc.msg} at char {exc.pos})") from None


@dataclass
class Reply(Generic[T]):
    """The outcome of `ask_json`: the validated value, whether it was readable (`ok`), and the
    raw answers and their problems."""

    value: T | None
    ok: bool = False
    texts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def malformed(self) -> bool:
        return not self.ok


def ask_json(
    client: ChatClient,
    message: Message,
    validate: Callable[[Any], T],
    *,
    max_tokens: int = 512,
    retries: int = 1,
) -> Reply[T]:
    """Ask, parse strictly, validate; on failure re-ask up to `retries` times.

    Args:
        client: the chat model.
        message: the role's prompt (with frames).
        validate: turns the parsed JSON into the role's value; raises `BadReply` (or
            `ValueError`, `TypeError`, `KeyError`) when it does not fit.
        max_tokens: answer length limit.
        retries: corrective re-asks after the first answer.

    Returns:
        `Reply`; `ok` is False after `1 + retries` unusable answers.
    """
    messages = [message]
    reply: Reply[T] = Reply(None)
    for _attempt in range(1 + retries):
        text = client.complete(messages, max_tokens=max_tokens, temperature=0.0).text
        reply.texts.append(text)
        try:
            reply.value, reply.ok = validate(parse_json(text)), True
            return reply
        except (BadReply, ValueError, TypeError, KeyError) as exc:
            reply.errors.append(str(exc) or type(exc).__name__)
        messages = [
            *messages,
            Message("assistant", text),
            Message(
                "user",
                f"That answer could not be used: {reply.errors[-1]}. Reply again with only the "
                "JSON described above, nothing else.",
            ),
        ]
    return reply
