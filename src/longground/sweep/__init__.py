"""The window-clipping sweep (ExtremeWhenBench Fig. 4 / Table 7): methods on GT-centred crops
of growing length, scored with the single protocol."""

from .crop import CROP_METHODS, build_crop_method
from .run import prepare_out, run_sweep
from .score import score_sweep, write_results
from .windows import DEFAULT_WINDOWS, Window, parse_windows

__all__ = [
    "CROP_METHODS",
    "DEFAULT_WINDOWS",
    "Window",
    "build_crop_method",
    "parse_windows",
    "prepare_out",
    "run_sweep",
    "score_sweep",
    "write_results",
]
