"""Checks of the command line's paths and numbers, made before any work starts.

Every command calls these first, so an unusable output path, cache root or number is one
`longground: error: ...` line (exit 2) before a video is indexed or a query is run, and an
output path that is one of the command's own inputs is refused even with `--overwrite`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

import typer

from ..cache import CACHE_ENV, cache_root
from ..errors import UserError
from ..outputs import VIRTUAL_ROOTS, check_output_file, check_output_folder, check_writable_folder

__all__ = [  # the output checks live in longground.outputs; these names stay for the commands
    "VIRTUAL_ROOTS",
    "at_least",
    "check_cache_root",
    "check_output_file",
    "check_output_folder",
]


def _check_folder(path: Path, where: str) -> Path:
    if path.exists() and not path.is_dir():
        raise UserError(f"{where}: is a file, not a folder")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"{where}: {existing} is a file, not a folder")
    check_writable_folder(existing, where, "folder")
    return path


def check_cache_root(override: Path | None, write: bool = True) -> Path:
    """The cache root (`--cache-dir`, else `$LONGGROUND_CACHE`, else the default), refused
    when it is a file or a device, or (with `write`) when it cannot be created or written in.

    >>> import tempfile
    >>> check_cache_root(Path(tempfile.mkdtemp()) / "cache").name
    'cache'
    """
    root = cache_root(override)
    if override is not None:
        where = f"--cache-dir {root}"
    elif os.environ.get(CACHE_ENV):
        where = f"${CACHE_ENV} {root}"
    else:
        where = f"the cache root {root}"
    if root.exists() and not root.is_dir():
        raise UserError(f"{where}: is not a folder; point it at a folder")
    if write:
        _check_folder(root, where)
    return root


def at_least(low: float) -> Callable[[float | None], float | None]:
    """A typer callback for a number option: inf, nan and values below `low` are usage
    errors (one line naming the option); None passes.

    >>> at_least(0.01)(2.5)
    2.5
    >>> try:
    ...     at_least(0.01)(float("nan"))
    ... except typer.BadParameter as exc:
    ...     print(exc.message)
    nan is not a finite number
    """

    def check(value: float | None) -> float | None:
        if value is None:
            return None
        if not math.isfinite(value):
            raise typer.BadParameter(f"{value} is not a finite number")
        if value < low:
            raise typer.BadParameter(f"{value:g} is below {low:g}")
        return value

    return check
