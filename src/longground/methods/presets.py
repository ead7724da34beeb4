"""Named parameter sets per method (`--preset NAME`), applied before `-p` overrides.

Every method has the preset "longground": its own defaults, i.e. no values at all. A method
module registers further presets next to its params dataclass, e.g. the hybrid's "paper"
(ExtremeWhenBench's settings). Each value carries where its source states it, so the
documentation table can be checked against the registry.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from ..errors import UserError

DEFAULT_PRESET = "longground"


@dataclass(frozen=True)
class Preset:
    """A named set of parameter values for one method.

    Args:
        method: the method's registered name ("hybrid").
        name: the preset's name ("paper").
        values: `-p` keys of the method and their values (typed, not strings).
        sources: for each key in `values`, where the paper states it ("ExtremeWhenBench §3,
            Table 2").
        summary: one line for help texts.

    >>> Preset("demo", "x", {"k": 3}, {"k": "Table 2"}).values
    {'k': 3}
    """

    method: str
    name: str
    values: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        if self.name == DEFAULT_PRESET:
            raise ValueError(f"{DEFAULT_PRESET!r} is every method's defaults; do not register it")
        missing = sorted(set(self.values) - set(self.sources))
        if missing:
            raise ValueError(f"preset {self.method}/{self.name}: no source for {missing}")


PRESETS: dict[str, dict[str, Preset]] = {}


def register_preset(preset: Preset) -> Preset:
    """Make `preset` available as `--preset NAME` for its method."""
    PRESETS.setdefault(preset.method, {})[preset.name] = preset
    return preset


def preset_names(method: str) -> list[str]:
    """The presets `method` accepts, "longground" first.

    >>> preset_names("hybrid")
    ['longground', 'paper']
    """
    _import_method(method)
    return [DEFAULT_PRESET, *sorted(PRESETS.get(method, {}))]


def apply_preset(method: str, name: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The preset's values, then `params` (the `-p` settings) on top.

    Raises:
        UserError: the method has no preset of that name.

    >>> params = apply_preset("hybrid", "paper", {"k": "5"})
    >>> params["n_frames"], params["k"]
    (768, '5')
    >>> apply_preset("hybrid", None, {"k": "5"})
    {'k': '5'}
    """
    if name is None or name == DEFAULT_PRESET:
        return dict(params)
    _import_method(method)
    preset = PRESETS.get(method, {}).get(name)
    if preset is None:
        known = ", ".join(preset_names(method))
        raise UserError(f"method {method} has no preset {name!r}; choose from: {known}")
    return {**preset.values, **params}


def _import_method(method: str) -> None:
    """Import the module that defines `method` (and registers its presets), if there is one."""
    from . import METHOD_MODULES

    if method in METHOD_MODULES:
        importlib.import_module(f"longground.methods.{method}")
