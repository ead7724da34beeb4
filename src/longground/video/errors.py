"""What can go wrong with a video file, said in one line that names the file."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError


class BadVideo(UserError):
    """A file that cannot be read as a video: missing, not a video, empty, audio only, or in
    a codec this FFmpeg build cannot decode.

    >>> str(BadVideo("clip.mp4", "no such file"))
    'clip.mp4: no such file'
    """

    def __init__(self, path: str | Path, message: str):
        super().__init__(f"{path}: {message}")
        self.path = str(path)


class DamagedVideo(UserWarning):
    """Some packets of a video could not be decoded; the frames around them may be wrong."""


class TruncatedVideo(DamagedVideo):
    """Decoding stopped before the end the file's header announces; the frames before that
    point are still returned."""
