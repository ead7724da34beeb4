"""A fake OpenAI-compatible server with the files and batches API, for the batch path of
`longground build`. Chat completions are answered at once; a batch answers every line of its
input file with the same responder once it has been polled `polls_to_finish` times.

    with BatchStub(responder) as server:   # responder: SeenRequest -> Reply
        ... server.url, server.uploads, server.batches, server.chat_requests
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.openai_stub import Reply, SeenRequest, decode_messages


class BatchStub:
    """The fake. `url` ends in `/v1`; it listens on 127.0.0.1 and stops on exit."""

    def __init__(self, responder: Callable[[SeenRequest], Reply], polls_to_finish: int = 2):
        self.responder, self.polls_to_finish = responder, polls_to_finish
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads = self.chat_requests = self.batch_lines = 0
        self.seen: list[SeenRequest] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> BatchStub:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def answer(self, body: dict) -> dict:
        """The completion body for one chat request."""
        seen = SeenRequest("/v1/chat/completions", {}, body, decode_messages(body))
        with self._lock:
            self.seen.append(seen)
        return json.loads(self.responder(seen).payload(body.get("model", "")))

    def post(self, path: str, headers, raw: bytes) -> tuple[int, object]:
        if path == "/v1/chat/completions":
            self.chat_requests += 1
            return 200, self.answer(json.loads(raw))
        if path == "/v1/files":
            head = f"Content-Type: {headers['Content-Type']}\r\n\r\n".encode()
            form = BytesParser(policy=HTTP).parsebytes(head + raw)
            parts = {p.get_param("name", header="content-disposition"): p for p in
                     form.iter_parts()}  # fmt: skip
            if parts["purpose"].get_content().strip() != "batch":
                return 400, {"error": {"message": "purpose must be batch"}}
            file_id = f"file-{len(self.files)}"
            self.files[file_id] = parts["file"].get_payload(decode=True)
            self.uploads += 1
            return 200, {"id": file_id, "object": "file", "purpose": "batch"}
        if path == "/v1/batches":
            body = json.loads(raw)
            if body.get("endpoint") != "/v1/chat/completions" or body["input_file_id"] not in (
                self.files
            ):
                return 400, {"error": {"message": "bad batch request"}}
            batch_id = f"batch-{len(self.batches)}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "status": "validating",
                "input_file_id": body["input_file_id"],
                "polls": 0,
            }
            return 200, self.batches[batch_id]
        return 404, {"error": {"message": f"no route {path}"}}

    def get(self, path: str) -> tuple[int, object]:
        if path.startswith("/v1/batches/"):
            batch = self.batches.get(path.rsplit("/", 1)[1])
            if batch is None:
                return 404, {"error": {"message": "no such batch"}}
            batch["polls"] += 1
            if batch["status"] != "completed":
                batch["status"] = "in_progress"
                if batch["polls"] >= self.polls_to_finish:
                    self._finish(batch)
            return 200, {k: v for k, v in batch.items() if k != "polls"}
        if path.startswith("/v1/files/") and path.endswith("/content"):
            data = self.files.get(path.split("/")[3])
            return (200, data) if data is not None else (404, {"error": {"message": "no file"}})
        return 404, {"error": {"message": f"no route {path}"}}

    def _finish(self, batch: dict) -> None:
        out = []
        for line in self.files[batch["input_file_id"]].decode().splitlines():
            request = json.loads(line)
            self.batch_lines += 1
            response = {"status_code": 200, "body": self.answer(request["body"])}
            out.append(json.dumps({"custom_id": request["custom_id"], "response": response}))
        file_id = f"file-{len(self.files)}"
        self.files[file_id] = ("\n".join(out) + "\n").encode()
        batch.update(status="completed", output_file_id=file_id)


def _handler(stub: BatchStub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _send(self, status: int, payload) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(*stub.post(self.path, self.headers, raw))

        def do_GET(self) -> None:
            self._send(*stub.get(self.path))

    return Handler
