"""The annotation server: a FastAPI app over an `AnnotationStore` and a `MediaFolder`.

Endpoints (all JSON except `/`, `/static/*` and `/media/*`):

- `GET /api/session`: who edits, the attribute names, whether predictions are loaded.
- `GET /api/videos`: the navigator, per-video progress (verified / annotated / total).
- `GET /api/video?name=V`: one video's duration (read from the file when it can be) and URL.
- `GET /api/queries?video=V&status=S`: the queries, optionally of one video and one status.
- `GET /api/queries/{qid}`, `PATCH /api/queries/{qid}`: read and edit one query; an edit
  carries the version it was made on and gets 409 with the current query when that is stale,
  422 with a readable `detail` when a value breaks a rule.
- `GET /api/history?qid=Q`: the edits, oldest first.
- `GET /api/transcript?name=V`: what is said in the video, segment by segment, from the
  channels cache or extracted on first request (`transcript.Transcripts`).
- `GET /media/{name}`: a video under the folder, with HTTP Range support (206, 416).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from ..errors import require
from ..samples import ATTRIBUTE_ORDER
from ..timecode import format_time
from .access import MAX_BODY_BYTES, BodyLimit, TokenGate, add_guards
from .changes import MAX_INTERVALS, MAX_QUERY_CHARS, InvalidEdit, apply_change, read_change
from .media import MediaFolder
from .record import REVIEW_STATES, AnnotatedQuery
from .store import AnnotationStore, StaleVersion, UnknownQuery
from .transcript import Transcripts

STATIC = Path(__file__).with_name("static")


STATUS_FILTERS = {
    "all": lambda q: True,
    "unverified": lambda q: q.review == "unverified",
    "verified": lambda q: q.review == "verified",
    "discarded": lambda q: q.review == "discarded",
    "annotated": lambda q: q.annotated,
    "unannotated": lambda q: not q.annotated and q.review != "discarded",
}


StatusFilter = Literal["all", "unverified", "verified", "discarded", "annotated", "unannotated"]

_ERROR_SCHEMA = {
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {"type": "string", "description": "one line for the person"},
        "current": {"type": "object", "description": "409: the query as stored now"},
    },
}
ERRORS = {
    code: {"description": why, "content": {"application/json": {"schema": _ERROR_SCHEMA}}}
    for code, why in (
        (401, "the access token is missing or wrong (servers off loopback)"),
        (403, "a cross-origin write"),
        (404, "no such query or video"),
        (409, "the edit was made on an older version; `current` holds the query now"),
        (413, "the request body is too large"),
        (415, "an edit that is not application/json"),
        (422, "a value breaks a rule; `detail` says which"),
    )
}
"""The error answers of every API route: always `{"detail": "..."}` (the schema says so, and
the property tests in tests/annotate/test_api_fuzz.py hold the server to it)."""

_TIME = {"type": ["number", "string"], "description": "seconds, or text such as 00:01:15.5"}
EDIT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["version"],
                    "additionalProperties": False,
                    "properties": {
                        "version": {"type": "integer"},
                        "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                        "intervals": {
                            "type": "array",
                            "maxItems": MAX_INTERVALS,
                            "items": {
                                "type": "array",
                                "prefixItems": [_TIME, _TIME],
                                "minItems": 2,
                                "maxItems": 2,
                            },
                        },
                        "attributes": {
                            "type": "array",
                            "items": {"type": "string", "enum": list(ATTRIBUTE_ORDER)},
                        },
                        "review": {"type": "string", "enum": list(REVIEW_STATES)},
                        "annotated": {"type": "boolean"},
                    },
                }
            }
        },
    }
}
"""The edit's shape, as `changes.read_change` enforces it (the values' rules too: an
interval inside the video, start before end, ...; breaking one gets a declared 422)."""

MEDIA_RESPONSES = {
    **ERRORS,
    200: {"description": "the whole video", "content": {"video/*": {}}},
    206: {"description": "the asked-for byte range", "content": {"video/*": {}}},
    416: {"description": "a range outside the file"},
}


def query_json(query: AnnotatedQuery, predictions: Mapping[str, list] | None = None) -> dict:
    """A query as the page reads it: the stored fields plus times as `HH:MM:SS.s` text, the
    video's URL and the loaded predictions (None when there are none for it).

    >>> q = AnnotatedQuery("q1", "v.mp4", 60.0, "a dog", ((61.25, 62.0),))
    >>> query_json(q)["intervals_hms"], query_json(q)["media_url"]
    ([['00:01:01.25', '00:01:02.0']], '/media/v.mp4')
    """
    return {
        "qid": query.qid,
        "video": query.video,
        "duration_s": query.duration_s,
        "query": query.query,
        "intervals": [list(span) for span in query.intervals],
        "intervals_hms": [[_hms(s), _hms(e)] for s, e in query.intervals],
        "attributes": list(query.attributes),
        "domain": query.domain,
        "review": query.review,
        "annotated": query.annotated,
        "version": query.version,
        "media_url": MediaFolder.url(query.video),
        "predictions": (predictions or {}).get(query.qid),
    }


def _hms(seconds: float) -> str:
    """`HH:MM:SS.s`, with two decimals when one would round the time."""
    one = format_time(seconds, 1)
    return one if abs(round(seconds, 1) - seconds) < 1e-9 else format_time(seconds, 2)


def create_app(
    store: AnnotationStore,
    videos: MediaFolder | str | Path,
    annotator: str = "anonymous",
    predictions: Mapping[str, list] | None = None,
    allowed_hosts: Sequence[str] | None = None,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    transcripts: Transcripts | None = None,
):
    """Build the FastAPI app.

    Args:
        store: where the queries and their history live.
        videos: the folder of videos (`--videos`); nothing outside it is served.
        annotator: the name written into every edit's history row.
        predictions: qid -> `[[start_s, end_s], ...]` of a method, drawn on the timeline.
        allowed_hosts: `Host` header values accepted (None: any); a loopback server lists
            its loopback names so that another site cannot reach it by DNS rebinding.
        token: the access token every request must carry (None: no token, for loopback);
            see `annotate.access`.
        max_body_bytes: larger request bodies get 413 before they are read.
        transcripts: where the transcripts under the player come from (None: the default
            cache, extracted on first request).
    """
    fastapi = require("fastapi", "annotate")
    folder = videos if isinstance(videos, MediaFolder) else MediaFolder(videos)
    app = fastapi.FastAPI(
        title="longground annotate", docs_url=None, redoc_url=None, openapi_url=None
    )
    add_guards(app, allowed_hosts)
    if token is not None:
        app.add_middleware(TokenGate, token=token)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    _add_pages(app)
    _add_reading(app, store, folder, annotator, predictions)
    _add_editing(app, store, folder, annotator, predictions)
    _add_media(app, folder)
    _add_transcripts(app, store, folder, transcripts or Transcripts())
    return app


def _add_pages(app) -> None:
    from fastapi.responses import FileResponse
    from fastapi.staticfiles import StaticFiles

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _add_reading(app, store, folder: MediaFolder, annotator: str, predictions) -> None:
    from fastapi import HTTPException

    @app.get("/api/session", responses=ERRORS)
    def session():
        return {
            "annotator": annotator,
            "attributes": list(ATTRIBUTE_ORDER),
            "review_states": list(REVIEW_STATES),
            "status_filters": list(STATUS_FILTERS),
            "predictions": predictions is not None,
            "database": store.path.name,
        }

    @app.get("/api/videos", responses=ERRORS)
    def videos():
        return {"videos": [v.to_dict() for v in store.videos()]}

    @app.get("/api/video", responses=ERRORS)
    def video(name: str):
        stated = max((q.duration_s for q in store.queries(name)), default=None)
        if stated is None:
            raise HTTPException(404, f"no video {name!r} in the benchmark")
        measured = folder.duration_s(name)
        return {
            "video": name,
            "duration_s": measured if measured is not None else stated,
            "duration_from": "file" if measured is not None else "benchmark",
            "available": folder.find(name) is not None,
            "expected_path": str(folder.root / name),
            "media_url": MediaFolder.url(name),
        }

    @app.get("/api/queries", responses=ERRORS)
    def queries(video: str | None = None, status: StatusFilter = "all"):
        keep = STATUS_FILTERS[status]
        found = [q for q in store.queries(video) if keep(q)]
        return {"queries": [query_json(q, predictions) for q in found]}

    @app.get("/api/queries/{qid:path}", responses=ERRORS)
    def one_query(qid: str):
        try:
            return query_json(store.get(qid), predictions)
        except UnknownQuery:
            raise HTTPException(404, f"no query {qid!r}") from None

    @app.get("/api/history", responses=ERRORS)
    def history(qid: str | None = None):
        return {"edits": [e.to_dict() for e in store.history(qid)]}


def _add_editing(app, store, folder: MediaFolder, annotator: str, predictions) -> None:
    from fastapi import Body, HTTPException
    from fastapi.responses import JSONResponse

    @app.patch("/api/queries/{qid:path}", responses=ERRORS, openapi_extra=EDIT_BODY)
    def edit(qid: str, body: dict = Body(...)):
        try:
            change = read_change(body)
            current = store.get(qid)
            measured = folder.duration_s(current.video)
            limit_s = measured if measured is not None else current.duration_s
            updated = store.update(
                qid, change.version, lambda q: apply_change(q, change, limit_s), annotator
            )
        except UnknownQuery:
            raise HTTPException(404, f"no query {qid!r}") from None
        except InvalidEdit as exc:
            return JSONResponse({"detail": f"qid {qid}: {exc}"}, 422)
        except StaleVersion as exc:
            detail = (
                f"qid {qid} was changed meanwhile (now version {exc.current.version}); reloaded"
            )
            return JSONResponse(
                {"detail": detail, "current": query_json(exc.current, predictions)}, 409
            )
        return query_json(updated, predictions)


def _add_transcripts(app, store, folder: MediaFolder, transcripts: Transcripts) -> None:
    from fastapi import HTTPException

    @app.get("/api/transcript", responses=ERRORS)
    def transcript(name: str):
        if not store.queries(name):
            raise HTTPException(404, f"no video {name!r} in the benchmark")
        found = folder.find(name)
        if found is None:
            note = f"the video file is not in the videos folder: {folder.root / name}"
            return {"video": name, "from": "none", "segments": [], "note": note}
        return {"video": name, **transcripts.of(found)}


def _add_media(app, folder: MediaFolder) -> None:
    from fastapi import HTTPException
    from fastapi.responses import FileResponse

    @app.get("/media/{name:path}", responses=MEDIA_RESPONSES)
    def media(name: str):
        found = folder.find(name)
        if found is None:
            raise HTTPException(404, "no such video")
        return FileResponse(found)
