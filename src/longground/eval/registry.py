"""The scoring protocols by name: importing this module registers every one of them.

Each protocol module (`comet`, `single`) registers itself with `register_protocol` when
imported; this module imports them all, so looking a protocol up never imports back into the
module that defines what a protocol is.
"""

from __future__ import annotations

from ..errors import UserError
from . import comet, single  # noqa: F401  (importing registers them)
from .protocol import PROTOCOLS, Protocol


def get_protocol(name: str) -> Protocol:
    """The registered protocol `name`, or a `UserError` listing the known ones.

    >>> get_protocol("comet").name
    'comet'
    """
    if name not in PROTOCOLS:
        raise UserError(f"unknown protocol {name!r}; choose from {', '.join(sorted(PROTOCOLS))}")
    return PROTOCOLS[name]
