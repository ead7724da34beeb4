"""`longground build comet`: CoMET-Bench's construction (Sec. 3.2, App. B.3-B.4) on your videos.

1. `queries`: for each video, `combinations` attribute combinations are drawn
   (`attributes.AttributeSampler`, seeded per video); one request per combination sends the
   video's timestamped frames and the attributes' definitions and gets back one candidate
   query. A reply that is not the asked-for JSON is a parse failure (recorded); a query that
   reduces to spatial counting is kept in the file with `rejected` and goes no further
   (`spatial.spatial_counting_reason`).
2. `annotations`: one request per accepted query asks for every interval in strict
   HH:MM:SS with an evidence note; the answer is read with `answers.parse_answer`. A parse
   failure is recorded and counted, never dropped silently.
3. `benchmark.jsonl`: the annotated queries as canonical benchmark lines, the model's
   candidates for the human passes (`longground build agree`), which `eval` and `run` read.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..answers import parse_answer
from ..errors import UserError
from ..llm.timing import duration_fields, timed_frames_message
from ..samples import ATTRIBUTES
from .attributes import DEFINITIONS, AttributeSampler, check_seed
from .frames import UniformFrames
from .prompts import build_prompt
from .spatial import spatial_counting_reason
from .stage import Call, ReplyError, Stage

QUERY_PROMPT = "build_comet_query"
ANNOTATE_PROMPT = "build_comet_annotate"
_CLOCK = re.compile(r"^\d{2}:[0-5]\d:[0-5]\d$")
MAX_COMBINATIONS = 1000  # per video, one model call each
MAX_FRAMES = 1024  # per request
MIN_SHORT_SIDE, MAX_SHORT_SIDE = 16, 2048
MAX_FRAME_BYTES = 2 * 2**30  # one video's decoded frames


@dataclass(frozen=True)
class CometSettings:
    """What decides the pipeline's requests (recorded in each stage's manifest).

    Attributes:
        combinations: attribute combinations (= candidate queries) per video.
        seed: sampler seed; each video's draws also depend on its name.
        mu, alpha: the combination-size law p(k) ~ exp(-alpha (k - mu)^2).
        n_frames: frames sent per request, spread uniformly over the video.
        short_side: frames shrunk to at most this many pixels on the shorter side.
        query_tokens, annotate_tokens: answer budgets.
        domain: written into each benchmark line.
    """

    combinations: int = 5
    seed: int = 0
    mu: float = 2.5
    alpha: float = 0.9
    n_frames: int = 64
    short_side: int = 336
    query_tokens: int = 512
    annotate_tokens: int = 2048
    domain: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.combinations <= MAX_COMBINATIONS:
            raise UserError(
                f"--combinations must be in 1..{MAX_COMBINATIONS} (one model call each), "
                f"got {self.combinations}"
            )
        check_seed(self.seed)
        if not 1 <= self.n_frames <= MAX_FRAMES:
            raise UserError(f"--frames must be in 1..{MAX_FRAMES}, got {self.n_frames}")
        if not MIN_SHORT_SIDE <= self.short_side <= MAX_SHORT_SIDE:
            raise UserError(
                f"--short-side must be in {MIN_SHORT_SIDE}..{MAX_SHORT_SIDE}, got {self.short_side}"
            )
        if self.frame_bytes() > MAX_FRAME_BYTES:
            raise UserError(
                f"--frames {self.n_frames} at --short-side {self.short_side} need about "
                f"{self.frame_bytes() / 2**30:.1f} GiB per video (at most "
                f"{MAX_FRAME_BYTES / 2**30:.0f} GiB); send fewer or smaller frames"
            )
        AttributeSampler(self.mu, self.alpha)  # validates mu and alpha

    def frame_bytes(self) -> int:
        """Memory for one video's frames at a 16:9 aspect ratio, in bytes.

        >>> CometSettings().frame_bytes() // 2**20
        36
        """
        return self.n_frames * self.short_side * (self.short_side * 16 // 9) * 3


def check_frames_fit(videos: Iterable[Path], n_frames: int) -> None:
    """Refuse `--frames` above a video's frame count (the frames would repeat), naming the
    first such video; videos that cannot be probed are left to the stages (an input error
    per item)."""
    from ..video import probe

    for video in videos:
        try:
            info = probe(video)
        except (UserError, OSError):
            continue
        if info.n_frames and n_frames > info.n_frames:
            raise UserError(
                f"--frames {n_frames}: {video} has only {info.n_frames} frames; ask for at "
                f"most {info.n_frames}"
            )


def video_ids(videos: Iterable[Path]) -> dict[str, Path]:
    """Each video by its file stem (used in qids); two videos with one stem are refused.

    >>> video_ids([Path("a/match.mp4"), Path("b/lecture.mkv")])
    {'match': PosixPath('a/match.mp4'), 'lecture': PosixPath('b/lecture.mkv')}
    """
    out: dict[str, Path] = {}
    for video in videos:
        if video.stem in out:
            raise UserError(f"two videos are named {video.stem!r} ({out[video.stem]}, {video})")
        out[video.stem] = video
    return out


def combinations_for(video_id: str, settings: CometSettings) -> list[list[str]]:
    """The video's attribute combinations: the same for the same seed and name, whatever
    other videos the run holds.

    >>> combinations_for("v", CometSettings()) == combinations_for("v", CometSettings())
    True
    """
    seed = settings.seed * 1_000_003 + zlib.crc32(video_id.encode())
    return AttributeSampler(settings.mu, settings.alpha).draw(settings.combinations, seed)


def json_object(text: str) -> dict:
    """The first JSON object in a reply (fenced or bare); `ReplyError` when there is none.

    >>> json_object('Sure! ```json\\n{"query": "x"}\\n```')
    {'query': 'x'}
    """
    decoder = json.JSONDecoder()
    for start in [m.start() for m in re.finditer(r"\{", text)]:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise ReplyError("no JSON object in the reply")


class QueryStage(Stage):
    """Stage 1: one candidate query per (video, attribute combination)."""

    name = "queries"
    prompts = (QUERY_PROMPT,)

    def __init__(self, videos: dict[str, Path], settings: CometSettings, frames: UniformFrames):
        self.videos, self.frames = videos, frames
        self.settings = {**asdict(settings), "videos": sorted(videos)}
        self._settings = settings

    def calls(self) -> Iterable[Call]:
        for vid, path in self.videos.items():
            for j, combo in enumerate(combinations_for(vid, self._settings)):
                context = {"video": str(path.absolute()), "video_id": vid, "combination": combo}
                build = lambda p=path, c=combo: self._messages(p, c)  # noqa: E731
                yield Call(f"{vid}-c{j}", build, context, self._settings.query_tokens)

    def _messages(self, path: Path, combo: list[str]):
        got = self.frames.get(path)
        text = build_prompt(
            QUERY_PROMPT,
            n_frames=len(got.frames),
            attribute_list=", ".join(combo),
            definitions="\n".join(f"- {a}: {DEFINITIONS[a]}" for a in combo),
            **duration_fields(got.duration_s),
        )
        return [timed_frames_message(text, got.frames, got.pts_s)]

    def read(self, call: Call, text: str) -> dict[str, Any]:
        reply = json_object(text)
        query = reply.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ReplyError("the reply has no 'query' text")
        named = reply.get("attributes", call.context["combination"])
        if not isinstance(named, list) or not all(isinstance(a, str) for a in named):
            raise ReplyError("'attributes' is not a list of names")
        attributes = sorted({a.strip().lower() for a in named} & ATTRIBUTES)
        return {
            "query": " ".join(query.split()),
            "attributes": attributes or sorted(call.context["combination"]),
            "duration_s": self.frames.duration_s(call.context["video"]),
            "why_temporal": str(reply.get("why_temporal") or ""),
            "rejected": spatial_counting_reason(query, reply.get("single_frame")),
        }


class AnnotateStage(Stage):
    """Stage 2: every interval of each accepted query, with evidence notes."""

    name = "annotations"
    prompts = (ANNOTATE_PROMPT,)

    def __init__(self, queries: list[dict], settings: CometSettings, frames: UniformFrames):
        self.queries, self.frames, self._settings = queries, frames, settings
        self.settings = asdict(settings)

    def calls(self) -> Iterable[Call]:
        for q in self.queries:
            keep = ("video", "video_id", "query", "attributes", "duration_s")
            context = {k: q[k] for k in keep}
            build = lambda q=q: self._messages(q)  # noqa: E731
            yield Call(q["qid"], build, context, self._settings.annotate_tokens)

    def _messages(self, q: dict):
        got = self.frames.get(q["video"])
        text = build_prompt(
            ANNOTATE_PROMPT,
            query=q["query"],
            n_frames=len(got.frames),
            **duration_fields(got.duration_s),
        )
        return [timed_frames_message(text, got.frames, got.pts_s)]

    def read(self, call: Call, text: str) -> dict[str, Any]:
        parsed = parse_answer(text, call.context["duration_s"])
        if parsed.moments is None:
            raise ReplyError(parsed.error or "unparseable answer")
        evidence, strict = _evidence_and_format(text, parsed.moments.count)
        return {
            "intervals": parsed.moments.to_list(),
            "evidence": evidence,
            "strict_format": strict,
            "invalid_intervals": parsed.invalid_intervals,
        }


def _evidence_and_format(text: str, count: int) -> tuple[list[str], bool]:
    """The evidence notes (one per interval when the reply is the asked-for list) and whether
    every time was written as HH:MM:SS."""
    start = text.find("[")
    try:
        items, _ = json.JSONDecoder().raw_decode(text, start) if start >= 0 else (None, 0)
    except ValueError:
        items = None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        return [], count == 0 and (items == [])
    notes = [str(i.get("evidence") or "") for i in items]
    times = [i.get(k) for i in items for k in ("start", "end")]
    strict = all(isinstance(t, str) and _CLOCK.match(t.strip()) for t in times)
    return (notes if len(notes) == count else []), strict
