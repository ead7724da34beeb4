"""Parse modes, by name: how strictly a model's raw answer is read (`--parse`).

- `lenient` (the default): `parse_answer`, which reads JSON anywhere, prose ranges and clock
  times, and tells "no such event" from a refusal;
- `strict`: `parse_strict`, the papers' JSON-only rule (what `--preset paper` uses).

Both count a failure as a parse failure (IoU 0), never as "no such event".
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UserError
from .result import ParsedAnswer

AnswerParser = Callable[[str | None, float | None], ParsedAnswer]
DEFAULT_PARSE = "lenient"


def _lenient(text: str | None, duration_s: float | None = None) -> ParsedAnswer:
    from . import parse_answer

    return parse_answer(text, duration_s)


def _strict(text: str | None, duration_s: float | None = None) -> ParsedAnswer:
    from .strict import parse_strict

    return parse_strict(text, duration_s)


PARSE_MODES: dict[str, AnswerParser] = {"lenient": _lenient, "strict": _strict}


def answer_parser(mode: str | None) -> AnswerParser:
    """The parser of `mode` ("lenient" when None).

    Raises:
        UserError: an unknown mode.

    >>> answer_parser("strict")("12 - 20 s", None).error
    'strict: the answer is not only JSON'
    >>> answer_parser(None)("12 - 20 s", None).moments.to_list()
    [[12.0, 20.0]]
    """
    name = mode or DEFAULT_PARSE
    if name not in PARSE_MODES:
        raise UserError(f"unknown parse mode {name!r}; choose from: {', '.join(PARSE_MODES)}")
    return PARSE_MODES[name]
