"""Generated values thrown at every option of every command: whatever comes in, the exit code
is 0, 1, 2 or 130 and no traceback reaches the user.

Inputs stay tiny (a 2 s video, a two-query benchmark), the methods are the fake plugin and
retrieval over a free test encoder, `synth` and `build comet|ewb` only plan (`--dry-run`, or
lengths it refuses), and `cache clean` only looks (`--dry-run`), so the whole file runs in well
under a minute. The commands covered: find, run, eval (with the analysis options), synth, index,
info, cache, stats, report, sweep, build (attributes, agree, comet, ewb: every option) and
annotate (serve, export, import: every option; serve with a stand-in socket and server).
"""

from __future__ import annotations

import shutil
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from longground.methods.retrieval import RetrievalParams
from tests.support.hostile import FAKE, TEST_ENCODER, call, make_world, register_test_encoder

EXIT_CODES = {0, 1, 2, 130}
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,  # the same examples on every run: a failure here is reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HOSTILE_NUMBERS = ["inf", "-inf", "nan", "1e308", "-1e308", "1e-320", "0", "-0", "-1", "1e9"]
numbers = st.one_of(
    st.sampled_from(HOSTILE_NUMBERS),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**30), 10**30).map(str),
    st.text(max_size=6),
)
small_numbers = st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.floats(0.01, 20).map(repr))
# Video lengths and counts that plan in well under a second, or that are refused at once.
synth_minutes = st.one_of(
    st.sampled_from(["0.5", "1", "0.5,1", *HOSTILE_NUMBERS]),
    st.floats(min_value=180.001).map(repr),
    st.floats(max_value=0.499).map(repr),
    st.text(max_size=6),
)
synth_videos = st.sampled_from(["1", "2", "0", "-1", "1001", str(10**30), "nan", "x"])
odd_text = st.text(max_size=12)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return make_world(tmp_path_factory.mktemp("props"))


@pytest.fixture(autouse=True)
def isolated(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    register_test_encoder(monkeypatch)


def output_paths(world, inputs: list[str]) -> st.SearchStrategy[str]:
    """Places to write: good ones in a scratch folder, bad ones, and the command's inputs."""
    scratch = world.root / "scratch"
    scratch.mkdir(exist_ok=True)
    (scratch / "old.txt").write_text("old\n")
    return st.sampled_from(
        [
            str(scratch / "new.jsonl"),
            str(scratch / "old.txt"),
            str(world.folder),
            f"{world.plain_file}/x",
            f"{world.root}/missing/x",
            "/dev/null",
            "/proc/x",
            "",
            *inputs,
        ]
    )


def cache_roots(world) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [str(world.cache), str(world.plain_file), "/dev/null", "/proc/c", f"{world.root}/c2", ""]
    )


def check(argv: list[str]) -> None:
    code, _, err = call(argv)
    assert "Traceback" not in err, (argv, err)
    assert code in EXIT_CODES, (argv, code, err)


def options(draw, table: dict[str, st.SearchStrategy]) -> list[str]:
    """Some of the options in `table`, each with a drawn value (None: a flag)."""
    argv = []
    for name in draw(st.lists(st.sampled_from(sorted(table)), unique=True, max_size=len(table))):
        value = table[name]
        argv += [name] if value is None else [name, draw(value)]
    return argv


@SETTINGS
@given(data=st.data())
def test_find(world, data):
    inputs = [str(world.video), str(world.plain_file), f"{world.root}/none.mp4", str(world.folder)]
    table = {
        "--fps": small_numbers,
        "--max": numbers,
        "--trace": output_paths(world, [str(world.video)]),
        "--cache-dir": cache_roots(world),
        "--param": st.sampled_from(["k", "threshold", "smooth_s", "mode", "x"]).flatmap(
            lambda key: numbers.map(lambda value: f"{key}={value}")
        ),
        "--json": None,
        "--count": None,
        "--single": None,
    }
    method = data.draw(st.sampled_from(["retrieval", "nope"]))
    argv = ["find", data.draw(st.sampled_from(inputs)), data.draw(odd_text), "-m", method]
    check([*argv, "--encoder", TEST_ENCODER, *options(data.draw, table)])


RETRIEVAL_KEYS = [f.name for f in fields(RetrievalParams)]


@settings(SETTINGS, max_examples=40)
@given(
    params=st.lists(
        st.tuples(st.sampled_from(RETRIEVAL_KEYS), st.one_of(numbers, st.sampled_from(["auto"]))),
        min_size=1,
        max_size=3,
    ),
    single=st.booleans(),
)
def test_method_parameters(world, params, single):
    argv = ["find", str(world.video), "a cat", "--encoder", TEST_ENCODER, "--json"]
    for key, value in params:
        argv += ["-p", f"{key}={value}"]
    check(argv + (["--single"] if single else []))


@SETTINGS
@given(data=st.data())
def test_run(world, data):
    bench = data.draw(st.sampled_from([str(world.bench), str(world.preds), str(world.folder)]))
    table = {
        "--fps": small_numbers,
        "--workers": st.sampled_from(["0", "-1", "1", "nan", "1e308", "x"]),
        "--gpus-per-worker": numbers,
        "--param": numbers.map(lambda value: f"scale={value}"),
        "--cache-dir": cache_roots(world),
        "--protocol": st.sampled_from(["comet", "single", "nope"]),
        "--format": st.sampled_from(["canonical", "nope", "charades"]),
        "--overwrite": None,
        "--eval": None,
        "--retry-errors": None,
    }
    out = data.draw(output_paths(world, [str(world.bench), str(world.preds)]))
    check(["run", bench, "-m", FAKE, "--out", out, *options(data.draw, table)])


@SETTINGS
@given(data=st.data())
def test_eval(world, data):
    gt = data.draw(st.sampled_from([str(world.bench), str(world.preds), str(world.video)]))
    table = {
        "--theta": numbers,
        "--bootstrap": st.one_of(st.integers(-5, 200).map(str), numbers),
        "--seed": numbers,
        "--by": st.sampled_from(["attribute", "domain,count", "nope", ",,"]),
        "--protocol": st.sampled_from(["comet", "single", "x"]),
        "--durations": st.sampled_from([str(world.durations), str(world.plain_file)]),
        "--per-query": output_paths(world, [str(world.bench), str(world.preds)]),
        "--json": None,
    }
    check(["eval", gt, str(world.preds), *options(data.draw, table)])


@SETTINGS
@given(data=st.data())
def test_synth(world, data):
    minutes = data.draw(synth_minutes)
    table = {
        "--videos": synth_videos,
        "--seed": numbers,
        "--tiny": None,
        "--stats": None,
    }
    argv = ["synth", "--minutes", minutes, *options(data.draw, table)]
    if data.draw(st.booleans()):
        check([*argv, "--dry-run"])
    else:  # only lengths it refuses, so nothing is rendered; the path is checked first
        out = data.draw(output_paths(world, []))
        check([*argv, "--minutes", data.draw(st.sampled_from(HOSTILE_NUMBERS)), "--out", out])
        shutil.rmtree(world.root / "missing", ignore_errors=True)


@SETTINGS
@given(data=st.data())
def test_index_info_and_cache(world, data):
    video = data.draw(st.sampled_from([str(world.video), str(world.plain_file), str(world.folder)]))
    index = {"--fps": small_numbers, "--cache-dir": cache_roots(world)}
    check(["index", video, "--encoder", TEST_ENCODER, *options(data.draw, index)])
    check(["info", video, *options(data.draw, {"--json": None})])
    cache = {
        "--cache-dir": cache_roots(world),
        "--older-than": numbers,
        "--kind": st.sampled_from(["index", "agent", "llm", "nope"]),
        "--missing-videos": None,
        "--json": None,
    }
    command = data.draw(st.sampled_from([["cache", "info"], ["cache", "clean", "--dry-run"]]))
    table = (
        cache if command[1] == "clean" else {"--cache-dir": cache["--cache-dir"], "--json": None}
    )
    check([*command, *options(data.draw, table)])


@SETTINGS
@given(data=st.data())
def test_eval_analysis_options(world, data):
    files = [str(world.bench), str(world.preds), str(world.plain_file), str(world.folder)]
    table = {
        "--top-k": st.one_of(numbers, st.sampled_from(["1,5", "5,1", "0", "1,,2"])),
        "--iou": st.one_of(numbers, st.sampled_from(["0.3,0.5", "1.5", "0.5,nan"])),
        "--taxonomy": None,
        "--fail-iou": numbers,
        "--offset-min": numbers,
        "--sample": numbers,
        "--seed": numbers,
        "--windows": st.sampled_from(files),
        "--protocol": st.sampled_from(["single", "comet", "qvhighlights"]),
        "--json": None,
    }
    check(["eval", str(world.bench), str(world.preds), *options(data.draw, table)])


@settings(SETTINGS, max_examples=12)
@given(data=st.data())
def test_stats_and_report(world, data):
    inputs = [str(world.bench), str(world.preds), str(world.video), str(world.folder)]
    bench = data.draw(st.sampled_from(inputs))
    stats = {"--json": None, "--format": st.sampled_from(["canonical", "charades", "x"])}
    check(["stats", bench, *options(data.draw, stats)])
    report = {
        "--theta": numbers,
        "--protocol": st.sampled_from(["comet", "single", "x"]),
        "--name": odd_text,
        "--title": odd_text,
    }
    out = data.draw(output_paths(world, [str(world.bench), str(world.preds)]))
    check(["report", bench, str(world.preds), "--out", out, *options(data.draw, report)])


@settings(SETTINGS, max_examples=12)
@given(data=st.data())
def test_sweep(world, data):
    table = {
        "--windows": st.one_of(
            st.sampled_from(["15s,full", "0s", "1e308s", "nan", "-5m"]), odd_text
        ),
        "--fps": small_numbers,
        "--param": numbers.map(lambda value: f"smooth_s={value}"),
        "--cache-dir": cache_roots(world),
        "--overwrite": None,
    }
    out = data.draw(output_paths(world, [str(world.bench)]))
    argv = ["sweep", str(world.bench), "-m", data.draw(st.sampled_from(["retrieval", "agent"]))]
    check([*argv, "--encoder", TEST_ENCODER, "--out", out, *options(data.draw, table)])


@SETTINGS
@given(data=st.data())
def test_build(world, data):
    sampler = {"--count": numbers, "--seed": numbers, "--mu": numbers, "--alpha": numbers}
    check(["build", "attributes", *options(data.draw, sampler)])
    out = data.draw(output_paths(world, [str(world.bench), str(world.preds)]))
    agree = {
        "--candidates": st.sampled_from([str(world.bench), str(world.preds), out]),
        "--overwrite": None,
    }
    check(["build", "agree", str(world.bench), str(world.preds), "--out", out,
           *options(data.draw, agree)])  # fmt: skip
    video = data.draw(st.sampled_from([str(world.video), str(world.plain_file), str(world.folder)]))
    shared = {  # the model options: --dry-run sends nothing, so any value is only checked
        "--llm": st.sampled_from(["openai", "transformers", "nope"]),
        "--base-url": st.sampled_from(["http://127.0.0.1:9/v1", "x", ""]),
        "--model": odd_text,
        "--api-key": odd_text,
        "--cache-dir": cache_roots(world),
        "--concurrency": numbers,
        "--domain": odd_text,
        "--overwrite": None,
        "--retry-malformed": None,
    }
    comet = {
        **shared,
        "--combinations": numbers,
        "--seed": numbers,
        "--frames": numbers,
        "--short-side": numbers,
        "--mu": numbers,
        "--alpha": numbers,
    }
    ewb = {
        **shared,
        "--chunk-s": numbers,
        "--top-k": numbers,
        "--half-width-s": numbers,
        "--nms-s": numbers,
        "--caption-words": numbers,
        "--caption-batch": numbers,
        "--cinematic-words": odd_text,
    }
    out = data.draw(output_paths(world, [str(world.video)]))
    check(["build", "comet", video, "--out", out, "--dry-run", *options(data.draw, comet)])
    ewb_argv = ["build", "ewb", video, "--out", out, "--dry-run", "--captioner", TEST_ENCODER]
    check([*ewb_argv, "--encoder", TEST_ENCODER, *options(data.draw, ewb)])


@SETTINGS
@given(data=st.data())
def test_annotate_files(world, data):
    db = data.draw(output_paths(world, [str(world.bench)]))
    out = data.draw(st.one_of(output_paths(world, [str(world.bench), db]), st.just("-")))
    export = {
        "--only": st.sampled_from(["all", "annotated", "verified", "x"]),
        "--history": None,
        "--videos": st.sampled_from([str(world.root), str(world.plain_file), "/nope"]),
    }
    check(["annotate", "export", "--db", db, "--out", out, *options(data.draw, export)])
    check(["annotate", "import", "--db", db, data.draw(st.sampled_from([str(world.bench), out]))])


@settings(SETTINGS, max_examples=20)
@given(data=st.data())
def test_annotate_serve(world, data, monkeypatch):
    """Every option of `annotate serve`; the socket and the server are stand-ins, so a
    start that passes every check returns at once (nothing listens, not even on loopback)."""
    from longground.annotate import server

    monkeypatch.setattr(server, "bind", lambda host, port: _NoSocket())
    monkeypatch.setattr(server, "run", lambda app, sock: None)
    bench = data.draw(st.sampled_from([str(world.bench), str(world.preds), str(world.video)]))
    table = {
        "--db": output_paths(world, [str(world.bench)]),
        "--host": st.sampled_from(["127.0.0.1", "localhost", "::1", "0.0.0.0", "x..", ""]),
        "--port": numbers,
        "--annotator": odd_text,
        "--pred": st.sampled_from([str(world.preds), str(world.bench), str(world.plain_file)]),
    }
    videos = data.draw(st.sampled_from([str(world.root), str(world.folder), str(world.bench)]))
    check(["annotate", "serve", bench, "--videos", videos, *options(data.draw, table)])


class _NoSocket:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def getsockname(self):
        return ("127.0.0.1", 4321)
