"""Video decoding on PyAV: metadata, frames at exact times, batched sampling, mosaics.

Times are seconds from the start of the video stream; frame rates are exact fractions.
"""

from .batch import FrameBatch
from .errors import BadVideo, DamagedVideo, TruncatedVideo
from .grid import mosaic
from .info import VideoInfo, probe
from .sampling import FrameStream, frames_at, sample_frames
from .writer import VideoWriter

__all__ = [
    "BadVideo",
    "DamagedVideo",
    "FrameBatch",
    "FrameStream",
    "TruncatedVideo",
    "VideoInfo",
    "VideoWriter",
    "frames_at",
    "mosaic",
    "probe",
    "sample_frames",
]
