"""Every option and argument of every command at its limits, generated from the command line
itself (the typer app, as `longground` builds it), so a new option is tried the day it is
added.

Each parameter gets the hostile values of its type: numbers `inf`, `nan`, `-1`, `0` and a
huge one; text the empty string, 2,001+ characters and a word no option knows; paths the
empty string, 4,097+ characters, a folder, a FIFO, and (for an output) one of the command's
inputs; enumerations an unknown name. Each is added to a cheap invocation of its command that
succeeds (`BASES`), and must give exit 2 and one `longground: error:` line that names the
option or the value, with no traceback, every user file left as it was, within seconds (a
FIFO read would block: a watchdog opens it after `LIMIT_S` and the case fails). Values an
option rightly takes are listed in `ACCEPTED` with the reason; they are not run, and the
list may not name an option or value that does not exist.
"""

from __future__ import annotations

import enum
import inspect
import os
import threading
import time
import typing
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer

from longground.cli.checks import MAX_PATH_CHARS, MAX_TEXT_CHARS, value_kind
from longground.cli.main import _register, app
from tests.cli.test_outputs import CACHE_ROOTS, FILE_OUTPUTS, FOLDER_OUTPUTS, snapshot
from tests.support.hostile import (
    FAKE,
    TEST_ENCODER,
    add_extras,
    call,
    make_world,
    register_test_encoder,
)

LIMIT_S = 8.0

# A cheap invocation of each command that succeeds: its positional arguments by parameter
# name (in order), then options. `{name}` is filled from the test world.
BASES: dict[str, tuple[dict[str, str], list[str]]] = {
    "find": ({"videos": "{video}", "query": "a cat"}, ["-m", "retrieval", "--encoder",
                                                      TEST_ENCODER, "--channels", "none"]),
    "run": ({"benchmark": "{bench}"}, ["-m", FAKE, "--out", "{root}/run.jsonl", "--overwrite"]),
    "eval": ({"gt": "{bench}", "pred": "{preds}"}, []),
    "synth": ({}, ["--dry-run", "--tiny"]),
    "info": ({"videos": "{video}"}, []),
    "index": ({"videos": "{video}"}, ["--encoder", TEST_ENCODER, "--channels", "none"]),
    "stats": ({"bench": "{bench}"}, []),
    "report": ({"gt": "{bench}", "preds": "{preds}"}, ["--out", "{root}/report"]),
    "sweep": ({"bench": "{bench}"}, ["--out", "{root}/sweep", "--encoder", TEST_ENCODER,
                                     "--windows", "full"]),
    "reproduce": ({"table": "comet-table7", "bench": "{bench}"},
                  ["--out", "{root}/repro", "--encoder", TEST_ENCODER, "--preset", "longground"]),
    "transcript": ({"video": "{talk}"}, []),
    "serve-stub": ({}, []),
    "serve": ({"folders": "{root}"}, ["--port", "0", "--encoder", TEST_ENCODER,
                                     "--channels", "none"]),
    "cache info": ({}, []),
    "cache list": ({}, []),
    "cache clean": ({}, ["--dry-run"]),
    "build attributes": ({}, ["--count", "3"]),
    "build agree": ({"first": "{bench}", "second": "{bench2}"}, ["--out", "{root}/agree"]),
    "build comet": ({"videos": "{video}"}, ["--out", "{root}/comet", "--dry-run", "--frames",
                                            "4", "--model", "m"]),
    "build ewb": ({"videos": "{video}"}, ["--out", "{root}/ewb", "--dry-run", "--captioner",
                                          TEST_ENCODER, "--model", "m"]),
    "annotate serve": ({"benchmark": "{bench}"}, ["--videos", "{root}", "--db", "{root}/s.db",
                                                  "--port", "0"]),
    "annotate export": ({}, ["--db", "{root}/ann.db", "--out", "{root}/export.jsonl"]),
    "annotate import": ({"more": "{bench2}"}, ["--db", "{root}/import.db"]),
}  # fmt: skip


@dataclass(frozen=True)
class Param:
    """One parameter of one command, as the command line declares it."""

    command: str
    name: str  # the Python parameter name
    flag: str | None  # "--fps", or None for a positional argument
    kind: str  # "float", "int", "text", "path", "choice" or "flag"
    words: tuple[str, ...]  # what an error line may call it

    @property
    def label(self) -> str:
        return self.flag or self.name


def _kind(param, hint) -> str:
    """The hostile values a parameter gets: by the guard's reading of its type, a flag's
    none, an enumeration's as a choice."""
    if getattr(param, "is_flag", False):
        return "flag"
    inner = {hint, *typing.get_args(hint)}
    inner |= {i for arg in list(inner) for i in typing.get_args(arg)}
    if any(isinstance(arg, type) and issubclass(arg, enum.Enum) for arg in inner):
        return "choice"
    return value_kind(hint)


def parameters() -> list[Param]:
    """Every parameter of every leaf command of `longground`."""
    _register([])
    found: list[Param] = []

    def walk(command, names):
        if getattr(command, "commands", None):
            for name, sub in command.commands.items():
                walk(sub, [*names, name])
            return
        hints = typing.get_type_hints(inspect.unwrap(command.callback))
        for p in command.params:
            if p.name == "help":
                continue
            flag = p.opts[0] if p.param_type_name == "option" else None
            words = (*p.opts, p.name, p.name.replace("_", "-"), getattr(p, "metavar", None))
            found.append(Param(" ".join(names), p.name, flag, _kind(p, hints[p.name]),
                               tuple(w.lower().strip("-") for w in words if w)))  # fmt: skip

    walk(typer.main.get_command(app), [])
    return found


HUGE_TEXT = "x" * (MAX_TEXT_CHARS + 1)
HUGE_PATH = "/" + "p" * MAX_PATH_CHARS
VALUES = {
    "float": {"inf": "inf", "nan": "nan", "-1": "-1", "0": "0", "huge": "1e308"},
    "int": {"-1": "-1", "0": "0", "huge": str(10**20)},
    "text": {"empty": "", "huge": HUGE_TEXT, "word": "no-such-thing"},
    "path": {"empty": "", "huge": HUGE_PATH, "folder": "{folder}", "fifo": "{fifo}"},
    "choice": {"empty": "", "word": "no-such-thing"},
}
OUTPUTS = {key for key in (*FILE_OUTPUTS, *FOLDER_OUTPUTS)}

# (command, option, value label) -> why the option rightly takes it (not run).
_ANY = "*"
ACCEPTED: dict[tuple[str, str, str], str] = {
    # seeds, counts of extras and zero-based settings where 0 is a choice
    **{(c, "--seed", "0"): "seed 0 is a seed" for c in
       ("eval", "synth", "build attributes", "build comet")},
    ("eval", "--bootstrap", "0"): "no confidence intervals (the default)",
    ("eval", "--sample", "0"): "no sample of failures (the default)",
    ("eval", "--theta", "0"): "a threshold of 0 is defined (any overlap counts)",
    ("eval", "--fail-iou", "0"): "no query fails (IoU < 0)",
    ("eval", "--offset-min", "0"): "every failure is a search failure",
    ("annotate serve", "--port", "0"): "0 picks a free port",
    ("serve-stub", "--port", "0"): "0 picks a free port",
    ("serve", "--port", "0"): "0 picks a free port",
    ("build attributes", "--count", "0"): "no combination asked for",
    ("cache clean", "--older-than", "0"): "every entry is older than 0 days",
    ("cache clean", "--older-than", "huge"): "no entry is that old: nothing to remove",
    ("eval", "--offset-min", "huge"): "every failure is a localisation failure",
    ("report", "--theta", "0"): "a threshold of 0 is defined (any overlap counts)",
    ("build ewb", "--nms-s", "0"): "windows may lie as close as they like",
    **{(c, "--batch-poll-s", "0"): "poll again at once (as the tests do)"
       for c in ("build comet", "build ewb")},
    **{(c, o, v): "the size law exp(-alpha (k - mu)^2) takes any finite mu, and alpha 0 is "
       "uniform" for c in ("build attributes", "build comet")
       for o, v in (("--mu", "-1"), ("--mu", "0"), ("--alpha", "0"))},
    **{(c, "--fps", "huge"): "capped at the video's own rate with a warning"
       for c in ("find", "run", "index", "sweep", "reproduce", "serve")},
    # names and free text: any word is a name
    **{(c, o, "word"): "free text" for c, o in (
        ("find", "query"), ("find", "--model"), ("find", "--api-key"), ("run", "--model"),
        ("run", "--api-key"), ("eval", "--model"), ("eval", "--api-key"),
        ("report", "--name"), ("report", "--title"), ("sweep", "--model"),
        ("sweep", "--api-key"), ("reproduce", "--model"), ("reproduce", "--api-key"),
        ("serve-stub", "--reply"), ("build comet", "--domain"), ("build comet", "--model"),
        ("build comet", "--api-key"), ("build ewb", "--domain"), ("build ewb", "--model"),
        ("build ewb", "--api-key"), ("build ewb", "--cinematic-words"),
        ("annotate serve", "--annotator"), ("find", "--ray"), ("run", "--ray"),
        ("index", "--ray"), ("serve", "--model"), ("serve", "--api-key"),
    )},
    # folders where a folder is asked for: cache roots, output folders, folders of videos
    **{(c, o, "folder"): "a folder is what it takes" for c, o in (
        *CACHE_ROOTS, *FOLDER_OUTPUTS, ("find", "videos"), ("run", "--videos"),
        ("sweep", "--videos"), ("reproduce", "--videos"), ("annotate serve", "--videos"),
        ("annotate export", "--videos"), ("serve", "folders"), ("index", "videos"),
    )},
}  # fmt: skip


def input_of(command: str, option: str) -> str | None:
    """One input of `command`, as a world name, to give as its output `option`: the input
    tests/cli/test_outputs.py names for an output file, else the command's first input."""
    if (command, option) in FILE_OUTPUTS:
        return "{" + FILE_OUTPUTS[command, option][1][0] + "}"
    first = next((v for v in BASES[command][0].values() if v.startswith("{")), None)
    return first


def cases() -> list[tuple[Param, str, str]]:
    out = []
    for param in parameters():
        values = dict(VALUES.get(param.kind, {}))
        if (param.command, param.label) in OUTPUTS and input_of(param.command, param.label):
            values["input"] = input_of(param.command, param.label)
        for label, value in values.items():
            if (param.command, param.label, label) not in ACCEPTED:
                out.append((param, label, value))
    return out


CASES = cases()


def test_every_command_has_a_base_invocation():
    assert {p.command for p in parameters()} == set(BASES)


def test_accepted_values_name_real_options():
    real = {(p.command, p.label, label) for p in parameters() for label in
            [*VALUES.get(p.kind, {}), "input"]}  # fmt: skip
    assert set(ACCEPTED) <= real, set(ACCEPTED) - real


@dataclass(frozen=True)
class World:
    names: dict[str, str]
    root: Path
    cache: Path
    fifo: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = add_extras(make_world(tmp_path_factory.mktemp("every-option")))
    talk = base.root / "talk.mp4"
    talk.write_bytes(base.video.read_bytes())
    names = {k: str(v) for k, v in base.__dict__.items()}
    names.update(fifo=str(base.root / "pipe"), bench2=str(base.root / "bench2.jsonl"),
                 talk=str(talk))  # fmt: skip
    return World(names, base.root, base.cache, base.root / "pipe")


@pytest.fixture(autouse=True)
def isolated(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("LONGGROUND_LLM_MODEL", raising=False)
    register_test_encoder(monkeypatch)
    import longground.annotate.server as server

    monkeypatch.setattr(server, "run", lambda app, sock: None)  # serve, then stop at once


def argv_for(world: World, param: Param, value: str) -> list[str]:
    positional, options = BASES[param.command]
    names = {**world.names, "db": str(world.root / "ann.db")}

    def fill(text: str) -> str:
        return text.format(**names)

    argv = param.command.split()
    for name, default in positional.items():
        argv.append(fill(value) if name == param.name else fill(default))
    argv += [fill(o) for o in options]
    if param.flag is not None:
        argv += [param.flag, fill(value)]
    return argv


def _unblock_fifo_after(fifo: Path, seconds: float) -> threading.Event:
    """From `seconds` on, open the FIFO for writing again and again (so a reader blocked on
    it gets EOF each time it opens it), until the returned event is set."""
    done = threading.Event()

    def release():
        wait_s = seconds
        while not done.wait(wait_s):
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            wait_s = 0.05

    threading.Thread(target=release, daemon=True).start()
    return done


@pytest.mark.parametrize(
    ("param", "label", "value"),
    CASES,
    ids=[f"{p.command}:{p.label}={label}" for p, label, _ in CASES],
)
def test_a_value_at_its_limit_is_one_line_exit_2(world, param, label, value):
    argv = argv_for(world, param, value)
    before = snapshot(world.root, world.cache)
    done = _unblock_fifo_after(world.fifo, LIMIT_S)
    started = time.perf_counter()
    try:
        code, _, err = call(argv)
    finally:
        took_s = time.perf_counter() - started
        done.set()
        changed = _restore(world, before)
    assert not changed, f"changed: {changed}"
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert code == 2, (code, err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("longground: error: "), err[-2000:]
    said = lines[0].lower()
    shown = argv[-1] if param.flag else value.format(**world.names)
    assert any(word in said for word in param.words) or (shown and shown.lower() in said), said
    assert took_s < LIMIT_S, f"took {took_s:.1f} s (blocked?)"


def _restore(world: World, before: dict) -> list[str]:
    """Put back every file a case changed or removed, remove what it added (so one failure
    does not spoil the cases after it); returns what had changed."""
    import shutil

    after = snapshot(world.root, world.cache)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    for name in changed:
        path = world.root / name
        if name not in before:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        elif before[name][2] is not None:  # a regular file: its bytes and mode
            path.unlink(missing_ok=True)
            path.write_bytes(before[name][2])
            path.chmod(before[name][1] & 0o7777)
    return changed


def test_every_base_invocation_succeeds(world, monkeypatch):
    """The bases run, so a refusal above is the value's doing (transcript needs speech, so
    its base may only fail on the missing audio)."""
    import longground.cli.serve_stub_cmd as stub

    # serve-stub serves until SIGTERM: here the "signal" arrives as its handler is installed
    monkeypatch.setattr(stub, "signal", SimpleNamespace(SIGTERM=15, signal=lambda s, h: h()))
    for command in BASES:
        param = Param(command, "", None, "flag", ())
        code, _, err = call(argv_for(world, param, ""))
        if command == "transcript":
            assert code == 2 and "no audio" in err, err
        else:
            assert code in (0, 1), (command, err[-2000:])
