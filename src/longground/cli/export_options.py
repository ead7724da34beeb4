"""Options that take found moments out of `find` and `run`: `--export` files (format by
suffix: markers for editing tools, or tables), `--selects` (a clip per moment), `--clips`
(an MP4 per moment), `--thumbs` (a contact sheet), `--timeline` (a strip).

A command declares them with these annotated types, checks every one with
`ExportTargets.check` before it searches (paths, suffixes, the rates a format can count,
clip files a search could replace), and hands every `Found` to `ExportTargets.write` at the
end.
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
        help="Write the moments to this file, format by suffix: markers on the source clips "
        "for .fcpxml (Final Cut Pro), .xml (FCP7 XML: Premiere, Resolve), .otio "
        "(OpenTimelineIO), .edl (CMX 3600 with locators); or .csv, .srt, .vtt, .jsonl "
        "(--json's objects). With --tracks, .jsonl holds the boxes and .csv writes them to "
        "NAME.boxes.csv beside it. Repeat for more.",
    ),
]
Selects = Annotated[
    list[Path] | None,
    typer.Option(
        "--selects",
        help="Write a selects timeline, a clip per moment cut back to back: .otio or .edl.",
    ),
]
Clips = Annotated[
    Path | None,
    typer.Option(
        "--clips", help="Write each moment as its own MP4, with its sound, into this folder."
    ),
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
Overwrite = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace output files that exist (an input is never replaced).",
    ),
]


PICTURES = ("--thumbs", "--timeline")


@dataclass(frozen=True)
class ExportTargets:
    """Where the found moments go; empty when no option asks for anything.

    `overwrite` is the command's `--overwrite`; None for a command without one (`run`,
    which writes its exports again each time it resumes). `tracks`: the moments will carry
    tracks, so a `.csv` export writes its boxes beside it too (`export.companion`).
    """

    exports: tuple[Path, ...] = ()
    clips: Path | None = None
    exact: bool = False
    thumbs: Path | None = None
    timeline: Path | None = None
    selects: tuple[Path, ...] = ()
    overwrite: bool | None = None
    tracks: bool = False

    @property
    def wanted(self) -> bool:
        return bool(self.exports or self.selects) or any(
            p is not None for p in (self.clips, self.thumbs, self.timeline)
        )

    def files(self) -> list[tuple[Path, str]]:
        """`(path, option)` of every file output (a `.csv` export's file of boxes too, as
        "--export boxes", when the moments carry tracks)."""
        from ..export.table import boxes_path

        pictures = [(p, o) for p, o in ((self.thumbs, "--thumbs"), (self.timeline, "--timeline"))
                    if p is not None]  # fmt: skip
        boxes = [(boxes_path(p), "--export boxes") for p in self.exports
                 if self.tracks and p.suffix.lower() == ".csv"]  # fmt: skip
        return ([(p, "--export") for p in self.exports] + boxes
                + [(p, "--selects") for p in self.selects] + pictures)  # fmt: skip

    def check(self, inputs: Iterable[Path | None], videos: Sequence[Path] = ()) -> None:
        """Refuse, before any work, unknown suffixes, unwritable paths, existing files
        without `--overwrite`, paths that are inputs or that two options share, clips a
        search could write over, and (given the `videos`) frame rates a format cannot
        count."""
        from ..export import exporter

        inputs = list(inputs)
        for path, option in self.files():
            check_output_file(path, option, inputs=inputs, overwrite=self.overwrite)
        for path, option in self.files():
            if option == "--export boxes":
                continue
            if option not in PICTURES:
                exporter(path, option)
            elif path.suffix.lower() != ".png":
                raise UserError(f"{option} {path}: give a .png file name")
        _one_file_each(self.files())
        if self.exact and self.clips is None:
            raise UserError("--exact applies to --clips; add --clips DIR")
        if self.clips is not None:
            check_output_folder(self.clips, "--clips")
            self._check_clips(videos)
        self.check_rates(videos)

    def _check_clips(self, videos: Sequence[Path]) -> None:
        from ..export.clips import existing_clips

        held = existing_clips(list(videos), self.clips) if self.overwrite is False else []
        if held:
            more = f" and {len(held) - 1} more" if len(held) > 1 else ""
            raise UserError(f"--clips {self.clips}: holds {held[0].name}{more}, which a clip of "
                            "this search could replace; pass --overwrite, or choose another "
                            "folder")  # fmt: skip

    def check_rates(self, videos: Sequence[Path]) -> None:
        """Refuse a video whose frame rate an `--export`/`--selects` format cannot count
        (an EDL: one SMPTE rate; FCP7 XML: SMPTE rates). Videos that cannot be read are left
        to the search, which reports them."""
        from ..export import check_rates

        timed = [(p, o) for p, o in self.files() if p.suffix.lower() in (".edl", ".xml")]
        if not timed or not videos:
            return
        clocks = _clocks(videos)
        for path, option in timed:
            check_rates(path, clocks, option)

    def write(self, found: Sequence) -> list[str]:
        """Write every target from `found` (a list of `export.Found`); returns one line per
        file or folder written, for the user."""
        from ..export import export
        from ..export.clips import planned_clips, write_clips
        from ..export.pictures import contact_sheet, timeline_strip

        found = list(found)
        if self.clips is not None:  # refuse before writing anything
            planned_clips(found, self.clips, self.overwrite is not False)
        lines = []
        for path, option in self.files():
            if option == "--thumbs":
                n = contact_sheet(found, path)
                lines.append(f"wrote {path} ({n} frame{'s' if n != 1 else ''})")
            elif option == "--timeline":
                timeline_strip(found, path)
                lines.append(f"wrote {path}")
            elif option != "--export boxes":  # written with its export
                lines += [f"wrote {written}" for written in export(path, found, option)]
        if self.clips is not None:
            written = write_clips(found, self.clips, self.exact, self.overwrite is not False)
            lines.append(f"wrote {len(written)} clip{'s' if len(written) != 1 else ''} "
                         f"into {self.clips}")  # fmt: skip
        return lines


def _one_file_each(files: list[tuple[Path, str]]) -> None:
    """Refuse two options naming one file, saying which file and which options."""
    seen: dict[Path, str] = {}
    for path, option in files:
        key = path.resolve()
        if key in seen:
            raise UserError(f"{seen[key]} and {option} both name {path}; give each its own "
                            "file")  # fmt: skip
        seen[key] = option


def _clocks(videos: Sequence[Path]) -> list:
    """`(video, SourceClock)` of every video that can be read."""
    from ..export import read_clock

    clocks = []
    for video in dict.fromkeys(videos):
        try:
            clocks.append((video, read_clock(video)))
        except UserError:
            continue
    return clocks


def found(video: Path, query: str, moments, method: str | None = None,
          channel: str | None = None, tracks=None, objects: int | None = None):  # fmt: skip
    """The `export.Found` of one search (a light import: no video is opened)."""
    from ..export import Found

    return Found(Path(video), query, moments, method=method, channel=channel, tracks=tracks,
                 objects=objects)  # fmt: skip


def run_videos(samples: Sequence, video_roots: Sequence[Path]) -> list[Path]:
    """The video files a run's queries name, looked up as the run looks them up."""
    from ..run.scheduler import resolve_video

    return [resolve_video(s.video, video_roots) or Path(s.video) for s in samples]


def run_found(samples: Sequence, out: Path, video_roots: Sequence[Path]) -> list:
    """The `export.Found` of every answered query of a run's prediction file `out`, in the
    benchmark's order, each with its video looked up as the run looked it up."""
    from ..export import Found
    from ..formats import load_predictions

    predictions = {p.qid: p for p in load_predictions(out, "canonical", samples)}
    found = []
    for sample, video in zip(samples, run_videos(samples, video_roots)):
        prediction = predictions.get(sample.qid)
        if prediction is None or prediction.moments is None or "error" in prediction.extra:
            continue
        found.append(Found(video, sample.query, prediction.moments))
    return found
