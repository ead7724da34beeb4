"""longground: find every moment in a long video that matches a query, and score such systems."""

from .errors import UserError
from .moments import Moments, tiou_matrix
from .samples import Prediction, Sample
from .timecode import format_time, parse_time

__all__ = [
    "Moments",
    "Prediction",
    "Sample",
    "UserError",
    "format_time",
    "parse_time",
    "tiou_matrix",
]
__version__ = "0.1.0"
