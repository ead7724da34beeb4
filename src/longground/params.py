"""The one parser of method settings (`-p KEY=VALUE`), driven by a settings dataclass's type
hints.

Every method keeps its settings in a frozen dataclass whose fields carry the defaults; this
module turns the strings of the command line (or the typed values of a preset) into those
fields, the same way for every method:

- `int` refuses `2.9`, `1e3` and `true`; `float` refuses `inf` and `nan` unless the field says
  `metadata={"finite": False}`; `bool` reads `true/false/yes/no/on/off/1/0`;
- `X | None` reads `none`, `auto` or an empty value as None;
- an unknown key is an error that lists the known ones.
"""

from __future__ import annotations

import math
import types
import typing
from dataclasses import MISSING, Field, fields
from typing import Any

from .errors import UserError

TRUE, FALSE = frozenset({"1", "true", "yes", "on"}), frozenset({"0", "false", "no", "off"})
NONE_WORDS = frozenset({"", "none", "auto"})
FINITE = "finite"  # field metadata key: False lets a float setting be inf or nan


def settable_fields(cls: type) -> dict[str, Field]:
    """The fields of `cls` a user may set, by name (those with `init=True`).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P:
    ...     k: int = 3
    >>> list(settable_fields(P))
    ['k']
    """
    return {f.name: f for f in fields(cls) if f.init}


def defaults(cls: type) -> dict[str, Any]:
    """`{field: default}` of a settings dataclass (fields without a default are left out).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P:
    ...     k: int = 3
    ...     name: str = "x"
    >>> defaults(P)
    {'k': 3, 'name': 'x'}
    """
    out = {}
    for name, f in settable_fields(cls).items():
        if f.default is not MISSING:
            out[name] = f.default
        elif f.default_factory is not MISSING:
            out[name] = f.default_factory()
    return out


def check_known(params: dict[str, Any], known: list[str], owner: str) -> None:
    """Refuse keys outside `known`, naming the known ones.

    >>> check_known({"kk": "1"}, ["k", "mode"], "retrieval")
    Traceback (most recent call last):
    longground.errors.UserError: retrieval: unknown parameter(s) kk; known: k, mode
    """
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise UserError(
            f"{owner}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )


def parse_values(cls: type, params: dict[str, Any], owner: str) -> dict[str, Any]:
    """Each of `params` converted to the type its field of `cls` declares (no unknown keys).

    Raises:
        UserError: a key `cls` has no field for, or a value that is not of the field's type.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P:
    ...     hops: int = 2
    >>> parse_values(P, {"hops": "3"}, "agent")
    {'hops': 3}
    >>> parse_values(P, {"hops": "2.9"}, "agent")
    Traceback (most recent call last):
    longground.errors.UserError: agent: parameter hops='2.9' is not an integer
    """
    known = settable_fields(cls)
    check_known(params, list(known), owner)
    hints = typing.get_type_hints(cls)
    return {
        name: parse_value(name, value, hints[name], owner, known[name].metadata.get(FINITE, True))
        for name, value in params.items()
    }


def parse_params(cls: type, params: dict[str, Any], owner: str):
    """A settings dataclass `cls` from `-p` settings (strings) or typed values.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P:
    ...     k: int = 3
    ...     threshold: float | None = None
    >>> parse_params(P, {"k": "5", "threshold": "auto"}, "demo")
    P(k=5, threshold=None)
    """
    return cls(**parse_values(cls, params, owner))


def parse_value(name: str, value: Any, hint: Any, owner: str, finite: bool = True) -> Any:
    """`value` (a string from the command line, or a typed value) as type `hint`.

    Args:
        name: the setting, for messages.
        value: the string or value given.
        hint: the field's type: `int`, `float`, `bool`, `str`, a container, or `X | None`.
        owner: the method, for messages ("retrieval: parameter k='x' ...").
        finite: False lets a float be inf or nan.

    >>> parse_value("gamma", "0.5", float, "agent"), parse_value("gamma", 1, float, "agent")
    (0.5, 1.0)
    >>> parse_value("w", "none", float | None, "agent") is None
    True
    >>> parse_value("gamma", "inf", float, "agent")
    Traceback (most recent call last):
    longground.errors.UserError: agent: parameter gamma='inf' is not a finite number
    """
    kind, optional = _unwrap(hint)
    if value is None and optional:
        return None
    text = value.strip().lower() if isinstance(value, str) else None
    if optional and kind is not str and text in NONE_WORDS:
        return None
    if kind not in (int, float, bool, str):
        return value  # containers and other types are taken as given
    try:
        return _convert(kind, value, finite)
    except (TypeError, ValueError):
        what = {int: "an integer", float: "a finite number" if finite else "a number",
                bool: "true or false", str: "text"}[kind]  # fmt: skip
        raise UserError(f"{owner}: parameter {name}={value!r} is not {what}") from None


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """`(the type, whether None is allowed)` of a hint such as `float | None`."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        kinds = [k for k in typing.get_args(hint) if k is not type(None)]
        optional = len(kinds) < len(typing.get_args(hint))
        return (kinds[0] if len(kinds) == 1 else hint), optional
    return hint, False


def _convert(kind: type, value: Any, finite: bool) -> Any:
    if kind is str:
        if not isinstance(value, str):
            raise TypeError(value)
        return value
    if isinstance(value, str):
        return _from_text(kind, value.strip(), finite)
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(value)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(value)
    if kind is int:
        if isinstance(value, float):
            raise ValueError(value)  # 2.9 or 3.0 given for a count: say so, never truncate
        return value
    number = float(value)
    if finite and not math.isfinite(number):
        raise ValueError(value)
    return number


def _from_text(kind: type, text: str, finite: bool) -> Any:
    if kind is bool:
        if text.lower() in TRUE | FALSE:
            return text.lower() in TRUE
        raise ValueError(text)
    if kind is int:
        return int(text)  # "2.9", "1e3", "inf" are refused by int() itself
    number = float(text)
    if finite and not math.isfinite(number):
        raise ValueError(text)
    return number
