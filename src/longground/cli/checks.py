"""Checks of the command line's paths and numbers, made before any work starts.

Every command calls these first, so an unusable output path, cache root or number is one
`longground: error: ...` line (exit 2) before a video is indexed or a query is run, and an
output path that is one of the command's own inputs is refused even with `--overwrite`.
"""

from __future__ import annotations

import inspect
import math
import os
import typing
from collections.abc import Callable
from pathlib import Path

import typer

from ..cache import CACHE_ENV, cache_root
from ..errors import UserError
from ..outputs import VIRTUAL_ROOTS, check_output_file, check_output_folder, check_writable_folder
from ..text import MAX_TEXT_CHARS, text_problem

__all__ = [  # the output checks live in longground.outputs; these names stay for the commands
    "MAX_PATH_CHARS",
    "MAX_TEXT_CHARS",
    "VIRTUAL_ROOTS",
    "at_least",
    "check_cache_root",
    "check_output_file",
    "check_output_folder",
    "guard_values",
    "number_argument_problem",
    "text_argument_problem",
    "value_kind",
]

#: The longest text a command takes as an argument (a query, a name, `-p KEY=VALUE`): as many
#: characters as the annotation tool allows in a query. Retrieval's text side grows faster than
#: linearly with the length (4,000 characters: 1.2 s; 16,000: 5.7 s; 100,000: minutes).
#: The longest path (Linux's PATH_MAX).
MAX_PATH_CHARS = 4096
#: The largest whole number an option takes (a signed 64-bit integer).
MAX_INT = 2**63 - 1


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


def at_least(low: float, high: float | None = None) -> Callable[[float | None], float | None]:
    """A typer callback for a number option: inf, nan, values below `low` and (when given)
    above `high` are usage errors (one line naming the option); None passes.

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
        if high is not None and value > high:
            raise typer.BadParameter(f"{value:g} is above {high:g}")
        return value

    return check


#: The longest wait between polls (`index --watch --interval`, `serve --rescan`): a day.
MAX_POLL_S = 86400.0


def text_argument_problem(raw: str, is_path: bool) -> str | None:
    """Why `raw`, one value typed on the command line, cannot be used, or None.

    Empty values are refused (an unset shell variable, `--windows ''`): an empty path would
    otherwise name the current folder. Text longer than `MAX_TEXT_CHARS` (paths:
    `MAX_PATH_CHARS`) is refused before any work; so is text that is not valid Unicode
    (bytes that are not UTF-8 reach Python as lone surrogates). Paths may hold such bytes.

    >>> text_argument_problem("a dog", False) is None
    True
    >>> text_argument_problem("", True)
    'is empty'
    >>> text_argument_problem("x" * 2001, False)
    'is 2,001 characters long; the limit is 2,000'
    >>> text_argument_problem("a \\udcff dog", False)
    'is not valid text (a lone surrogate U+DCFF at character 3)'
    """
    if raw == "":
        return "is empty"
    limit = MAX_PATH_CHARS if is_path else MAX_TEXT_CHARS
    if len(raw) > limit:
        return f"is {len(raw):,} characters long; the limit is {limit:,}"
    problem = None if is_path else text_problem(raw)
    return None if problem is None else f"is not valid text ({problem})"


def number_argument_problem(raw: str, kind: type) -> str | None:
    """Why `raw`, typed for a number option of type `kind` (float or int), cannot be used,
    or None (text that is no number is left to the option's own type to refuse).

    A float must be finite (`inf` and `nan` mean nothing a command can do); an int must fit
    in 64 bits (a count, a seed or a size beyond that would overflow on its way).

    >>> number_argument_problem("nan", float), number_argument_problem("2.5", float)
    ('nan is not a finite number', None)
    >>> number_argument_problem(str(10**20), int)
    '100000000000000000000 is out of range'
    """
    try:
        value = kind(raw.strip())
    except ValueError:
        return None
    if kind is float and not math.isfinite(value):
        return f"{raw.strip()} is not a finite number"
    if kind is int and abs(value) > MAX_INT:
        return f"{raw.strip()} is out of range"
    return None


def guard_values(command) -> None:
    """Check every text, path and number value of `command` (a click command or group, as
    `typer.main.get_command` builds it) and of its subcommands as it is parsed, with
    `text_argument_problem` and `number_argument_problem`: a usage error naming the option,
    before the command runs.

    Installed on the parsed command rather than written into each option, so that an option
    added later is covered too (tests/cli/test_every_option.py tries every one).
    """
    for sub in getattr(command, "commands", {}).values():
        guard_values(sub)
    if command.callback is None:
        return
    kinds: dict[str, str] = {}

    def kind_of(name: str) -> str:  # read from the type hints when the command is parsed
        if not kinds:
            hints = typing.get_type_hints(inspect.unwrap(command.callback))
            kinds.update({p.name: value_kind(hints.get(p.name)) for p in command.params})
        return kinds[name]

    for param in command.params:
        _guard_param(param, kind_of)


def value_kind(hint) -> str:
    """"path", "float", "int" or "text" for a parameter's type hint (lists and None aside).

    >>> value_kind(list[Path] | None), value_kind(float | None), value_kind(int), value_kind(str)
    ('path', 'float', 'int', 'text')
    """
    args = set(typing.get_args(hint)) or {hint}
    args |= {inner for arg in list(args) for inner in typing.get_args(arg)}
    names = {getattr(arg, "__name__", "") for arg in args}
    if "Path" in names or "Path" in str(hint):
        return "path"
    return "float" if "float" in names else "int" if "int" in names else "text"


def _guard_param(param, kind_of: Callable[[str], str]) -> None:
    """Check the raw value of `param` (as typed, before conversion) ahead of click's own
    handling of it; `kind_of(name)` is the kind of value a parameter takes."""
    handle = param.handle_parse_result

    def checked(ctx, opts, args):
        raw = opts.get(param.name)
        kind = kind_of(param.name)
        for item in raw if isinstance(raw, (list, tuple)) else [raw]:
            if not isinstance(item, str):
                continue
            if kind in ("float", "int"):
                problem = number_argument_problem(item, {"float": float, "int": int}[kind])
            else:
                problem = text_argument_problem(item, kind == "path")
            if problem:
                raise typer.BadParameter(problem, ctx=ctx, param=param)
        return handle(ctx, opts, args)

    param.handle_parse_result = checked
