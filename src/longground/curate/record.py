"""The record of one stage call (`STAGE.jsonl` line), validated once.

A record is the call's key and fields (its context plus what the stage read from the
answer) and, typed apart from them, what went wrong and what it cost: `error` (the input
could not be used), `parse_error` with the model's `raw` text (the answer could not be read),
and `usage`. Pipelines ask `ok`, `input_failed` and `parse_failed` instead of looking for
string keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RESERVED = ("qid", "usage", "error", "parse_error", "raw")


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Usage:
        """From a record's `usage` object (other keys ignored).

        >>> Usage.from_json({"prompt_tokens": 5, "completion_tokens": 2, "cost_usd": 0.1})
        Usage(prompt_tokens=5, completion_tokens=2, cost_usd=0.1)
        """
        return cls(int(value.get("prompt_tokens", 0)), int(value.get("completion_tokens", 0)),
                   float(value.get("cost_usd", 0.0)))  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd}  # fmt: skip


@dataclass(frozen=True)
class StageRecord:
    """One call's outcome.

    Attributes:
        key: the call's key, unique within the stage (the line's "qid").
        fields: the call's context and the fields the stage read from the answer.
        error: why the call's input could not be used (no request was made).
        parse_error: why the answer could not be read (then `raw` holds it).
        raw: the model's answer text, when a request was made.
        usage: tokens and cost, when a request was made.

    >>> r = StageRecord("v-c0", {"video": "/v.mp4", "double": 4}, raw="4", usage=Usage(9, 1))
    >>> r.ok, r.values()["double"], StageRecord.from_json(r.to_json()) == r
    (True, 4, True)
    >>> StageRecord("k", {}, error="no video").input_failed
    True
    """

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    parse_error: str | None = None
    raw: str | None = None
    usage: Usage | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"a stage record needs a non-empty key, got {self.key!r}")
        clash = sorted(set(self.fields) & set(RESERVED))
        if clash:
            raise ValueError(f"stage record {self.key}: fields may not be named {clash}")
        if self.error is not None and self.parse_error is not None:
            raise ValueError(f"stage record {self.key}: an input error made no request to parse")

    @property
    def ok(self) -> bool:
        """Neither an input error nor an unreadable answer."""
        return self.error is None and self.parse_error is None

    @property
    def input_failed(self) -> bool:
        return self.error is not None

    @property
    def parse_failed(self) -> bool:
        return self.parse_error is not None

    @property
    def failure(self) -> str | None:
        """The input error or the parse error, whichever there is."""
        return self.error or self.parse_error

    def values(self) -> dict[str, Any]:
        """`{"qid": key, **fields}`: what the next stage reads."""
        return {"qid": self.key, **self.fields}

    def to_json(self) -> dict[str, Any]:
        """The JSONL line."""
        line = self.values()
        if self.usage is not None:
            line["usage"] = self.usage.to_json()
        optional = {"error": self.error, "parse_error": self.parse_error, "raw": self.raw}
        line.update({k: v for k, v in optional.items() if v is not None})
        return line

    @classmethod
    def from_json(cls, line: Mapping[str, Any]) -> StageRecord:
        """A record read back from its JSONL line."""
        usage = line.get("usage")
        return cls(
            key=line["qid"],
            fields={k: v for k, v in line.items() if k not in RESERVED},
            error=line.get("error"),
            parse_error=line.get("parse_error"),
            raw=line.get("raw"),
            usage=Usage.from_json(usage) if isinstance(usage, Mapping) else None,
        )
