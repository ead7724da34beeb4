"""The one checked entry for every file a command writes.

Every output path a command is given goes through `check_output_file` or
`check_output_folder` before any work starts, and every file is then written with
`open_output` (an `atomic.atomic_open` behind the same checks, made again at write time).
The rules are the same everywhere:

- an existing path that is not a regular file (a folder, a FIFO, a device such as /dev/null)
  is refused: the atomic rename would replace it with a regular file;
- a path that is the same file as one of the command's inputs is refused, even with
  `--overwrite`; "the same" is decided by device and inode (`os.stat`), so a relative
  spelling, `./`, a symbolic link or a hard link are all recognised;
- where a command has `--overwrite` (it passes `overwrite=True/False`), an existing file is
  refused unless that option was given; a command without one (`overwrite=None`) replaces
  its outputs, and its messages do not mention an option it lacks;
- the folder of the file must exist (it is never created) and be writable; /proc and /sys
  are refused;
- `-` means standard output, only where a command writes one stream (`stdout=True`); any
  other command refuses it rather than writing a file named `-`.

Inputs that are remembered for later (the annotation database's imported files) are stored
as `input_path(...)`: absolute and resolved, so the check still holds from another folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from .atomic import atomic_open
from .errors import UserError

#: The name that means standard output.
STDOUT = "-"

#: File systems that look writable but hold no user files.
VIRTUAL_ROOTS = (Path("/proc"), Path("/sys"))


def is_stdout(path: str | Path | None) -> bool:
    """Whether `path` is `-` (standard output).

    >>> is_stdout("-"), is_stdout(Path("-")), is_stdout("./-")
    (True, True, False)
    """
    return path is not None and str(path) == STDOUT


def input_path(path: str | Path) -> Path:
    """An input path as it should be stored: absolute, symbolic links resolved.

    >>> input_path("x.jsonl").is_absolute()
    True
    """
    return Path(path).expanduser().resolve()


def check_input_file(path: Path) -> Path:
    """Refuse an input that is missing, a folder, or not a regular file (a device such as
    /dev/zero, a FIFO), each with its own words.

    >>> check_input_file(Path("/dev/zero"))
    Traceback (most recent call last):
    longground.errors.UserError: /dev/zero: is not a regular file (a device, FIFO or socket)
    """
    if not path.exists():
        raise UserError(f"{path}: no such file")
    if path.is_dir():
        raise UserError(f"{path}: is a folder, not a file")
    if not path.is_file():
        raise UserError(f"{path}: is not a regular file (a device, FIFO or socket)")
    return path


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether `a` and `b` are one existing file (same device and inode), however spelled.

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a"
    >>> _ = f.write_text("x")
    >>> same_file(f, f.parent / "." / "a"), same_file(f, f.parent / "b")
    (True, False)
    """
    try:
        one, two = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def same_as_any(path: str | Path, inputs: Iterable[str | Path | None]) -> Path | None:
    """The first of `inputs` that is the same file as `path` (None: none is)."""
    for other in inputs:
        if other is not None and not is_stdout(other) and same_file(path, other):
            return Path(other)
    return None


def check_output_file(
    path: Path,
    option: str,
    inputs: Iterable[Path | None] = (),
    *,
    stdout: bool = False,
    overwrite: bool | None = None,
) -> Path:
    """Refuse an output file that cannot be written, or that is one of `inputs`.

    Args:
        path: the file to write (need not exist; its folder must).
        option: the option that named it, for the message (e.g. "--out").
        inputs: the command's input files; writing over one of them is refused, even when the
            command was told to overwrite.
        stdout: the command writes one stream, so `-` means standard output; otherwise `-`
            is refused.
        overwrite: the command's `--overwrite` (False: an existing file is refused); None
            for a command without that option (an existing file is replaced).

    Returns:
        `path`, unchanged.

    Raises:
        UserError: a folder, a device or FIFO, a file in a missing or unwritable folder, a
            virtual file system such as /proc, one of the inputs, an existing file without
            `--overwrite`, or `-` where not allowed.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_output_file(folder / "p.jsonl", "--out") == folder / "p.jsonl"
    True
    >>> check_output_file(folder, "--out")
    Traceback (most recent call last):
    longground.errors.UserError: --out ...: is a folder; give a file name
    """
    path = Path(path)
    where = f"{option} {path}"
    if is_stdout(path):
        if stdout:
            return path
        raise UserError(f"{where}: this command does not write to standard output; name a file")
    if path.is_dir():
        raise UserError(f"{where}: is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise UserError(f"{where}: is not a regular file")
    same = same_as_any(path, inputs)
    if same is not None:
        even = "" if overwrite is None else " (even --overwrite does not allow that)"
        raise UserError(f"{where}: would overwrite the input {same}{even}; choose another "
                        "output name")  # fmt: skip
    if overwrite is False and path.exists():
        raise UserError(f"{where}: exists; pass --overwrite to replace it, or choose another "
                        "name")  # fmt: skip
    check_writable_folder(path.parent, where, "folder of the file")
    return path


def check_output_folder(
    path: Path,
    option: str,
    inputs: Iterable[Path | None] = (),
    files: Iterable[str] = (),
) -> Path:
    """Refuse an output folder that is a file, cannot be created or written in, or holds one
    of `inputs` where the command writes.

    A missing folder is created by the command later; the folder it would be created in must
    exist, as for an output file.

    Args:
        path: the folder.
        option: the option that named it.
        inputs: the command's input files.
        files: glob patterns, relative to `path`, of the files the command writes there; an
            input that is one of the files they match is refused.

    >>> import tempfile
    >>> check_output_folder(Path(tempfile.mkdtemp()) / "bench", "--out").name
    'bench'
    >>> check_output_folder(Path(tempfile.mkdtemp()) / "no" / "bench", "--out")
    Traceback (most recent call last):
    longground.errors.UserError: --out ...: the folder above it ... does not exist
    """
    path = Path(path)
    where = f"{option} {path}"
    if is_stdout(path):
        raise UserError(f"{where}: this command writes a folder; name one")
    if path.exists() and not path.is_dir():
        raise UserError(f"{where}: is a file, not a folder")
    if path.is_dir():
        check_writable_folder(path, where, "folder")
        _check_inputs_inside(path, where, list(inputs), list(files))
    else:
        check_writable_folder(path.parent, where, "folder above it")
    return path


def _check_inputs_inside(folder: Path, where: str, inputs: list, patterns: list[str]) -> None:
    """Refuse when an input is one of the files `patterns` match in `folder`."""
    if not patterns or not any(p is not None for p in inputs):
        return
    for pattern in patterns:
        for written in folder.glob(pattern):
            same = same_as_any(written, inputs)
            if same is not None:
                raise UserError(
                    f"{where}: would overwrite the input {same} (as {written.name}; even "
                    "--overwrite does not allow that); choose another folder"
                )


def check_writable_folder(folder: Path, where: str, what: str) -> None:
    """Create and remove a temporary file in `folder`: the one test that also holds for root,
    read-only mounts and virtual file systems."""
    folder = folder if str(folder) else Path(".")
    resolved = folder.resolve()
    if any(resolved == root or root in resolved.parents for root in VIRTUAL_ROOTS):
        raise UserError(f"{where}: {resolved} is on a virtual file system; write elsewhere")
    if not folder.exists():
        if folder.parent.exists() and not folder.parent.is_dir():
            raise UserError(f"{where}: {folder.parent} is not a folder")
        raise UserError(f"{where}: the {what} {folder} does not exist")
    if not folder.is_dir():
        raise UserError(f"{where}: {folder} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".longground-probe.")
    except OSError as exc:
        raise UserError(f"{where}: cannot write in {folder} ({exc.strerror})") from None
    os.close(fd)
    Path(probe).unlink(missing_ok=True)


@contextmanager
def open_output(
    path: str | Path,
    option: str = "--out",
    inputs: Iterable[Path | None] = (),
    mode: str = "w",
    *,
    stdout: bool = False,
    overwrite: bool | None = None,
) -> Iterator[IO]:
    """Write an output file: the checks of `check_output_file` once more, then an atomic
    write (the old file or the new one, never half), or standard output for `-`.

    A symbolic link is written through: the file it points to is replaced, the link kept.

    Raises:
        UserError: the checks fail, or the write does (disk full, permissions).
    """
    path = check_output_file(Path(path), option, list(inputs), stdout=stdout, overwrite=overwrite)
    if is_stdout(path):
        stream = sys.stdout.buffer if "b" in mode else sys.stdout
        yield stream
        stream.flush()
        return
    target = path.resolve() if path.is_symlink() else path
    try:
        with atomic_open(target, mode) as handle:
            yield handle
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None
