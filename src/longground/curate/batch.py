"""Batch submission of a stage's requests to an OpenAI-compatible server (files + batches API),
as ExtremeWhenBench priced its construction (P5 via the Batch API).

The stage's uncached requests go into one JSONL file (one chat-completions body per line,
`custom_id` = the response-cache key), uploaded with `POST /files` (purpose "batch"); `POST
/batches` starts the batch, `GET /batches/ID` is polled until it is done, and the output file
(`GET /files/ID/content`) fills the response cache. The stage then runs as usual and finds
every answer cached. The batch id is kept in `OUT/STAGE.batch.json`, so an interrupted wait
resumes the same batch instead of paying for a second one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import UserError
from ..llm.base import Completion
from ..run.journal import write_atomic
from .stage_models import BatchSettings

DONE = "completed"
FAILED = ("failed", "expired", "cancelled", "cancelling")


def batch_lines(calls: Sequence, client) -> list[dict]:
    """One batch line per call whose answer is not cached yet (calls that cannot be built
    are left to the stage, which records their error)."""
    lines = []
    for call in calls:
        try:
            messages = call.build()
        except (UserError, OSError, ValueError):
            continue
        key = client.key(messages, call.max_tokens, 0.0)
        if client.cache.get(key) is None:
            body = client.inner.request_body(messages, call.max_tokens, 0.0)
            lines.append({"custom_id": key, "method": "POST", "url": "/v1/chat/completions",
                          "body": body})  # fmt: skip
    return lines


def answer_by_batch(name: str, calls: Sequence, client, out: Path, settings: BatchSettings,
                    sleep: Callable[[float], None] = time.sleep) -> int:  # fmt: skip
    """Answer `calls` through one batch and store the answers in `client`'s cache.

    Returns:
        How many answers the batch gave.

    Raises:
        UserError: the client is not an OpenAI-compatible one behind the response cache, the
            server refused, the batch failed, or it is still running after `timeout_s`.
    """
    if not (hasattr(client, "cache") and hasattr(getattr(client, "inner", None), "http")):
        raise UserError("--batch needs the openai backend (an OpenAI-compatible server)")
    lines = batch_lines(calls, client)
    if not lines:
        return 0
    api = _Api(client.inner)
    state_path = Path(out) / f"{name}.batch.json"
    ids = sorted(line["custom_id"] for line in lines)
    state = json.loads(state_path.read_text(encoding="utf-8")) if state_path.exists() else {}
    if state.get("custom_ids") != ids:
        data = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
        file_id = api.post_file(f"{name}.jsonl", data)["id"]
        batch = api.post("/batches", {"input_file_id": file_id, "endpoint":
                                      "/v1/chat/completions", "completion_window":
                                      settings.completion_window})  # fmt: skip
        state = {"batch_id": batch["id"], "input_file_id": file_id, "custom_ids": ids}
        write_atomic(state_path, json.dumps(state, indent=1))
    batch = _wait(api, state["batch_id"], settings, state_path, sleep)
    stored = 0
    for line in api.get_text(f"/files/{batch['output_file_id']}/content").splitlines():
        completion = _completion(json.loads(line)) if line.strip() else None
        if completion is not None:
            key, completion = completion
            client.cache.put(key, client.model, completion)
            stored += 1
    return stored


def _wait(api, batch_id: str, settings: BatchSettings, state_path: Path, sleep) -> dict:
    began = time.monotonic()
    while True:
        batch = api.get(f"/batches/{batch_id}")
        if batch.get("status") == DONE:
            return batch
        if batch.get("status") in FAILED:
            state_path.unlink(missing_ok=True)  # a new run submits afresh
            raise UserError(f"batch {batch_id} ended as {batch['status']}; run again to resubmit")
        if time.monotonic() - began > settings.timeout_s:
            raise UserError(f"batch {batch_id} is still {batch.get('status')}; run the same "
                            f"command again to keep waiting ({state_path})")  # fmt: skip
        sleep(settings.poll_s)


def _completion(line: dict) -> tuple[str, Completion] | None:
    """`(custom_id, Completion)` of one output line, or None for a failed request."""
    response = line.get("response") or {}
    if response.get("status_code") != 200:
        return None
    body = response.get("body") or {}
    try:
        text = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    usage = body.get("usage") or {}
    return str(line["custom_id"]), Completion(
        text or "", int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    )


class _Api:
    """The files and batches endpoints next to the client's chat endpoint."""

    def __init__(self, client):
        self.base, self.http = client.base_url, client.http

    def _call(self, method: str, path: str, **kwargs):
        try:
            response = self.http.request(method, self.base + path, **kwargs)
        except Exception as exc:  # httpx's errors; one line for the user
            raise UserError(f"{self.base}{path}: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            raise UserError(f"{self.base}{path}: HTTP {response.status_code} "
                            f"{response.text[:200]}")  # fmt: skip
        return response

    def post_file(self, name: str, data: bytes) -> dict:
        files = {"file": (name, data, "application/jsonl")}
        return self._call("POST", "/files", files=files, data={"purpose": "batch"}).json()

    def post(self, path: str, body: dict) -> dict:
        return self._call("POST", path, json=body).json()

    def get(self, path: str) -> dict:
        return self._call("GET", path).json()

    def get_text(self, path: str) -> str:
        return self._call("GET", path).text
