"""The output folder of a build: whose it is, so one pipeline never writes over another's.

Each pipeline leaves `build.json` (`{"pipeline": NAME, ...}`) in its `--out`. A folder that
holds another pipeline's outputs, or files that no build made, is refused unless the user
passes `--overwrite`; the same pipeline finds its own folder again and resumes in it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError

MARKER = "build.json"
FORMAT = "longground-build/1"


def owner(out: Path) -> str | None:
    """The pipeline recorded in `out/build.json`, "" for a folder with other files and no
    marker, None for a missing or empty folder.

    >>> import tempfile
    >>> owner(Path(tempfile.mkdtemp())) is None
    True
    """
    out = Path(out)
    if not out.exists() or (out.is_dir() and not any(out.iterdir())):
        return None
    try:
        return str(json.loads((out / MARKER).read_text(encoding="utf-8"))["pipeline"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def claim(out: Path, pipeline: str, *, overwrite: bool, resumable: bool = True) -> bool:
    """Make `out` this pipeline's folder, before any long work starts.

    Args:
        out: the `--out` folder (created if missing).
        pipeline: "comet", "ewb", "agree", ...
        overwrite: take the folder whatever it holds (files of ours are then replaced).
        resumable: the pipeline resumes in its own folder; False refuses that too, since
            re-running would replace its earlier outputs.

    Returns:
        True when `out` already held this pipeline's outputs (a resume).

    Raises:
        UserError: `out` is a file, holds another pipeline's or unknown files, or cannot be
            written.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "b"
    >>> claim(folder, "comet", overwrite=False), claim(folder, "comet", overwrite=False)
    (False, True)
    >>> claim(folder, "ewb", overwrite=False)
    Traceback (most recent call last):
    ...
    longground.errors.UserError: ...
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    found = owner(out)
    mine = found == pipeline
    if found is not None and not overwrite and not (mine and resumable):
        held = f"the outputs of `longground build {found}`" if found else "files no build made"
        if mine:
            held = "this command's earlier outputs"
        raise UserError(f"--out {out} holds {held}; pass --overwrite, or choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not mine or overwrite:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            with atomic_open(out / MARKER) as handle:
                json.dump({"format": FORMAT, "pipeline": pipeline, "created_utc": stamp}, handle)
                handle.write("\n")
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
    return mine and not overwrite
