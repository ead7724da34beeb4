"""Options that take found moments out of `find` and `run`: `--export` files (format by
suffix), `--clips` (an MP4 per moment), `--thumbs` (a contact sheet), `--timeline` (a strip).

A command declares them with these annotated types, checks them with `ExportTargets.check`
before it searches, and hands every `Found` to `ExportTargets.write` at the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UserError
from .checks import check_output_file, check_output_folder

Export = Annotated[
    list[Path] | None,
    typer.Option(
        "--export",
        help="Write the moments to this file, format by suffix: .csv, .srt, .vtt, .edl "
        "(CMX 3600), .otio (OpenTimelineIO); repeat for more.",
    ),
]
Clips = Annotated[
    Path | None,
    typer.Option("--clips", help="Write each moment as its own MP4 into this folder."),
]
Exact = Annotated[
    bool,
    typer.Option(
        "--exact",
        help="--clips re-encodes to cut exactly at the moment (default: copy from the "
        "keyframe before it, fast and lossless).",
    ),
]
Thumbs = Annotated[
    Path | None,
    typer.Option("--thumbs", help="Write a contact sheet (.png): a frame per moment."),
]
Timeline = Annotated[
    Path | None,
    typer.Option("--timeline", help="Write a strip of each video with its moments (.png)."),
]


@dataclass(frozen=True)
class ExportTargets:
    """Where the found moments go; empty when no option asks for anything."""

    exports: tuple[Path, ...] = ()
    clips: Path | None = None
    exact: bool = False
    thumbs: Path | None = None
    timeline: Path | None = None

    @property
    def wanted(self) -> bool:
        return bool(self.exports) or any(p is not None for p in (self.clips, self.thumbs,
                                                                   self.timeline))  # fmt: skip

    def check(self, inputs: Iterable[Path | None]) -> None:
        """Refuse, before any work, unknown suffixes, unwritable paths and paths that are
        inputs or that two options share."""
        from ..export import exporter

        inputs = list(inputs)
        pictures = [(p, o) for p, o in ((self.thumbs, "--thumbs"), (self.timeline, "--timeline"))
                    if p is not None]  # fmt: skip
        named = [(p, "--export") for p in self.exports] + pictures
        for path, option in named:
            check_output_file(path, option, inputs=inputs)
        for path in self.exports:
            exporter(path)
        for path, option in pictures:
            if path.suffix.lower() != ".png":
                raise UserError(f"{option} {path}: give a .png file name")
        resolved = [p.resolve() for p, _ in named]
        if len(set(resolved)) < len(resolved):
            raise UserError("two output options name the same file")
        if self.exact and self.clips is None:
            raise UserError("--exact applies to --clips; add --clips DIR")
        if self.clips is not None:
            check_output_folder(self.clips, "--clips")

    def write(self, found: Sequence) -> list[str]:
        """Write every target from `found` (a list of `export.Found`); returns one line per
        file or folder written, for the user."""
        from ..export import export
        from ..export.clips import planned_clips, write_clips
        from ..export.pictures import contact_sheet, timeline_strip

        if self.clips is not None:
            planned_clips(list(found), self.clips)  # refuse before writing anything
        lines = []
        for path in self.exports:
            export(path, found)
            lines.append(f"wrote {path}")
        if self.thumbs is not None:
            n = contact_sheet(found, self.thumbs)
            lines.append(f"wrote {self.thumbs} ({n} frame{'s' if n != 1 else ''})")
        if self.timeline is not None:
            timeline_strip(found, self.timeline)
            lines.append(f"wrote {self.timeline}")
        if self.clips is not None:
            written = write_clips(list(found), self.clips, exact=self.exact)
            lines.append(f"wrote {len(written)} clip{'s' if len(written) != 1 else ''} "
                         f"into {self.clips}")  # fmt: skip
        return lines


def found(video: Path, query: str, moments):
    """The `export.Found` of one search (a light import: no video is opened)."""
    from ..export import Found

    return Found(Path(video), query, moments)


def run_found(samples: Sequence, out: Path, video_roots: Sequence[Path]) -> list:
    """The `export.Found` of every answered query of a run's prediction file `out`, in the
    benchmark's order, each with its video looked up as the run looked it up."""
    from ..export import Found
    from ..formats import load_predictions
    from ..run.scheduler import resolve_video

    predictions = {p.qid: p for p in load_predictions(out, "canonical", samples)}
    found = []
    for sample in samples:
        prediction = predictions.get(sample.qid)
        if prediction is None or prediction.moments is None or "error" in prediction.extra:
            continue
        video = resolve_video(sample.video, video_roots) or Path(sample.video)
        found.append(Found(video, sample.query, prediction.moments))
    return found
