"""Entry point of the `longground` command.

Each command lives in its own module and registers itself on `app`. Any `UserError` becomes
one line on stderr and exit code 2; no traceback for expected failures.
"""

from __future__ import annotations

import sys
import warnings

import typer

try:  # typer >= 0.20 carries its own copy of click
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover - older typer on the installed click
    from click.exceptions import NoArgsIsHelpError, UsageError

from ..errors import UserError
from .checks import guard_values

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Find every moment in a long video that matches a query, and score grounding systems.",
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's help layout: docstring paragraphs re-wrapped to the terminal
)

# Importing a command module registers its commands on `app`.
COMMAND_MODULES: list[str] = [
    "find_cmd",
    "run_cmd",
    "eval_cmd",
    "synth_cmd",
    "info_cmd",
    "index_cmd",
    "cache_cmd",
    "build_cmd",
    "stats_cmd",
    "report_cmd",
    "sweep_cmd",
    "reproduce_cmd",
    "annotate_cmd",
    "transcript_cmd",
    "serve_cmd",
    "serve_stub_cmd",
]


def _register(argv: list[str]) -> None:
    """Import the command named first in `argv` (module `<name>_cmd`), or all of them (for help
    and unknown names): a `find` then does not pay for importing the scoring code."""
    import importlib

    wanted = f"{argv[0].replace('-', '_')}_cmd" if argv else None
    for name in [wanted] if wanted in COMMAND_MODULES else COMMAND_MODULES:
        importlib.import_module(f"longground.cli.{name}")


def version_line() -> str:
    """`longground X.Y.Z`, the installed version (the source tree's when not installed).

    >>> version_line().startswith("longground ")
    True
    """
    from importlib import metadata

    from .. import __version__

    try:
        return f"longground {metadata.version('longground')}"
    except metadata.PackageNotFoundError:
        return f"longground {__version__}"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Find every moment in a long video that matches a query, and score grounding systems."""


def print_error(exc: Exception) -> None:
    """The one-line form of an error a user can fix: `longground: error: ...` on stderr."""
    typer.echo(f"longground: error: {exc}", err=True)


def _usage_line(exc: UsageError) -> str:
    """A usage error as one line that says where the help is."""
    message = " ".join(exc.format_message().split())
    command = exc.ctx.command_path if exc.ctx is not None else "longground"
    return f"{message} (see '{command} --help')"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings for people: one line, no source location (`note:` for a category that says
    it is only a note, such as a video without an audio stream)."""
    typer.echo(f"longground: {getattr(category, 'label', 'warning')}: {message}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: `sys.argv[1:]`) and return the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _register(argv)
    warnings.showwarning = _show_warning
    command = typer.main.get_command(app)
    guard_values(command)
    try:
        code = command.main(args=argv, prog_name="longground", standalone_mode=False)
    except UserError as exc:
        print_error(exc)
        return 2
    except (KeyboardInterrupt, typer.Abort):
        code = 130
    except typer.Exit as exc:
        code = exc.exit_code
    except NoArgsIsHelpError as exc:
        exc.show()
        return exc.exit_code
    except UsageError as exc:  # bad option or value, missing argument: one line too
        print_error(_usage_line(exc))
        return exc.exit_code
    except typer.TyperException as exc:
        exc.show()
        return exc.exit_code
    if code == 130:  # Ctrl-C (typer turns it into this code without a word)
        typer.echo("longground: interrupted", err=True)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
