"""Evidence channels beside the frame features: what is said (speech), what is written on
screen (text) and whether people are there (people), extracted once per video and cached.

>>> from longground.channels import route_query
>>> route_query("someone mentions the budget").channel
'speech'
"""

from .evidence import Evidence, People, Readings, Transcript
from .extract import CHANNELS, installed, parse_channels
from .route import Route, route_query
from .store import ChannelNote, ChannelStore, ChannelWarning

__all__ = [
    "CHANNELS",
    "ChannelNote",
    "ChannelStore",
    "ChannelWarning",
    "Evidence",
    "People",
    "Readings",
    "Route",
    "Transcript",
    "installed",
    "parse_channels",
    "route_query",
]
