"""Every output option of every command goes through the one checked entry
(`longground.outputs`): each is tried with a FIFO, a folder or file of the wrong kind, a
missing parent folder, `-`, and one of the command's inputs spelled another way (a hard
link, a symbolic link, a relative path from another folder). Each must be exit 2, one line,
and leave every file exactly as it was: bytes, mode and file type.

The list of options is checked against the commands themselves: a new path option that is
neither listed here as an output nor as an input fails `test_every_path_option_is_classified`.
"""

from __future__ import annotations

import inspect
import os
import stat
import typing
from pathlib import Path

import pytest
import typer

from longground.cli.main import _register, app
from tests.support.hostile import (
    FAKE,
    TEST_ENCODER,
    add_extras,
    call,
    make_world,
    register_test_encoder,
)

OUT = "{out}"

# (command, option) -> argv (with OUT where the output goes), and the inputs it reads.
FILE_OUTPUTS = {
    ("find", "--trace"): (["find", "{video}", "a cat", "-m", FAKE, "--trace", OUT], ["video"]),
    ("run", "--out"): (["run", "{bench}", "-m", FAKE, "--out", OUT], ["bench"]),
    ("eval", "--per-query"): (["eval", "{bench}", "{preds}", "--per-query", OUT], ["preds"]),
    ("annotate serve", "--db"): (
        ["annotate", "serve", "{bench}", "--videos", "{root}", "--db", OUT],
        ["bench"],
    ),
    ("annotate import", "--db"): (["annotate", "import", "--db", OUT, "{bench}"], ["bench"]),
    ("annotate export", "--out"): (
        ["annotate", "export", "--db", "{root}/ann.db", "--out", OUT],
        ["bench", "db"],
    ),
    ("transcript", "--out"): (["transcript", "{video}", "--out", OUT], ["video"]),
    **{
        ("find", option): (["find", "{video}", "a cat", "-m", FAKE, option, OUT], ["video"])
        for option in ("--export", "--selects", "--thumbs", "--timeline")
    },
    **{
        ("run", option): (
            ["run", "{bench}", "-m", FAKE, "--out", "{root}/run.jsonl", option, OUT], ["bench"]
        )
        for option in ("--export", "--thumbs", "--timeline")
    },
}
# (command, option) -> argv, and (input, the name the command writes in the folder) pairs.
FOLDER_OUTPUTS = {
    ("synth", "--out"): (["synth", "--tiny", "--minutes", "0.5", "--out", OUT], []),
    ("report", "--out"): (
        ["report", "{bench}", "{preds}", "--out", OUT, "--overwrite"],
        [("preds", "report.json")],
    ),
    ("sweep", "--out"): (
        ["sweep", "{bench}", "--out", OUT, "--overwrite", "--encoder", TEST_ENCODER],
        [("bench", "results.json")],
    ),
    ("build agree", "--out"): (
        ["build", "agree", "{bench}", "{root}/bench2.jsonl", "--out", OUT, "--overwrite"],
        [("bench", "final.jsonl")],
    ),
    ("build comet", "--out"): (
        ["build", "comet", "{video}", "--out", OUT, "--overwrite", "--frames", "4", "--model", "m"],
        [("video", "benchmark.jsonl")],
    ),
    ("find", "--clips"): (["find", "{video}", "a cat", "-m", FAKE, "--clips", OUT], []),
    ("run", "--clips"): (
        ["run", "{bench}", "-m", FAKE, "--out", "{root}/run.jsonl", "--clips", OUT], []
    ),
    ("reproduce", "--out"): (
        ["reproduce", "ewb-table1", "{bench}", "--out", OUT, "--model", "m"],
        [("bench", "table.md")],
    ),
    ("build ewb", "--out"): (
        ["build", "ewb", "{video}", "--out", OUT, "--overwrite", "--model", "m"],
        [("video", "review.jsonl")],
    ),
}
CACHE_ROOTS = {  # checked by check_cache_root (tests/cli/test_hostile_inputs.py)
    ("find", "--cache-dir"), ("run", "--cache-dir"), ("index", "--cache-dir"),
    ("sweep", "--cache-dir"), ("cache info", "--cache-dir"), ("cache list", "--cache-dir"),
    ("cache clean", "--cache-dir"), ("build comet", "--cache-dir"), ("build ewb", "--cache-dir"),
    ("eval", "--cache-dir"), ("reproduce", "--cache-dir"), ("transcript", "--cache-dir"),
    ("annotate serve", "--cache-dir"), ("serve", "--cache-dir"),
}  # fmt: skip
INPUTS = {
    ("find", "videos"), ("run", "benchmark"), ("run", "--videos"), ("eval", "gt"),
    ("eval", "pred"), ("eval", "--durations"), ("eval", "--windows"), ("info", "videos"),
    ("index", "videos"), ("stats", "bench"), ("stats", "--durations"), ("report", "gt"),
    ("report", "preds"), ("report", "--windows"), ("report", "--durations"),
    ("sweep", "bench"), ("sweep", "--videos"), ("build agree", "first"),
    ("build agree", "second"), ("build agree", "--candidates"), ("build comet", "videos"),
    ("build ewb", "videos"), ("annotate serve", "benchmark"), ("annotate serve", "--videos"),
    ("annotate serve", "--pred"), ("annotate export", "--db"), ("annotate export", "--videos"),
    ("annotate import", "more"), ("reproduce", "bench"), ("reproduce", "--videos"),
    ("reproduce", "--reference"), ("transcript", "video"), ("serve", "folders"),
    ("synth", "--montage"),
}  # fmt: skip


def path_options() -> set[tuple[str, str]]:
    """(command, option or argument name) of every parameter typed as a path."""
    _register([])
    found = set()

    def walk(command, names):
        if getattr(command, "commands", None):
            for name, sub in command.commands.items():
                walk(sub, [*names, name])
            return
        hints = typing.get_type_hints(inspect.unwrap(command.callback))
        spelled = {p.name: (p.opts[0] if p.opts else p.name) for p in command.params}
        for name, hint in hints.items():
            if "Path" in str(hint):
                found.add((" ".join(names), spelled.get(name, name)))

    walk(typer.main.get_command(app), [])
    return found


def test_every_path_option_is_classified():
    outputs = set(FILE_OUTPUTS) | set(FOLDER_OUTPUTS) | CACHE_ROOTS
    assert path_options() == outputs | INPUTS
    assert not outputs & INPUTS


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return add_extras(make_world(tmp_path_factory.mktemp("outputs")))


@pytest.fixture(autouse=True)
def isolated(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.chdir(world.folder)  # so that "../bench.jsonl" names the benchmark
    register_test_encoder(monkeypatch)


def snapshot(root: Path, cache: Path) -> dict[str, tuple]:
    """File type, mode and (for regular files) bytes of everything under `root`."""
    found = {}
    for path in sorted(root.rglob("*")):
        if cache in path.parents or path == cache or "__pycache__" in path.parts:
            continue
        info = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
        found[str(path.relative_to(root))] = (stat.S_IFMT(info.st_mode), info.st_mode, data)
    return found


def named(world, key: str) -> Path:
    return world.root / "ann.db" if key == "db" else getattr(world, key)


def refused(world, argv: list[str], out: str, fragment: str) -> None:
    """`argv` with `out` as the output: exit 2, one line holding `fragment`, nothing changed."""
    before = snapshot(world.root, world.cache)
    argv = [arg.replace(OUT, out) for arg in argv]
    code, _, err = call(world.fill(argv) if "{out}" not in out else argv)
    assert "Traceback" not in err, err
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("longground: error: "), err
    assert fragment in lines[0], (argv, err)
    assert snapshot(world.root, world.cache) == before, argv


def file_cases(world, inputs: list[str]) -> list[tuple[str, str]]:
    """(output path, fragment of the refusal) for an output file."""
    first = named(world, inputs[0])
    hard, soft = world.root / "hard-link", world.root / "soft-link"
    for link in (hard, soft):
        link.unlink(missing_ok=True)
    os.link(first, hard)
    soft.symlink_to(first)
    return [
        ("{root}/pipe", "is not a regular file"),
        ("/dev/null", "is not a regular file"),
        ("{folder}", "is a folder"),
        ("{root}/missing/o", "does not exist"),
        ("{plain_file}/o", "is not a folder"),
        (str(hard), "would overwrite the input"),
        (str(soft), "would overwrite the input"),
        (os.path.relpath(first, world.folder), "would overwrite the input"),
    ]


@pytest.mark.parametrize("key", sorted(FILE_OUTPUTS), ids=" ".join)
def test_output_files_are_checked(world, key):
    argv, inputs = FILE_OUTPUTS[key]
    for out, fragment in file_cases(world, inputs):
        refused(world, argv, world.fill([out])[0], fragment)
    for other in inputs[1:]:
        refused(world, argv, str(named(world, other)), "would overwrite the input")
    if key != ("annotate export", "--out"):  # the one that writes a single stream
        refused(world, argv, "-", "standard output")


@pytest.mark.parametrize("key", sorted(FOLDER_OUTPUTS), ids=" ".join)
def test_output_folders_are_checked(world, key):
    argv, inside = FOLDER_OUTPUTS[key]
    cases = [
        ("{plain_file}", "is a file, not a folder"),
        ("{root}/pipe", "is a file, not a folder"),
        ("{root}/missing/o", "does not exist"),
        ("{plain_file}/o", "is not a folder"),
        ("-", "writes a folder"),
    ]
    for out, fragment in cases:
        refused(world, argv, world.fill([out])[0], fragment)
    for source, name in inside:  # an input where the command writes one of its files
        folder = world.root / f"holds-{name}"
        folder.mkdir(exist_ok=True)
        (folder / name).unlink(missing_ok=True)
        os.link(named(world, source), folder / name)
        refused(world, argv, str(folder), "would overwrite the input")


def test_export_writes_to_standard_output_and_refuses_its_imported_file(world):
    code, out, err = call(["annotate", "export", "--db", str(world.root / "ann.db"), "--out", "-"])
    assert code == 0 and out.count("\n") == 2 and '"qid": "q1"' in out, err
