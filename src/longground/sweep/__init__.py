"""The window-clipping sweep (ExtremeWhenBench Fig. 4 / Table 7): methods on GT-centred crops
of growing length, scored with the single protocol; and the frame-count sweep (Table 5)."""

from .crop import CROP_METHODS, FRAME_PARAMS, build_crop_method, build_sweep_methods, parse_frames
from .run import prepare_out, run_sweep, variant_label
from .score import score_sweep, write_results
from .windows import DEFAULT_WINDOWS, Window, parse_windows

__all__ = [
    "CROP_METHODS",
    "FRAME_PARAMS",
    "DEFAULT_WINDOWS",
    "Window",
    "build_crop_method",
    "build_sweep_methods",
    "parse_frames",
    "parse_windows",
    "prepare_out",
    "run_sweep",
    "score_sweep",
    "variant_label",
    "write_results",
]
