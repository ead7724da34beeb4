"""The scoring protocols by name: importing this module registers every one of them.

Each protocol module (`comet`, `single`) registers itself with `register_protocol` when
imported; this module imports them all, so looking a protocol up never imports back into the
module that defines what a protocol is.
"""

from __future__ import annotations

from ..errors import UserError
from . import comet, single  # noqa: F401  (importing registers them)
from .file_protocols import FILE_PROTOCOLS
from .protocol import PROTOCOLS, Protocol


def get_protocol(name: str, **settings) -> Protocol:
    """The registered protocol `name`, or a `UserError` listing the known ones.

    Args:
        name: "comet" or "single".
        **settings: `top_k` (K values for R{K}@τ) and `iou` (tIoU thresholds), for `single`.

    >>> get_protocol("comet").name, get_protocol("single", top_k=[5]).top_k
    ('comet', (1, 5))
    """
    if name == "qvhighlights":
        raise UserError(
            "the qvhighlights protocol scores QVHighlights files: use "
            "longground.eval.qvhighlights.evaluate_qvhighlights or `longground eval --protocol "
            "qvhighlights`"
        )
    if name in FILE_PROTOCOLS:
        raise UserError(f"the {name} protocol scores its own files: use `longground eval "
                        f"--protocol {name}`")  # fmt: skip
    if name not in PROTOCOLS:
        known = ", ".join(sorted([*PROTOCOLS, *FILE_PROTOCOLS]))
        raise UserError(f"unknown protocol {name!r}; choose from {known}")
    settings = {key: value for key, value in settings.items() if value is not None}
    return PROTOCOLS[name].configured(**settings) if settings else PROTOCOLS[name]
