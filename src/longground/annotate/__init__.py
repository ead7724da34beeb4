"""`longground annotate`: a web tool to verify queries and refine their intervals.

The server (`app.create_app`, FastAPI) sees storage only through `AnnotationStore` (SQLite),
checks every edit with `changes.read_change` / `changes.apply_change`, and serves videos
from one folder (`media.MediaFolder`). The page (`static/`) is a thin view over that API.
FastAPI and uvicorn load only when the server is built (extra `annotate`).
"""

from .changes import Change, InvalidEdit, apply_change, read_change
from .record import EDITABLE, REVIEW_STATES, AnnotatedQuery
from .store import AnnotationStore, Edit, StaleVersion, UnknownQuery, VideoProgress

__all__ = [
    "EDITABLE",
    "REVIEW_STATES",
    "AnnotatedQuery",
    "AnnotationStore",
    "Change",
    "Edit",
    "InvalidEdit",
    "StaleVersion",
    "UnknownQuery",
    "VideoProgress",
    "apply_change",
    "read_change",
]
