"""`longground cache info|list|clean`: see and reclaim what longground keeps on disk."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..agent.graph import cache_kind as _agent_kind  # noqa: F401  (each registers its kind)
from ..cache import admin as ca
from ..channels import cache_kind as _channels_kind  # noqa: F401
from ..encoders import cache_kind as _encoders_kind  # noqa: F401
from ..errors import UserError
from ..index import cache_kind as _index_kind  # noqa: F401
from ..llm import cache_kind as _llm_kind  # noqa: F401
from .checks import at_least, check_cache_root
from .main import app

cache_app = typer.Typer(
    no_args_is_help=True, help="See and reclaim what longground keeps on disk (see docs/cache.md)."
)
app.add_typer(cache_app, name="cache")

DAY_S = 86400.0

CacheRoot = Annotated[
    Path | None,
    typer.Option("--cache-dir", "--cache", help="Cache root (default: $LONGGROUND_CACHE or "
                 "~/.cache/longground)."),
]  # fmt: skip
Kind = enum.Enum("Kind", {kind.name: kind.name for kind in ca.kinds()}, type=str)
Kinds = Annotated[
    list[Kind] | None,
    typer.Option("--kind", help="Only this kind; repeat for more (default: all)."),
]

OlderThan = Annotated[
    float | None,
    typer.Option("--older-than", callback=at_least(0.0), metavar="DAYS",
                 help="Only entries last written more than DAYS days ago."),
]  # fmt: skip
MissingVideos = Annotated[
    bool,
    typer.Option("--missing-videos", help="Only index entries whose video is gone or has "
                 "changed (and agent files of those videos)."),
]  # fmt: skip
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would go; remove nothing.")]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
AsJson = Annotated[bool, typer.Option("--json", help="One JSON object.")]
Entries = Annotated[bool, typer.Option("--entries", help="Also list each index entry.")]


def info(
    cache_dir: CacheRoot = None,
    as_json: AsJson = False,
    entries: Entries = False,
) -> None:
    """Show the cache root and, per kind, how many entries it holds and their size."""
    root = check_cache_root(cache_dir, write=False)
    found = ca.scan(root)
    totals = ca.usage(root, found)
    listed = [k for k in ca.kinds() if k.lists_entries] if entries else []
    groups = ca.by_kind(found)
    if as_json:
        record = {
            "root": str(root),
            "exists": root.is_dir(),
            "kinds": {k: {"entries": n, "bytes": b} for k, (n, b) in totals.items()},
            "total_bytes": sum(b for _, b in totals.values()),
        }
        for kind in listed:
            record[f"{kind.name}_entries"] = [e.to_dict() for e in groups[kind.name]]
        typer.echo(json.dumps(record))
        return
    typer.echo(f"cache root: {root}" + ("" if root.is_dir() else " (does not exist)"))
    for line in _usage_table(totals):
        typer.echo(line)
    for kind in listed:
        typer.echo("")
        for line in kind.entry_lines(groups[kind.name]):
            typer.echo(line)


cache_app.command("info")(info)
cache_app.command("list", help="Same as `info`.")(info)


@cache_app.command("clean")
def clean(
    cache_dir: CacheRoot = None,
    kind: Kinds = None,
    older_than: OlderThan = None,
    missing_videos: MissingVideos = False,
    dry_run: DryRun = False,
    yes: Yes = False,
) -> None:
    """Remove cache entries: by kind, by age, or those of videos that are gone.

    Temporary files younger than an hour may belong to a running write and are kept.
    Asks before removing anything unless --yes; without a terminal to ask on, --yes is needed.
    """
    kinds = _kinds([k.value for k in kind or []], missing_videos)
    root = check_cache_root(cache_dir, write=False)
    found = ca.scan(root)
    older_than_s = None if older_than is None else older_than * DAY_S
    doomed = ca.select(found, kinds, older_than_s, missing_videos)
    if not doomed:
        typer.echo("nothing to remove")
        return
    if dry_run:
        estimate = ca.estimate_freed(doomed, found, root)
        for line in ca.describe(doomed, found, root):
            typer.echo(line)
        typer.echo(f"would free {_bytes(estimate)}; dry run, nothing removed")
        return
    summary = ca.summary(doomed)
    if not yes:
        _confirm(f"remove {summary} from {root}?")
    freed = ca.remove(doomed, root)
    typer.echo(f"removed {summary}; freed {_bytes(freed)}")


def _kinds(kind: list[str], missing_videos: bool) -> tuple[str, ...]:
    if not missing_videos:
        return tuple(kind or (k.name for k in ca.kinds()))
    video_kinds = ca.video_kinds()  # the kinds whose entries belong to one video
    if kind and not set(kind) <= set(video_kinds):
        raise UserError(f"--missing-videos applies to --kind {' and '.join(video_kinds)} only")
    return tuple(kind or video_kinds)


def _confirm(question: str) -> None:
    if sys.stdin is None or not sys.stdin.isatty():
        raise UserError("refusing to remove cache entries without --yes (stdin is not a terminal)")
    if not typer.confirm(question, default=False):
        typer.echo("nothing removed")
        raise typer.Exit(1)


def _usage_table(totals: dict[str, tuple[int, int]]) -> list[str]:
    rows = [(k, n, b) for k, (n, b) in totals.items()]
    rows.append(("total", sum(n for _, n, _ in rows), sum(b for _, _, b in rows)))
    lines = [f"{'kind':<10}{'entries':>9}{'size':>12}"]
    lines += [f"{k:<10}{n:>9}{ca.format_bytes(b):>12}" for k, n, b in rows]
    return lines


def _bytes(nbytes: int) -> str:
    human = ca.format_bytes(nbytes)
    return human if nbytes < 1024 else f"{human} ({nbytes} bytes)"
