"""The montage manifest: what each real clip shows and when, which recordings carry which
words when, and how people ask about each (schema in docs/synthetic-benchmark.md).

`parse_manifest(data, path)` checks the JSON value alone; `load_manifest(path)` reads the
file, resolves each clip and recording (`media:NAME` or a path relative to the manifest),
reads their lengths and checks every time against them. Every problem is one `UserError`
line naming the file and the field, e.g. `m.json: clips[2].shows.dog[0]: ...`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..text import undecodable

KINDS = ("object", "scene", "person", "text", "action")
AUDIO = ("mute", "keep")
#: How far a span may pass the end of its clip: container lengths are rounded.
END_SLACK_S = 0.05

Span = tuple[float, float]


@dataclass(frozen=True)
class Utterance:
    """Words said from `start_s` to `end_s` (seconds in the clip or recording)."""

    start_s: float
    end_s: float
    text: str


@dataclass(frozen=True)
class Clip:
    """A video file. `trim`: the part a montage may use; `cuts`: its own shot changes;
    `keep_audio`: its sound plays in the montage (with the words in `says`), else it is
    silent footage that recordings may be laid over; `shows`: label -> clip-local spans."""

    id: str
    path: Path
    trim: Span
    cuts: tuple[float, ...] = ()
    keep_audio: bool = False
    shows: dict[str, tuple[Span, ...]] = field(default_factory=dict)
    says: tuple[Utterance, ...] = ()

    @property
    def length_s(self) -> float:
        return self.trim[1] - self.trim[0]


@dataclass(frozen=True)
class Recording:
    """An audio file whose `trim` is laid whole over silent footage; `says`: its words."""

    id: str
    path: Path
    trim: Span
    says: tuple[Utterance, ...]

    @property
    def length_s(self) -> float:
        return self.trim[1] - self.trim[0]


@dataclass(frozen=True)
class Label:
    """Something a clip can show. `names`: noun phrases (asked alone and inside sequential and
    synchronous questions); `queries`: whole questions asked alone; `near_misses`: labels
    that look alike and are asked where this one is shown and they are not."""

    name: str
    kind: str
    names: tuple[str, ...]
    queries: tuple[str, ...] = ()
    near_misses: tuple[str, ...] = ()

    @property
    def wordings(self) -> tuple[str, ...]:
        return self.names + self.queries


@dataclass(frozen=True)
class Manifest:
    """A checked manifest. `phrases`: words asked about as speech -> their wordings (empty:
    the default wordings)."""

    path: Path
    clips: tuple[Clip, ...]
    recordings: tuple[Recording, ...]
    labels: dict[str, Label]
    phrases: dict[str, tuple[str, ...]]
    name: str = "montage"


class _Field:
    """A place in the manifest, for messages: `_Field(path).at("clips", 2, "trim")`."""

    def __init__(self, path: Path, where: str = ""):
        self.path, self.where = path, where

    def at(self, *keys) -> _Field:
        where = self.where
        for key in keys:
            if isinstance(key, int):
                where += f"[{key}]"
                continue
            name = key if key.isprintable() and key.strip() == key and key else json.dumps(key)
            where += f".{name}" if where else name
        return _Field(self.path, where)

    def error(self, problem: str) -> UserError:
        return UserError(f"{self.path}: {self.where or 'top level'}: {problem}")


def _object(
    value, at: _Field, known: tuple[str, ...] | None = None, required: tuple[str, ...] = ()
) -> dict:
    """`value` as a dict with only `known` keys (any, when None) and the `required` ones."""
    if not isinstance(value, dict):
        raise at.error(f"must be a JSON object, got {type(value).__name__}")
    for key in value if known is not None else ():
        if key not in known:
            raise at.error(f"unknown field {key!r} (known: {', '.join(known)})")
    for key in required:
        if key not in value:
            raise at.error(f"the field {key!r} is missing")
    return value


def _text(value, at: _Field) -> str:
    if not isinstance(value, str) or not value.strip():
        raise at.error(f"must be a non-empty string, got {value!r:.40}")
    return value.strip()


def _texts(value, at: _Field, allow_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or (not value and not allow_empty):
        raise at.error(f"must be a {'' if allow_empty else 'non-empty '}list of strings")
    return tuple(_text(v, at.at(i)) for i, v in enumerate(value))


def _seconds(value, at: _Field) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"must be a number of seconds, got {value!r:.40}")
    if not math.isfinite(value) or value < 0:
        raise at.error(f"must be a finite number of seconds >= 0, got {value}")
    return float(value)


def _span(value, at: _Field) -> Span:
    if not isinstance(value, list) or len(value) != 2:
        raise at.error(f"must be [start, end] in seconds, got {value!r:.40}")
    start, end = _seconds(value[0], at), _seconds(value[1], at)
    if end <= start:
        raise at.error(f"ends at {end:g} s, not after its start {start:g} s")
    return start, end


def _spans(value, at: _Field) -> tuple[Span, ...]:
    if not isinstance(value, list) or not value:
        raise at.error("must be a non-empty list of [start, end] spans")
    return tuple(sorted(_span(v, at.at(i)) for i, v in enumerate(value)))


def _utterances(value, at: _Field) -> tuple[Utterance, ...]:
    if not isinstance(value, list):
        raise at.error("must be a list of {start_s, end_s, text}")
    out = []
    for i, item in enumerate(value):
        here = at.at(i)
        _object(item, here, ("start_s", "end_s", "text"), ("start_s", "end_s", "text"))
        start, end = _span([item["start_s"], item["end_s"]], here)
        out.append(Utterance(start, end, _text(item["text"], here.at("text"))))
    return tuple(sorted(out, key=lambda u: u.start_s))


def _label(name: str, value, at: _Field) -> Label:
    _object(value, at, ("kind", "names", "queries", "near_misses"), ("kind", "names"))
    kind = value["kind"]
    if kind not in KINDS:
        raise at.at("kind").error(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    return Label(
        name,
        kind,
        _texts(value["names"], at.at("names")),
        _texts(value.get("queries", []), at.at("queries"), allow_empty=True),
        _texts(value.get("near_misses", []), at.at("near_misses"), allow_empty=True),
    )


def _clip(value, at: _Field, labels: dict[str, Label]) -> Clip:
    known = ("id", "file", "trim", "cuts", "audio", "shows", "says")
    _object(value, at, known, ("id", "file"))
    audio = value.get("audio", "mute")
    if audio not in AUDIO:
        raise at.at("audio").error(f"must be one of {', '.join(AUDIO)}, got {audio!r:.40}")
    shows = _object(value.get("shows", {}), at.at("shows"))
    for label in shows:
        if label not in labels:
            raise at.at("shows").error(f"label {label!r} is not defined under 'labels'")
    says = _utterances(value.get("says", []), at.at("says"))
    if says and audio != "keep":
        raise at.at("says").error('a clip\'s own words need "audio": "keep"')
    cuts = value.get("cuts", [])
    if not isinstance(cuts, list):
        raise at.at("cuts").error("must be a list of seconds")
    return Clip(
        id=_text(value["id"], at.at("id")),
        path=Path(_text(value["file"], at.at("file"))),
        trim=_span(value["trim"], at.at("trim")) if "trim" in value else (0.0, math.inf),
        cuts=tuple(sorted(_seconds(c, at.at("cuts", i)) for i, c in enumerate(cuts))),
        keep_audio=audio == "keep",
        shows={k: _spans(v, at.at("shows", k)) for k, v in shows.items()},
        says=says,
    )


def _recording(value, at: _Field) -> Recording:
    _object(value, at, ("id", "file", "trim", "says"), ("id", "file", "says"))
    says = _utterances(value["says"], at.at("says"))
    if not says:
        raise at.at("says").error("a recording needs its words")
    trim = _span(value["trim"], at.at("trim")) if "trim" in value else (0.0, math.inf)
    return Recording(
        _text(value["id"], at.at("id")), Path(_text(value["file"], at.at("file"))), trim, says
    )


def parse_manifest(data, path: Path) -> Manifest:
    """Check a manifest's JSON value; file paths stay as written and lengths unchecked."""
    top = _Field(path)
    known = ("name", "clips", "recordings", "labels", "phrases")
    _object(data, top, known, ("clips", "labels"))
    raw_labels = _object(data["labels"], top.at("labels"))
    labels = {n: _label(n, v, top.at("labels", n)) for n, v in raw_labels.items()}
    for label in labels.values():
        for other in label.near_misses:
            if other not in labels or other == label.name:
                at = top.at("labels", label.name, "near_misses")
                raise at.error(f"{other!r} is not another label defined under 'labels'")
    if not isinstance(data["clips"], list) or not data["clips"]:
        raise top.at("clips").error("must be a non-empty list of clips")
    clips = tuple(_clip(c, top.at("clips", i), labels) for i, c in enumerate(data["clips"]))
    recordings = data.get("recordings", [])
    if not isinstance(recordings, list):
        raise top.at("recordings").error("must be a list of recordings")
    recs = tuple(_recording(r, top.at("recordings", i)) for i, r in enumerate(recordings))
    ids = [c.id for c in clips] + [r.id for r in recs]
    if len(set(ids)) < len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise top.error(f"the id {dup!r} is used twice (clips and recordings need their own)")
    raw_phrases = _object(data.get("phrases", {}), top.at("phrases"))
    for phrase in raw_phrases:
        if not re.search(r"[A-Za-z0-9]", phrase):
            raise top.at("phrases").error(f"{phrase!r} has no word to listen for")
    phrases = {
        _text(k, top.at("phrases")): _texts(v, top.at("phrases", k), allow_empty=True)
        for k, v in raw_phrases.items()
    }
    name = _text(data.get("name", "montage"), top.at("name"))
    return Manifest(path, clips, recs, labels, phrases, name)


def read_manifest_json(path: Path):
    """The JSON value of a manifest file, or one line on why it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the manifest ({exc.strerror or exc})") from None
    bad = undecodable(data)
    if bad is not None:
        raise UserError(f"{path}:{bad[0]}: {bad[1]}: the manifest must be UTF-8 JSON")
    try:
        return json.loads(data.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None


def load_manifest(path: str | Path) -> Manifest:
    """Read, check and resolve a manifest: files found (`media:NAME` in the media cache,
    other paths relative to the manifest), every time checked against its file's length, and
    each `trim` that was left out set to the whole file.

    Raises:
        UserError: one line naming the file and the field at fault.
    """
    path = Path(path)
    manifest = parse_manifest(read_manifest_json(path), path)
    top = _Field(path)
    clips = tuple(
        _checked_clip(c, top.at("clips", i), path.parent) for i, c in enumerate(manifest.clips)
    )
    recordings = tuple(
        _checked_recording(r, top.at("recordings", i), path.parent)
        for i, r in enumerate(manifest.recordings)
    )
    return Manifest(path, clips, recordings, manifest.labels, manifest.phrases, manifest.name)


def _resolve(written: Path, at: _Field, folder: Path) -> Path:
    from .media import MissingMedia, media_path

    text = str(written)
    if text.startswith("media:"):
        try:
            return media_path(text.removeprefix("media:"))
        except MissingMedia as exc:
            raise at.error(str(exc)) from None
    found = written if written.is_absolute() else folder / written
    if not found.is_file():
        raise at.error(f"no such file: {found}")
    return found


def _within(span: Span, length_s: float, at: _Field) -> Span:
    """`span` with its end kept inside `length_s`, or the error naming `at`."""
    if span[1] > length_s + END_SLACK_S:
        raise at.error(f"[{span[0]:g}, {span[1]:g}] ends after the file's {length_s:.2f} s")
    if span[0] >= length_s:
        raise at.error(f"[{span[0]:g}, {span[1]:g}] starts after the file's {length_s:.2f} s")
    return span[0], min(span[1], length_s)


def _trim(trim: Span, length_s: float, at: _Field) -> Span:
    return (0.0, length_s) if math.isinf(trim[1]) else _within(trim, length_s, at)


def _checked_clip(clip: Clip, at: _Field, folder: Path) -> Clip:
    from ..video import BadVideo, probe

    path = _resolve(clip.path, at.at("file"), folder)
    try:
        length_s = probe(path).duration_s
    except BadVideo as exc:
        raise at.at("file").error(str(exc)) from None
    if clip.keep_audio:
        from .montage_audio import audio_length_s

        if audio_length_s(path) == 0:
            raise at.at("audio").error(f'"keep", but {path.name} has no sound')
    shows = {
        label: tuple(_within(s, length_s, at.at("shows", label, i)) for i, s in enumerate(spans))
        for label, spans in clip.shows.items()
    }
    for i, cut in enumerate(clip.cuts):
        if cut >= length_s:
            raise at.at("cuts", i).error(f"{cut:g} s is after the file's {length_s:.2f} s")
    says = tuple(
        Utterance(*_within((u.start_s, u.end_s), length_s, at.at("says", i)), u.text)
        for i, u in enumerate(clip.says)
    )
    trim = _trim(clip.trim, length_s, at.at("trim"))
    return Clip(clip.id, path, trim, clip.cuts, clip.keep_audio, shows, says)


def _checked_recording(rec: Recording, at: _Field, folder: Path) -> Recording:
    from .montage_audio import audio_length_s

    path = _resolve(rec.path, at.at("file"), folder)
    length_s = audio_length_s(path)
    if length_s == 0:
        raise at.at("file").error(f"{path.name} has no sound")
    trim = _trim(rec.trim, length_s, at.at("trim"))
    for i, u in enumerate(rec.says):
        _within((u.start_s, u.end_s), length_s, at.at("says", i))
        if u.start_s < trim[0] or u.end_s > trim[1] + END_SLACK_S:
            raise at.at("says", i).error(
                f"[{u.start_s:g}, {u.end_s:g}] is not inside the trim [{trim[0]:g}, {trim[1]:g}]"
            )
    return Recording(rec.id, path, trim, rec.says)
