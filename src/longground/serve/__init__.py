"""`longground serve`: a local web app that searches a footage library.

The `Library` (the videos under the folders and their indexing states) is kept up to date by
an `Indexer` thread; the app (`create_app`) answers searches through a `Searcher`, the same
method `find` builds (`MethodSearcher`), and exports the chosen hits with
`longground.export`. The page in `static/` is a thin view over the API.
"""

from .app import create_app
from .indexer import Indexer
from .library import Library
from .search import MethodSearcher, Searcher

__all__ = ["Indexer", "Library", "MethodSearcher", "Searcher", "create_app"]
