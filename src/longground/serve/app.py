"""The footage search server: a FastAPI app over a `Library`, its `Indexer` and a `Searcher`.

Endpoints (JSON unless said otherwise):

- `GET /api/library`: every video with its indexing state (queued, indexing with the
  seconds so far, ready with the seconds it took, or error with its one-line reason).
- `GET /api/search?q=QUERY[&video=ID...][&channel=C][&min_score=S]`: the hits of the ready
  videos, ranked by score, with the count per video (zero included).
- `GET /api/explain?q=QUERY&video=ID`: how the method reached its answer on that video (a
  line, and the whole trace it returned).
- `POST /api/export` `{"query", "format", "hits": ["VIDEO:K", ...]}`: the chosen hits as a
  file (FCPXML, FCP7 XML, OTIO, EDL markers, CSV, SRT, VTT, or a zip of clips with sound).
- `GET /api/tracks?q=QUERY&hit=VIDEO:K`: the tracks of the query's object in hit K of a
  video (computed on first asking, then kept), for the page to draw over the thumbnail and
  the player; none, with a note, for a hit found by speech or on-screen text.
- `GET /api/thumb?video=ID&t=SECONDS`: the frame shown then, as a JPEG.
- `GET /media/{folder}/{name}`: a video file, with HTTP Range requests (206, 416).

The guards are the annotation tool's (`annotate.access`): the Host check, same-origin JSON
writes, a request-body limit, and the access token off loopback. A video is served only by
the annotation tool's `MediaFolder` rules (no `..`, no symbolic link out of its folder).
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations, which name
# `fastapi.Query` imported inside the functions that define the routes.
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from ..annotate.access import MAX_BODY_BYTES, BodyLimit, TokenGate, add_guards
from ..annotate.app import ERRORS, MEDIA_RESPONSES
from ..errors import UserError, require
from ..query import MAX_QUERY_CHARS
from .downloads import FORMATS, download
from .library import Library
from .search import Answers, Filters, Searcher, explain, search_library
from .thumbs import Thumbnails
from .tracks import HitTracks, Tracker, follow_moment

STATIC = Path(__file__).with_name("static")
#: The longest query taken (a query is a sentence; this bounds a request's work).
#: The most hits one export takes.
MAX_EXPORT_HITS = 10_000


def create_app(
    library: Library,
    searcher: Searcher,
    allowed_hosts: Sequence[str] | None = None,
    token: str | None = None,
    tracker: Tracker = follow_moment,
):
    """Build the FastAPI app.

    Args:
        library: the footage (its states are kept up to date by an `Indexer`).
        searcher: the method, called one query and video at a time.
        allowed_hosts: `Host` header values accepted (None: any).
        token: the access token every request must carry (None: none, for loopback).
        tracker: follows a query's object through one hit (`serve.tracks`).
    """
    fastapi = require("fastapi", "annotate")
    app = fastapi.FastAPI(title="longground serve", docs_url=None, redoc_url=None)
    add_guards(app, allowed_hosts)
    if token is not None:
        app.add_middleware(TokenGate, token=token, command="longground serve")
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    answers = Answers(searcher)
    _add_pages(app)
    _add_library(app, library, answers)
    _add_tracks(app, library, answers, HitTracks(tracker))
    _add_files(app, library, answers, Thumbnails())
    return app


def _models():
    """The answers' shapes (pydantic), so the OpenAPI schema holds the server to them."""
    from pydantic import BaseModel, Field

    class VideoState(BaseModel):
        id: str
        folder: int
        name: str
        state: Literal["queued", "indexing", "ready", "error"]
        error: str | None
        duration_s: float | None
        indexed_s: float | None
        started: float | None
        elapsed_s: float | None
        media_url: str | None

    class LibraryOut(BaseModel):
        videos: list[VideoState]
        ready: int
        pending: int
        errors: int
        scans: int

    class Hit(BaseModel):
        id: str
        video: str
        name: str
        start_s: float
        end_s: float
        start: str
        end: str
        score: float | None
        channel: str | None
        thumb_url: str
        media_url: str

    class VideoCount(BaseModel):
        id: str
        name: str
        state: str
        count: int
        shown: int
        error: str | None

    class SearchOut(BaseModel):
        query: str
        method: str
        hits: list[Hit]
        videos: list[VideoCount]
        pending: int
        total: int

    class ExplainOut(BaseModel):
        video: str
        query: str
        line: str
        trace: dict[str, Any]

    class ThumbBox(BaseModel):
        track_id: int
        box: list[float]
        colour: str

    class Thumb(BaseModel):
        t_s: float
        url: str
        boxes: list[ThumbBox]

    class HitTrack(BaseModel):
        track_id: int
        label: str
        times_s: list[float]
        boxes: list[list[float]]
        confidence: list[float]
        colour: str

    class TracksOut(BaseModel):
        hit: str
        tracks: list[HitTrack]
        note: str | None
        max_gap_s: float
        thumb: Thumb

    class ExportIn(BaseModel):
        query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
        format: Literal[tuple(FORMATS)]  # type: ignore[valid-type]
        hits: list[Annotated[str, Field(max_length=64)]] = Field(min_length=1,
                                                                 max_length=MAX_EXPORT_HITS)

    return LibraryOut, SearchOut, ExplainOut, TracksOut, ExportIn


LibraryOut, SearchOut, ExplainOut, TracksOut, ExportIn = _models()


def _add_pages(app) -> None:
    from fastapi.responses import FileResponse
    from fastapi.staticfiles import StaticFiles

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _query(q: str) -> str:
    from fastapi import HTTPException

    if not q.strip():
        raise HTTPException(422, "q: the query is empty")
    return q


def _add_library(app, library: Library, answers: Answers) -> None:
    from fastapi import HTTPException
    from fastapi import Query as Q
    from fastapi.responses import Response
    from starlette.concurrency import run_in_threadpool

    @app.get("/api/library", responses=ERRORS, response_model=LibraryOut)
    def videos():
        rows = [v.to_dict(library.media_url(v)) for v in library.videos()]
        states = [row["state"] for row in rows]
        return {"videos": rows, "ready": states.count("ready"),
                "pending": states.count("queued") + states.count("indexing"),
                "errors": states.count("error"), "scans": library.scans}  # fmt: skip

    pages = Pages()

    @app.get("/api/search", responses=ERRORS, response_model=SearchOut)
    async def search(
        q: Annotated[str, Q(min_length=1, max_length=MAX_QUERY_CHARS)],
        video: Annotated[list[str] | None, Q(max_length=10_000)] = None,
        channel: Annotated[str | None, Q(max_length=32)] = None,
        min_score: Annotated[float | None, Q(allow_inf_nan=False)] = None,
    ):
        filters = Filters(None if not video else frozenset(video), channel or None, min_score)
        key = (_query(q), filters, library.version)
        body = pages.get(key)  # answered on the event loop when known
        if body is None:  # else the method runs in a worker thread; validated once
            found = await run_in_threadpool(search_library, library, answers, q, filters)
            body = pages.put(key, SearchOut.model_validate(found).model_dump_json().encode())
        return Response(body, media_type="application/json")

    @app.get("/api/explain", responses=ERRORS, response_model=ExplainOut)
    def why(q: Annotated[str, Q(min_length=1, max_length=MAX_QUERY_CHARS)], video: str):
        found = library.get(video)
        if found is None or found.state != "ready":
            raise HTTPException(404, f"no searched video {video!r}")
        answer = answers.of(found, _query(q))
        if isinstance(answer, str):
            return {"video": video, "query": q, "line": answer, "trace": {}}
        trace = _plain(answer.trace)
        return {"video": video, "query": q, "line": explain(answer, answers.searcher.method),
                "trace": trace if isinstance(trace, dict) else {"trace": trace}}  # fmt: skip


def _add_tracks(app, library: Library, answers: Answers, hit_tracks: HitTracks) -> None:
    from fastapi import HTTPException
    from fastapi import Query as Q

    from ..export.found import channel_in

    @app.get("/api/tracks", responses=ERRORS, response_model=TracksOut)
    def tracks(q: Annotated[str, Q(min_length=1, max_length=MAX_QUERY_CHARS)],
               hit: Annotated[str, Q(max_length=64)]):  # fmt: skip
        video_id, _, k = hit.rpartition(":")
        found = library.get(video_id)
        if found is None or found.state != "ready" or not k.isdigit():
            raise HTTPException(404, f"no hit {hit!r}")
        answer = answers.of(found, _query(q))
        if isinstance(answer, str) or int(k) >= answer.moments.count:
            raise HTTPException(404, f"no hit {hit!r} for this query")
        moment = answer.moments[[int(k)]]
        return hit_tracks.of(found, q, int(k), moment, channel_in(answer.trace))


def _add_files(app, library: Library, answers: Answers, thumbs: Thumbnails) -> None:
    from fastapi import HTTPException
    from fastapi import Query as Q
    from fastapi.responses import FileResponse, JSONResponse, Response

    files = {code: why for code, why in ERRORS.items()}
    files[200] = {"description": "the file", "content": {t: {} for _, t in FORMATS.values()}}

    @app.post("/api/export", responses=files, response_class=Response)
    def export(body: ExportIn):
        try:
            data, name = download(library, answers, body.query, body.format, body.hits)
        except UserError as exc:
            return JSONResponse({"detail": str(exc)}, 422)
        media_type = FORMATS[body.format][1]
        return Response(data, media_type=media_type,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    jpeg = {**ERRORS, 200: {"description": "a JPEG frame", "content": {"image/jpeg": {}}}}

    @app.get("/api/thumb", responses=jpeg, response_class=Response)
    def thumb(video: str, t: Annotated[float, Q(ge=0, le=1e7, allow_inf_nan=False)]):
        found = library.get(video)
        if found is None or found.state != "ready":
            raise HTTPException(404, f"no searched video {video!r}")
        try:
            data = thumbs.jpeg(found, t)
        except UserError as exc:
            raise HTTPException(404, str(exc)) from None
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "max-age=600"})

    @app.get("/media/{folder}/{name:path}", responses=MEDIA_RESPONSES)
    def media(folder: int, name: str):
        path = library.file(folder, name)
        if path is None:
            raise HTTPException(404, "no such video")
        return FileResponse(path)


class Pages:
    """Search answers as JSON bytes, by (query, filters, library version); the least
    recently used go first. A new library version (a video indexed, a file changed) makes
    new keys, so nothing stale is served."""

    def __init__(self, keep: int = 1024):
        import threading
        from collections import OrderedDict

        self.keep, self._pages, self._lock = keep, OrderedDict(), threading.Lock()

    def get(self, key) -> bytes | None:
        with self._lock:
            body = self._pages.get(key)
            if body is not None:
                self._pages.move_to_end(key)
            return body

    def put(self, key, body: bytes) -> bytes:
        with self._lock:
            self._pages[key] = body
            while len(self._pages) > self.keep:
                self._pages.popitem(last=False)
        return body


def _plain(value):
    """A trace made JSON-safe: numbers, text, lists and dicts (numpy values as numbers)."""
    import math
    import numbers

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | str | int) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else None
