"""Checks of the command line's paths and numbers, made before any work starts.

Every command calls these first, so an unusable output path, cache root or number is one
`longground: error: ...` line (exit 2) before a video is indexed or a query is run, and an
output path that is one of the command's own inputs is refused even with `--overwrite`.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import typer

from ..cache import CACHE_ENV, cache_root
from ..errors import UserError

#: File systems that look writable but hold no user files.
VIRTUAL_ROOTS = (Path("/proc"), Path("/sys"))


def check_output_file(path: Path, option: str, inputs: Iterable[Path | None] = ()) -> Path:
    """Refuse an output file that cannot be written, or that is one of `inputs`.

    Args:
        path: the file to write (need not exist; its folder must).
        option: the option that named it, for the message (e.g. "--out").
        inputs: the command's input files; writing over one of them is refused, even when the
            command was told to overwrite.

    Returns:
        `path`, unchanged.

    Raises:
        UserError: a folder, a device, a file in a missing or unwritable folder, a virtual
            file system such as /proc, or one of the inputs.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_output_file(folder / "p.jsonl", "--out") == folder / "p.jsonl"
    True
    >>> check_output_file(folder, "--out")
    Traceback (most recent call last):
    longground.errors.UserError: --out ...: is a folder; give a file name
    """
    where = f"{option} {path}"
    if path.is_dir():
        raise UserError(f"{where}: is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise UserError(f"{where}: is not a regular file")
    same = _same_as_any(path, inputs)
    if same is not None:
        raise UserError(
            f"{where}: would overwrite the input {same} (even --overwrite does not allow "
            "that); choose another output name"
        )
    _check_writable_folder(path.parent, where, "folder of the file")
    return path


def check_output_folder(path: Path, option: str) -> Path:
    """Refuse an output folder that is a file, or that cannot be created or written in.

    A missing folder is fine when the nearest folder above it that exists is writable.

    >>> import tempfile
    >>> check_output_folder(Path(tempfile.mkdtemp()) / "new" / "bench", "--out").name
    'bench'
    """
    return _check_folder(path, f"{option} {path}")


def _check_folder(path: Path, where: str) -> Path:
    if path.exists() and not path.is_dir():
        raise UserError(f"{where}: is a file, not a folder")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"{where}: {existing} is a file, not a folder")
    _check_writable_folder(existing, where, "folder")
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


def _same_as_any(path: Path, inputs: Iterable[Path | None]) -> Path | None:
    """The first of `inputs` that `path` names (after symbolic links, or as a hard link)."""
    resolved = path.resolve()
    for other in inputs:
        if other is None:
            continue
        if other.resolve() == resolved:
            return other
        try:
            if path.exists() and other.exists() and os.path.samefile(path, other):
                return other
        except OSError:
            continue
    return None


def _check_writable_folder(folder: Path, where: str, what: str) -> None:
    """Create and remove a temporary file in `folder`: the one test that also holds for root,
    read-only mounts and virtual file systems."""
    folder = folder if str(folder) else Path(".")
    resolved = folder.resolve()
    if any(resolved == root or root in resolved.parents for root in VIRTUAL_ROOTS):
        raise UserError(f"{where}: {resolved} is on a virtual file system; write elsewhere")
    if not folder.exists():
        raise UserError(f"{where}: the {what} {folder} does not exist")
    if not folder.is_dir():
        raise UserError(f"{where}: {folder} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".longground-probe.")
    except OSError as exc:
        raise UserError(f"{where}: cannot write in {folder} ({exc.strerror})") from None
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
