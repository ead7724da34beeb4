"""A method by name plus its settings: what each worker needs to build its own copy.

A name is either one registered in `longground.methods.METHODS` ("retrieval", "agent", ...)
or `package.module:attribute`, a factory (or `Grounder` subclass) taking a `MethodConfig`.
The second form runs a method of your own without touching longground; worker processes and
Ray actors import the module themselves, so it must be importable there too.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from ..errors import UserError
from ..methods.base import METHODS, Grounder, MethodConfig, MethodFactory


@dataclass(frozen=True)
class MethodSpec:
    """Picklable recipe for a grounding method.

    >>> spec = MethodSpec("retrieval", MethodConfig(fps=2.0))
    >>> spec.fingerprint()["method"], spec.fingerprint()["fps"]
    ('retrieval', 2.0)
    """

    name: str
    config: MethodConfig

    def factory(self) -> MethodFactory:
        """The callable that builds the method; importing only what the name needs.

        Raises:
            UserError: no method has that name, or the module or attribute is missing.
        """
        return resolve_factory(self.name)

    def build(self) -> Grounder:
        """A fresh method instance (it may hold per-video state across queries)."""
        method = self.factory()(self.config)
        if not callable(getattr(method, "ground", None)):
            raise UserError(
                f"method {self.name!r} built a {type(method).__name__} without ground()"
            )
        return method

    def fingerprint(self) -> dict[str, Any]:
        """What identifies the answers (see `MethodConfig.fingerprint`)."""
        return self.config.fingerprint(self.name)


def resolve_factory(name: str) -> MethodFactory:
    """The factory registered as `name`, or the `module:attribute` it names.

    >>> resolve_factory("no_such_module_xyz:make")
    Traceback (most recent call last):
    ...
    longground.errors.UserError: method 'no_such_module_xyz:make': cannot import no_such_module_xyz
    """
    if name in METHODS:
        return METHODS[name]
    if ":" in name:
        return _import_factory(name)
    from ..methods import available_methods

    names = available_methods()
    if name not in METHODS:
        raise UserError(
            f"unknown method {name!r}; choose one of: {', '.join(names)} "
            "(or give package.module:factory)"
        )
    return METHODS[name]


def _import_factory(name: str) -> MethodFactory:
    module_name, _, attribute = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise UserError(f"method {name!r}: cannot import {module_name}") from None
        raise
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise UserError(f"method {name!r}: {module_name} has no callable {attribute!r}")
    return factory
