"""`longground serve-stub`: the scripted OpenAI-compatible server the tests use, for trying
the commands that ask a Video-LLM (`reproduce`, `find --method monolithic`) without one."""

from __future__ import annotations

import signal
import threading
from typing import Annotated

import typer

from ..errors import UserError
from .main import app


@app.command("serve-stub")
def serve_stub(
    replies: Annotated[
        list[str] | None,
        typer.Option(
            "--reply",
            help="What the model answers, in order, one per request; the last is repeated "
            "(default: [], no moment). Repeat for more.",
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1 (0: a free one).")] = 0,
) -> None:
    """Serve scripted chat completions at http://127.0.0.1:PORT/v1 until Ctrl-C, so that
    every table of `longground reproduce` can be tried offline:

    \b
        longground serve-stub --reply '[[4, 10]]'
        longground reproduce comet-table2 bench.jsonl --out repro --base-url URL --model stub

    The answers are scripted, not a model's: the tables it fills show that the pipeline
    runs, not how any model scores. Ctrl-C or SIGTERM stops it; exit code 0 then, 2 when the
    port is unusable.
    """
    from ..llm.stub_server import OpenAIStub, Reply

    if not 0 <= port <= 65535:
        raise UserError(f"--port must be in 0..65535, got {port}")
    script = [Reply(text) for text in replies or ["[]"]]
    stub = OpenAIStub(script[:-1], default=script[-1], port=port, record=False)
    try:
        stub.start()
    except OSError as exc:
        raise UserError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror})") from None
    typer.echo(f"serving scripted answers at {stub.url} (Ctrl-C stops)")
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stub.stop()
    count = stub.request_count
    typer.echo(f"longground: stopped after {count} request{'s' if count != 1 else ''}", err=True)
