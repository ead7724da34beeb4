"""Evidence channels beside the frame features: what is said (speech), what is written on
screen (text) and whether people are there (people), extracted once per video and cached.
Which channel a query asks about is decided by its analysis (`longground.query`).
"""

from .evidence import Evidence, People, Readings, Transcript
from .extract import CHANNELS, installed, parse_channels
from .store import ChannelNote, ChannelStore, ChannelWarning

__all__ = [
    "CHANNELS",
    "ChannelNote",
    "ChannelStore",
    "ChannelWarning",
    "Evidence",
    "People",
    "Readings",
    "Transcript",
    "installed",
    "parse_channels",
]
