"""Registries of benchmark and prediction formats, and detection of a file's format.

A format is a small adapter that registers itself by name; adding one is adding a module.
Detection looks at the file's extension and the fields of its first record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..samples import Prediction, Sample
from .records import first_record, read_text


@dataclass(frozen=True)
class Peek:
    """What detection may look at: the lower-case extension, the first record (a dict, or
    None), and the first non-blank line of text."""

    suffix: str
    first: dict | None
    head: str

    @classmethod
    def of(cls, path: Path) -> Peek:
        """Peek at `path` (reads the file once)."""
        path = Path(path)
        text = read_text(path)
        head = next((line for line in text.splitlines() if line.strip()), "")
        suffix = path.suffix.lower()
        first = _first_value(text) if suffix == ".json" else None
        if first is None and suffix != ".txt":
            first = first_record(path, text)
        return cls(suffix, first, head)


def _first_value(text: str) -> dict | None:
    """The first record of a JSON document: a list's first item, the first item of the one
    list inside an object (`{"data": [...]}`), an object-of-objects' first value (ActivityNet
    style), or else the object itself."""
    try:
        top = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(top, dict) and top:
        lists = [v for v in top.values() if isinstance(v, list)]
        first = next(iter(top.values()))
        top = lists[0] if len(lists) == 1 else first if isinstance(first, dict) else top
    if isinstance(top, list):
        return top[0] if top and isinstance(top[0], dict) else None
    return top if isinstance(top, dict) else None


@dataclass(frozen=True)
class SampleFormat:
    """A benchmark format.

    Args:
        name: the name used by `fmt=` and `--gt-format`.
        description: one line for help texts.
        detect: True when a `Peek` looks like this format.
        load: `(path, durations) -> list[Sample]`; `durations` maps video -> seconds for
            formats whose files carry no durations, and is ignored by the others.
    """

    name: str
    description: str
    detect: Callable[[Peek], bool]
    load: Callable[[Path, Mapping[str, float] | None], list[Sample]]


@dataclass(frozen=True)
class PredictionFormat:
    """A prediction format.

    Args:
        name: the name used by `fmt=` and `--pred-format`.
        description: one line for help texts.
        detect: True when a `Peek` looks like this format.
        load: `(path, samples by qid) -> PredictionList`.
        parses_text: True when the format holds raw model answers; `load` then also takes
            `parse=` (a mode of `longground.answers.PARSE_MODES`).
    """

    name: str
    description: str
    detect: Callable[[Peek], bool]
    load: Callable[..., list[Prediction]]
    parses_text: bool = False


SAMPLE_FORMATS: dict[str, SampleFormat] = {}
PREDICTION_FORMATS: dict[str, PredictionFormat] = {}


def register_sample_format(fmt: SampleFormat) -> SampleFormat:
    """Add a benchmark format; detection tries formats in registration order."""
    SAMPLE_FORMATS[fmt.name] = fmt
    return fmt


def register_prediction_format(fmt: PredictionFormat) -> PredictionFormat:
    """Add a prediction format; detection tries formats in registration order."""
    PREDICTION_FORMATS[fmt.name] = fmt
    return fmt


def resolve(registry: Mapping, kind: str, path: Path, fmt: str | None, if_empty: str | None = None):
    """The format named `fmt`, or the first whose `detect` accepts `path`.

    Args:
        if_empty: the format to use for an empty file; None makes an empty file an error.

    Raises:
        UserError: for an unknown name, or when no format recognises the file.
    """
    names = ", ".join(registry)
    if fmt is not None:
        if fmt not in registry:
            raise UserError(f"unknown {kind} format {fmt!r} (choose from: {names})")
        return registry[fmt]
    peek = Peek.of(path)
    if not peek.head:
        if if_empty is None:
            raise UserError(f"{path}: the file is empty")
        return registry[if_empty]
    for candidate in registry.values():
        if candidate.detect(peek):
            return candidate
    raise UserError(
        f"{path}: cannot tell which {kind} format this is from its extension and first "
        f"record; name it (one of: {names})"
    )
