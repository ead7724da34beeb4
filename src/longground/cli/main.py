"""Entry point of the `longground` command.

Each command lives in its own module and registers itself on `app`. Any `UserError` becomes
one line on stderr and exit code 2; no traceback for expected failures.
"""

from __future__ import annotations

import sys

import typer

from ..errors import UserError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Find every moment in a long video that matches a query, and score grounding systems.",
    pretty_exceptions_enable=False,
)

# Importing a command module registers its commands on `app`.
COMMAND_MODULES: list[str] = []


def _register() -> None:
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(f"longground.cli.{name}")


def fail(message: str) -> None:
    """Print a one-line error and exit with code 2."""
    typer.echo(f"longground: error: {message}", err=True)
    raise typer.Exit(2)


def main(argv: list[str] | None = None) -> int:
    _register()
    try:
        code = app(args=argv, standalone_mode=False)
    except UserError as exc:
        typer.echo(f"longground: error: {exc}", err=True)
        return 2
    except KeyboardInterrupt:
        typer.echo("longground: interrupted", err=True)
        return 130
    except typer.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # click usage errors
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            return 2
        raise
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
