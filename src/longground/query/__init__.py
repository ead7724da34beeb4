"""Query analysis: what a query asks for, computed once (`analyse`) and read by every method.

>>> from longground.query import analyse
>>> analyse("every time the speaker says the word submarine").target.route.needle
'submarine'
"""

from .analysis import MAX_QUERY_CHARS, Event, QueryAnalysis, analyse, check_query
from .channel import CHANNELS, Route, route
from .structure import Relation

__all__ = [
    "CHANNELS",
    "MAX_QUERY_CHARS",
    "Event",
    "QueryAnalysis",
    "Relation",
    "Route",
    "analyse",
    "check_query",
    "route",
]
