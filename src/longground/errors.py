"""Errors meant for people: each is one line naming the file, line or query at fault.

The CLI turns any `UserError` into that line on stderr and exit code 2, without a traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input the user can fix (a file, a line, a query, a server); exit code 2."""


class BadInputFile(UserError):
    """A line of an input file that cannot be used.

    >>> str(BadInputFile("gt.jsonl", 3, "end < start", qid="q7"))
    'gt.jsonl:3: qid q7: end < start'
    """

    def __init__(self, path: str, line: int | None, message: str, qid: str | None = None):
        where = f"{path}:{line}" if line is not None else str(path)
        who = f" qid {qid}:" if qid is not None else ""
        super().__init__(f"{where}:{who} {message}")
        self.path, self.line, self.qid = path, line, qid


class MissingExtra(UserError):
    """An optional dependency is not installed.

    >>> str(MissingExtra("av", "video"))
    "this needs the package 'av': pip install 'longground[video]'"
    """

    def __init__(self, module: str, extra: str):
        super().__init__(f"this needs the package {module!r}: pip install 'longground[{extra}]'")


def require(module: str, extra: str):
    """Import an optional dependency, or raise `MissingExtra` naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(module, extra) from exc
