"""`longground cache info|list|clean`: see and reclaim what longground keeps on disk."""

from __future__ import annotations

import enum
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from ..cache import admin as ca
from ..errors import UserError
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
Kind = enum.Enum("Kind", {name: name for name in ca.KINDS}, type=str)
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
    index = [e for e in found if e.kind == "index"] if entries else []
    if as_json:
        record = {
            "root": str(root),
            "exists": root.is_dir(),
            "kinds": {k: {"entries": n, "bytes": b} for k, (n, b) in totals.items()},
            "total_bytes": sum(b for _, b in totals.values()),
        }
        if entries:
            record["index_entries"] = [e.to_dict() for e in index]
        typer.echo(json.dumps(record))
        return
    typer.echo(f"cache root: {root}" + ("" if root.is_dir() else " (does not exist)"))
    for line in _usage_table(totals):
        typer.echo(line)
    if entries:
        typer.echo("")
        for line in _index_table(index):
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
        for line in _doomed_lines(doomed, found, root):
            typer.echo(line)
        typer.echo(f"would free {_bytes(estimate)}; dry run, nothing removed")
        return
    summary = _summary(doomed)
    if not yes:
        _confirm(f"remove {summary} from {root}?")
    freed = ca.remove(doomed, root)
    typer.echo(f"removed {summary}; freed {_bytes(freed)}")


def _kinds(kind: list[str], missing_videos: bool) -> tuple[str, ...]:
    if not missing_videos:
        return tuple(kind or ca.KINDS)
    video_kinds = ("index", "agent")  # the kinds whose entries belong to one video
    if kind and not set(kind) <= set(video_kinds):
        raise UserError("--missing-videos applies to --kind index and agent only")
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


def _index_table(index: list[ca.Entry]) -> list[str]:
    if not index:
        return ["no index entries"]
    encoders = [e.encoder_id or "? (unreadable)" for e in index]
    width = max(len("encoder"), *map(len, encoders)) + 2
    lines = [f"{'modified':<17}{'size':>11}  {'fps':>6}  {'encoder':<{width}}video"]
    for entry, encoder in sorted(zip(index, encoders), key=lambda p: p[0].mtime_s, reverse=True):
        video = entry.video_path or f"{_stem(entry.path)} (path not recorded)"
        fps = "?" if entry.fps is None else f"{entry.fps:g}"
        lines.append(
            f"{_when(entry.mtime_s):<17}{ca.format_bytes(entry.nbytes):>11}  {fps:>6}  "
            f"{encoder:<{width}}{video}"
        )
    return lines


def _doomed_lines(doomed: list[ca.Entry], found: list[ca.Entry], root: Path) -> list[str]:
    lines, answers = [], []
    for entry in doomed:
        if entry.kind == "llm" and entry.row_key is not None:
            answers.append(entry)
        else:
            lines.append(
                f"would remove {entry.kind:<8} {entry.path} "
                f"({ca.format_bytes(entry.nbytes)}, modified {_when(entry.mtime_s)})"
            )
    if answers:
        stored = sum(e.kind == "llm" for e in found)
        if len(answers) == stored:
            what = f"the whole database, {ca.format_bytes(ca.usage(root, [])['llm'][1])}"
        else:
            what = f"about {ca.format_bytes(sum(e.nbytes for e in answers))}"
        lines.append(
            f"would remove llm      {len(answers)} of {stored} stored answers from "
            f"{answers[0].path} ({what})"
        )
    return lines


def _summary(doomed: list[ca.Entry]) -> str:
    counts = {k: sum(e.kind == k for e in doomed) for k in ca.KINDS}
    return ", ".join(f"{n} {k}" for k, n in counts.items() if n) + " entries"


def _bytes(nbytes: int) -> str:
    human = ca.format_bytes(nbytes)
    return human if nbytes < 1024 else f"{human} ({nbytes} bytes)"


def _stem(path: Path) -> str:
    return path.name.rsplit(".", 2)[0]


def _when(mtime_s: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(mtime_s))
