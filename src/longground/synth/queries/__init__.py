"""Query templates, one module per CoMET attribute; importing this package registers them."""

from . import bounded, causal, dynamic, identity, negative, sequential, static, synchronous
from .base import QUERY_BUILDERS, Candidate, register
from .select import ATTRIBUTE_ORDER, Query, select_queries

__all__ = [
    "ATTRIBUTE_ORDER",
    "QUERY_BUILDERS",
    "Candidate",
    "Query",
    "bounded",
    "causal",
    "dynamic",
    "identity",
    "negative",
    "register",
    "select_queries",
    "sequential",
    "static",
    "synchronous",
]
