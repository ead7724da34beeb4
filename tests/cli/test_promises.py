"""The faults of issue 20, one table row each: exit 2, one line naming the file, line or
option, no traceback, and every input unchanged in bytes, mode and file type.

- text that is not valid Unicode (a lone surrogate, a NUL, bytes that are not UTF-8) in
  every reader: run, eval, stats, report, sweep, annotate import and serve, build agree;
- the numbers of `build` at their limits (seed, count, combinations, frames, alpha);
- `run --out -`, `index` of a device, `annotate export` into a missing folder.

The output paths themselves are held in tests/cli/test_outputs.py.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.cli.test_outputs import snapshot
from tests.support.hostile import FAKE, TEST_ENCODER, call, make_world, register_test_encoder

BAD_TEXT = {
    "surrogate": ('"a \\ud800 dog"', "query is not valid text (a lone surrogate U+D800"),
    "nul": ('"a\\u0000dog"', "query is not valid text (a NUL character"),
}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = make_world(tmp_path_factory.mktemp("promises"))
    good = world.bench.read_text().splitlines()
    for name, (query, _) in BAD_TEXT.items():
        second = json.loads(good[1])
        line = json.dumps(second).replace(json.dumps(second["query"]), query)
        (world.root / f"{name}.jsonl").write_text(f"{good[0]}\n{line}\n")
    raw = f"{good[0]}\n{good[1]}\n".encode().replace(b"a red car", b"a red \xff car")
    (world.root / "bytes.jsonl").write_bytes(raw)
    (world.root / "bytes.txt").write_bytes(b"tiny 0.0 1.0##a dog\ntiny 0.5 1.5##a \xfe cat\n")
    (world.root / "nul.txt").write_bytes(b"tiny 0.0 1.0##a dog\ntiny 0.5 1.5##a \x00 cat\n")
    return world


@pytest.fixture(autouse=True)
def isolated(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    register_test_encoder(monkeypatch)


READERS = [
    ["run", "{bad}", "-m", FAKE, "--out", "{root}/p.jsonl"],
    ["eval", "{bad}", "{preds}"],
    ["stats", "{bad}"],
    ["report", "{bad}", "{preds}", "--out", "{root}/report"],
    ["sweep", "{bad}", "--out", "{root}/sweep", "--encoder", TEST_ENCODER],
    ["annotate", "import", "--db", "{root}/a.db", "{bad}"],
    ["annotate", "serve", "{bad}", "--videos", "{root}", "--db", "{root}/s.db", "--port", "0"],
    ["build", "agree", "{bench}", "{bad}", "--out", "{root}/agree"],
]
TEXT_CASES = (
    [
        (argv, f"{{root}}/{name}.jsonl", f"{name}.jsonl:2: qid q2: {fragment}")
        for argv in READERS
        for name, (_, fragment) in BAD_TEXT.items()
    ]
    + [
        (argv, "{root}/bytes.jsonl", "bytes.jsonl:2: is not valid text (byte 0xff is not UTF-8)")
        for argv in READERS
    ]
    + [
        (
            ["stats", "{bad}", "--format", "charades"],
            "{root}/bytes.txt",
            "bytes.txt:2: is not valid",
        ),
        (
            ["stats", "{bad}", "--format", "charades"],
            "{root}/nul.txt",
            "nul.txt:2: qid tiny: query is not",
        ),
    ]
)

NUMBER_CASES = [
    (["build", "attributes", "--count", "3", "--seed", "-1"], "--seed must be in 0.."),
    (["build", "attributes", "--count", str(10**12)], "--count must be in 0..1000000"),
    (["build", "attributes", "--count", "3", "--alpha", "1e308"], "overflow the size law"),
    (["build", "attributes", "--count", "3", "--mu", "1e200", "--alpha", "1e200"], "overflow"),
    (
        ["build", "comet", "{video}", "--out", "{root}/c", "--dry-run", "--combinations",
         str(10**9)],
        "--combinations must be in 1..1000",
    ),
    (
        ["build", "comet", "{video}", "--out", "{root}/c", "--dry-run", "--frames", "100000"],
        "--frames must be in 1..1024",
    ),
    (
        ["build", "comet", "{video}", "--out", "{root}/c", "--dry-run", "--frames", "1000"],
        "tiny.mp4 has only 20 frames",
    ),
    (
        ["build", "comet", "{video}", "--out", "{root}/c", "--dry-run", "--frames", "1024",
         "--short-side", "2048"],
        "GiB per video",
    ),
    (["build", "comet", "{video}", "--out", "{root}/c", "--dry-run", "--seed", "-1"], "--seed"),
    (
        ["build", "ewb", "{video}", "--out", "{root}/e", "--dry-run", "--chunk-s", "inf",
         "--captioner", TEST_ENCODER],
        "'--chunk-s': inf is not a finite number",
    ),
    (
        ["build", "ewb", "{video}", "--out", "{root}/e", "--dry-run", "--top-k", str(10**9),
         "--captioner", TEST_ENCODER],
        "--top-k must be in 1..1000",
    ),
    (
        ["build", "ewb", "{video}", "--out", "{root}/e", "--dry-run", "--half-width-s",
         "1e308", "--captioner", TEST_ENCODER],
        "--half-width-s must be in (0,",
    ),
]  # fmt: skip

OTHER_CASES = [
    (["run", "{bench}", "-m", FAKE, "--out", "-"], "does not write to standard output"),
    (["index", "/dev/zero"], "/dev/zero: is not a regular file"),
    (["annotate", "import", "--db", "{root}/missing/a.db", "{bench}"], "does not exist"),
]


def refused(world, argv: list[str], fragment: str) -> float:
    """Run `argv`: exit 2, one line holding `fragment`, nothing changed; the seconds it took."""
    before = snapshot(world.root, world.cache)
    started = time.perf_counter()
    code, _, err = call(world.fill(argv))
    took_s = time.perf_counter() - started
    assert "Traceback" not in err, err
    assert code == 2, (argv, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("longground: error: "), err
    assert fragment in lines[0], (argv, err)
    assert snapshot(world.root, world.cache) == before, argv
    return took_s


@pytest.mark.parametrize(("argv", "bad", "fragment"), TEXT_CASES)
def test_text_that_is_not_valid_unicode_is_refused_at_reading(world, argv, bad, fragment):
    refused(world, [a.replace("{bad}", bad) for a in argv], fragment)


@pytest.mark.parametrize(("argv", "fragment"), NUMBER_CASES)
def test_build_numbers_at_their_limits_answer_at_once(world, argv, fragment):
    assert refused(world, argv, fragment) < 5.0  # nothing allocated or decoded first


@pytest.mark.parametrize(("argv", "fragment"), OTHER_CASES)
def test_other_faults(world, argv, fragment):
    refused(world, argv, fragment)
