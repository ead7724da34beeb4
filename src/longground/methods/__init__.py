"""Grounding methods. Each module registers itself in `METHODS` when imported."""

from __future__ import annotations

import importlib

from ..errors import UserError
from .base import METHODS, Grounder, Grounding, LLMConfig, MethodConfig, register_method

# Modules that define methods; importing one registers its methods.
METHOD_MODULES = ("retrieval", "monolithic", "hybrid", "agent")


def available_methods() -> list[str]:
    """Names of every registered method."""
    for module in METHOD_MODULES:
        importlib.import_module(f"longground.methods.{module}")
    return sorted(METHODS)


def build_method(name: str, config: MethodConfig | None = None) -> Grounder:
    """Build the method registered as `name`, importing only the module that defines it.

    Raises:
        UserError: no method has that name.
    """
    if name in METHOD_MODULES:
        importlib.import_module(f"longground.methods.{name}")
    if name not in METHODS:
        names = available_methods()
        raise UserError(f"unknown method {name!r}; choose one of: {', '.join(names)}")
    return METHODS[name](config or MethodConfig())


__all__ = [
    "METHODS",
    "Grounder",
    "Grounding",
    "LLMConfig",
    "MethodConfig",
    "available_methods",
    "build_method",
    "register_method",
]
