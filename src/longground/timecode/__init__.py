"""Times in longground: the one grammar (`grammar`), reading a file's times (`parse_time`) and
writing `HH:MM:SS.s` (`format_time`) and places in time order (`ordinal`)."""

from .format import format_time, ordinal
from .grammar import TimeError, read_clock, read_point
from .parse import parse_time

__all__ = ["TimeError", "format_time", "ordinal", "parse_time", "read_clock", "read_point"]
