"""One step of a benchmark-building pipeline: a list of model calls, written as JSONL beside a
manifest, resumable after a crash without asking the model again.

A stage (`Stage`) says which calls it makes (`Call`: a key, the messages built on demand, and
fields carried into the record) and how to read an answer (`read`, raising `ReplyError` when
the answer is malformed). `run_stage` then:

- opens `OUT/NAME.jsonl` as a `run.journal.Journal` (whole lines only, a torn last line cut
  away on reopening, settings checked against the ones that made the file), skips the keys it
  already holds, and appends one record per call in plan order;
- sends each call through the chat client it is given (wrapped in the response cache by the
  caller), so a call whose answer reached the cache before a crash costs no second request;
- records, never drops, what went wrong with one item: `error` for an input that could not be
  used (an unreadable video), `parse_error` with the raw answer for a malformed reply;
- stops at the first error of the client itself (unreachable server, wrong model), which is
  the user's to fix: the file keeps only whole records, so a rerun resumes;
- writes `OUT/NAME.manifest.json` (atomically): settings, model, prompt hashes, counts,
  tokens and cost summed over every record, and what this session requested.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..llm.base import ChatClient, Message
from ..llm.prompts import prompt_text
from ..llm.usage import completion_usage
from ..run.journal import Journal, write_atomic
from .record import StageRecord, Usage

MANIFEST_FORMAT = "longground-build-stage/1"


class ReplyError(Exception):
    """A model answer a stage cannot use; the message says why, in one line."""


@dataclass(frozen=True)
class Call:
    """One request a stage makes.

    Attributes:
        key: unique within the stage; the record's "qid".
        build: makes the messages when the call runs (so frames are decoded only then); an
            error it raises (`UserError`, `OSError`, `ValueError`) is the item's input error.
        context: fields copied into the record (video, times, the query, ...).
        max_tokens: longest answer.
    """

    key: str
    build: Callable[[], list[Message]]
    context: dict[str, Any] = field(default_factory=dict)
    max_tokens: int = 1024


class Stage(ABC):
    """What a pipeline step asks and how it reads the answers.

    Attributes:
        name: file stem of its outputs (`NAME.jsonl`, `NAME.manifest.json`).
        prompts: names of the prompt templates it uses (hashed into the manifest).
        settings: everything besides the model and prompts that decides its answers.
    """

    name: str
    prompts: tuple[str, ...] = ()
    settings: dict[str, Any] = {}

    @abstractmethod
    def calls(self) -> Iterable[Call]:
        """The calls, in the order their records are written."""

    @abstractmethod
    def read(self, call: Call, text: str) -> dict[str, Any]:
        """The fields an answer gives; raise `ReplyError` for a malformed one."""


def prompt_hashes(names: Iterable[str]) -> dict[str, str]:
    """sha256 (first 16 hex digits) of each prompt template's text.

    >>> list(prompt_hashes(["monolithic"])), len(prompt_hashes(["monolithic"])["monolithic"])
    (['monolithic'], 16)
    """
    return {n: hashlib.sha256(prompt_text(n).encode()).hexdigest()[:16] for n in names}


def fingerprint(stage: Stage, model: str) -> dict[str, Any]:
    """What decides a stage's answers; a file made under another one is not resumed."""
    return {
        "stage": stage.name,
        "model": model,
        "settings": stage.settings,
        "prompts": prompt_hashes(stage.prompts),
    }


@dataclass
class StageResult:
    """What a stage produced: its records in plan order and its manifest."""

    records: list[StageRecord]
    manifest: dict[str, Any]

    @property
    def ok(self) -> list[dict[str, Any]]:
        """The values (`{"qid", **fields}`) of the records that neither failed nor went
        unread."""
        return [r.values() for r in self.records if r.ok]


def run_stage(
    stage: Stage,
    client: ChatClient,
    out: Path,
    *,
    overwrite: bool = False,
    concurrency: int = 1,
    retry_malformed: bool = False,
) -> StageResult:
    """Run (or resume) `stage`, writing `out/NAME.jsonl` and `out/NAME.manifest.json`.

    Args:
        stage: the calls and the answer reader.
        client: the chat client (normally a `CachedChatClient`), or `StageClients` (a model
            per stage, and optionally batch submission).
        out: the pipeline's folder.
        overwrite: start the stage's file afresh whatever it holds.
        concurrency: calls in flight at once; records are still written in plan order.
        retry_malformed: on resume, ask again (past the response cache) exactly the calls
            whose earlier reply could not be read; every other record is kept as it is.

    Raises:
        UserError: the client failed (server, model) or the file was made with other
            settings; records already written stay.
    """
    from .stage_models import stage_client

    client, batch = stage_client(client, stage.name)  # a model per stage (--stage-model)
    path = Path(out) / f"{stage.name}.jsonl"
    session = {"requests": 0, "cache_hits": 0, "resumed": 0, "retried": 0}
    order: list[str] = []
    again = drop_malformed(path) if retry_malformed and not overwrite else set()
    session["retried"] = len(again)
    with Journal.open(path, fingerprint(stage, client.model), overwrite=overwrite) as journal:
        session["resumed"] = len(journal.done)
        todo = []
        for call in stage.calls():
            order.append(call.key)
            if call.key not in journal.done:
                todo.append(call)
        if len(set(order)) != len(order):
            raise ValueError(f"stage {stage.name} repeats a call key")
        if batch is not None and todo:  # answers fill the cache; the calls below then hit it
            from .batch import answer_by_batch

            session["batched"] = answer_by_batch(stage.name, todo, client, Path(out), batch)
        ask = lambda c: _answer(stage, client, c, fresh=c.key in again)  # noqa: E731
        for record, cached in _in_order(todo, ask, concurrency):
            if cached is not None:
                session["cache_hits" if cached else "requests"] += 1
            journal.append(record.to_json())
        records = [StageRecord.from_json(journal.done[key]) for key in order]
    manifest = _manifest(stage, client.model, records, session)
    write_atomic(path.with_name(f"{stage.name}.manifest.json"), json.dumps(manifest, indent=1))
    return StageResult(records, manifest)


def drop_malformed(path: Path) -> set[str]:
    """Rewrite the stage file `path` without its records whose reply could not be read
    (`parse_error`), atomically; returns their keys. A missing file drops nothing.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> _ = p.write_text('{"qid": "a"}\\n{"qid": "b", "parse_error": "x"}\\n')
    >>> drop_malformed(p), p.read_text()
    ({'b'}, '{"qid": "a"}\\n')
    """
    if not path.is_file():
        return set()
    kept, dropped = [], set()
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            record = json.loads(line)
        except ValueError:  # a torn last line: the journal cuts it away
            kept.append(line)
            continue
        if isinstance(record, dict) and "parse_error" in record:
            dropped.add(str(record.get("qid")))
        else:
            kept.append(line)
    if dropped:
        write_atomic(path, "".join(kept))
    return dropped


def unreadable_stage(manifests: Iterable[dict[str, Any]]) -> str | None:
    """The one-line error for a build in which no reply of a stage could be read (None when
    every stage that had items read at least one reply).

    >>> unreadable_stage([{"stage": "queries", "counts": {"items": 4, "ok": 0,
    ...                    "parse_failed": 3, "input_failed": 1}}])
    'no reply of stage queries could be read (4 items: 3 malformed replies, 1 input errors); ...'
    """
    for manifest in manifests:
        c = manifest["counts"]
        if c["items"] and not c["ok"]:
            return (
                f"no reply of stage {manifest['stage']} could be read ({c['items']} items: "
                f"{c['parse_failed']} malformed replies, {c['input_failed']} input errors); "
                "the records are kept: check the model and rerun with --retry-malformed"
            )
    return None


def _answer(
    stage: Stage, client: ChatClient, call: Call, fresh: bool = False
) -> tuple[StageRecord, bool | None]:
    """The record of one call, and whether its answer came from the cache (None: no call).
    `fresh` asks the model again past the response cache (when the client has one)."""
    try:
        messages = call.build()
    except (UserError, OSError, ValueError) as exc:
        return StageRecord(call.key, dict(call.context), error=_one_line(exc)), None
    complete = getattr(client, "refresh", client.complete) if fresh else client.complete
    completion = complete(messages, max_tokens=call.max_tokens)
    # Whether the answer came from the cache is the session's business, not the record's: a
    # resumed stage then writes the same lines as an uninterrupted one.
    usage = Usage.from_json(completion_usage(completion))
    fields, parse_error = dict(call.context), None
    try:
        fields.update(stage.read(call, completion.text))
    except ReplyError as exc:
        parse_error = _one_line(exc)
    record = StageRecord(call.key, fields, parse_error=parse_error, raw=completion.text,
                         usage=usage)  # fmt: skip
    return record, completion.cached


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _in_order(calls: list[Call], work, workers: int) -> Iterator:
    """`work(call)` for each call, yielded in the calls' order, at most `workers` at once."""
    if workers <= 1:
        for call in calls:
            yield work(call)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        window: deque = deque()
        try:
            for call in calls:
                window.append(pool.submit(work, call))
                if len(window) >= workers:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for future in window:
                future.cancel()


def _manifest(
    stage: Stage, model: str, records: list[StageRecord], session: dict
) -> dict[str, Any]:
    usage = [r.usage for r in records if r.usage is not None]
    return {
        "format": MANIFEST_FORMAT,
        **fingerprint(stage, model),
        "output": f"{stage.name}.jsonl",
        "counts": {
            "items": len(records),
            "ok": sum(r.ok for r in records),
            "parse_failed": sum(r.parse_failed for r in records),
            "input_failed": sum(r.input_failed for r in records),
        },
        "usage": {
            "prompt_tokens": sum(u.prompt_tokens for u in usage),
            "completion_tokens": sum(u.completion_tokens for u in usage),
            "cost_usd": sum(u.cost_usd for u in usage),
        },
        "session": session,
    }
