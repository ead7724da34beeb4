"""What the page's export button downloads: the selected hits as markers for an editing
tool, a table, subtitles, or a zip of clips with their sound, written by `longground.export`
exactly as `find --export` / `--clips` writes them."""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError
from ..export.found import channel_in
from .library import Library
from .search import Answers

#: Download format -> (file suffix, media type).
FORMATS = {
    "fcpxml": (".fcpxml", "application/xml"),
    "xml": (".xml", "application/xml"),
    "otio": (".otio", "application/json"),
    "edl": (".edl", "text/plain"),
    "csv": (".csv", "text/csv"),
    "srt": (".srt", "text/plain"),
    "vtt": (".vtt", "text/vtt"),
    "clips": (".zip", "application/zip"),
}


def selected_found(library: Library, answers: Answers, query: str, hit_ids: Sequence[str]):
    """The `export.Found` of the chosen hits (`VIDEO:K` ids), one per video.

    Raises:
        UserError: an id that names no hit of this query.
    """
    from ..export import Found

    chosen: dict[str, list[int]] = {}
    for hit in hit_ids:
        video_id, _, k = hit.partition(":")
        if not k.isdigit():
            raise UserError(f"{hit!r} is not a hit id (VIDEO:N)")
        chosen.setdefault(video_id, []).append(int(k))
    found = []
    for video_id, indices in chosen.items():
        video = library.get(video_id)
        if video is None or video.state != "ready":
            raise UserError(f"no searched video {video_id!r}")
        answer = answers.of(video, query)
        if isinstance(answer, str) or max(indices) >= answer.moments.count:
            raise UserError(f"no hit {video_id}:{max(indices)} for {query!r}")
        moments = answer.moments[sorted(set(indices))]
        found.append(Found(video.path, query, moments, method=answers.searcher.method,
                           channel=channel_in(answer.trace)))  # fmt: skip
    return found


def download(library: Library, answers: Answers, query: str, kind: str,
             hit_ids: Sequence[str]) -> tuple[bytes, str]:  # fmt: skip
    """The bytes of the download and its file name.

    Raises:
        UserError: an unknown hit, or a frame rate the format cannot count.
    """
    from ..export import check_rates, export
    from ..export.clips import write_clips

    suffix, _ = FORMATS[kind]
    found = selected_found(library, answers, query, hit_ids)
    name = f"longground{suffix}"
    with tempfile.TemporaryDirectory(prefix="longground-serve-") as folder:
        path = Path(folder) / name
        if kind == "clips":
            written = write_clips(found, Path(folder) / "clips")
            with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
                for clip in written:
                    archive.write(clip, clip.name)
        else:
            check_rates(path, [(f.video, f.with_clock().clock) for f in found], "export")
            export(path, found)
        return path.read_bytes(), name


__all__ = ["FORMATS", "download", "selected_found"]
