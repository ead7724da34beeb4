"""Hostile input, table-driven: each case is an argv, the fragment its one-line error must hold,
exit code 2, no traceback, and every user file left exactly as it was (bytes and mode).

Categories: output paths (a folder, a file where a folder is needed, a missing folder, /proc,
an unwritable folder, one of the command's inputs), cache roots (a file, a device,
/proc), numbers at their limits (inf, nan, 1e308, negative, 0, huge), a folder that already
holds a benchmark. Then what the errors promise besides: no work before the error, `--fps`
capped with a warning, bounds that answer at once, files written with the umask, --version.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

import longground
from longground.atomic import atomic_open
from tests.support.hostile import FAKE, call, make_world, register_test_encoder

OUTPUT_PATHS = [
    # run --out
    (["run", "{bench}", "-m", FAKE, "--out", "{folder}"], "is a folder"),
    (["run", "{bench}", "-m", FAKE, "--out", "{plain_file}/p.jsonl"], "is not a folder"),
    (["run", "{bench}", "-m", FAKE, "--out", "{root}/missing/p.jsonl"], "does not exist"),
    (["run", "{bench}", "-m", FAKE, "--out", "/proc/p.jsonl"], "virtual file system"),
    (["run", "{bench}", "-m", FAKE, "--out", "/dev/null"], "not a regular file"),
    (["run", "{bench}", "-m", FAKE, "--out", "{bench}"], "would overwrite the input"),
    (
        ["run", "{bench}", "-m", FAKE, "--out", "{bench}", "--overwrite"],
        "would overwrite the input",
    ),
    (["run", "{bench}", "-m", FAKE, "--out", "{root}/./bench.jsonl", "--overwrite"], "the input"),
    # find --trace
    (["find", "{video}", "a cat", "--trace", "{folder}"], "is a folder"),
    (["find", "{video}", "a cat", "--trace", "{plain_file}/t.json"], "is not a folder"),
    (["find", "{video}", "a cat", "--trace", "{root}/missing/t.json"], "does not exist"),
    (["find", "{video}", "a cat", "--trace", "/proc/t.json"], "virtual file system"),
    (["find", "{video}", "a cat", "--trace", "{video}"], "would overwrite the input"),
    # eval --per-query
    (["eval", "{bench}", "{preds}", "--per-query", "{folder}"], "is a folder"),
    (["eval", "{bench}", "{preds}", "--per-query", "{plain_file}/q.jsonl"], "is not a folder"),
    (["eval", "{bench}", "{preds}", "--per-query", "{root}/missing/q.jsonl"], "does not exist"),
    (["eval", "{bench}", "{preds}", "--per-query", "/proc/q.jsonl"], "virtual file system"),
    (["eval", "{bench}", "{preds}", "--per-query", "{bench}"], "would overwrite the input"),
    (["eval", "{bench}", "{preds}", "--per-query", "{preds}"], "would overwrite the input"),
    (
        ["eval", "{bench}", "{preds}", "--durations", "{durations}", "--per-query", "{durations}"],
        "would overwrite the input",
    ),
    # synth --out
    (["synth", "--tiny", "--minutes", "0.5", "--out", "{plain_file}"], "is a file, not a folder"),
    (["synth", "--tiny", "--minutes", "0.5", "--out", "{plain_file}/b"], "is not a folder"),
    (["synth", "--tiny", "--minutes", "0.5", "--out", "/proc/bench"], "virtual file system"),
]

CACHE_ROOTS = [
    (command, root, fragment)
    for command in (
        ["find", "{video}", "a cat", "-m", FAKE],
        ["run", "{bench}", "-m", FAKE, "--out", "{root}/p.jsonl"],
        ["index", "{video}"],
        ["cache", "info"],
        ["cache", "clean", "--yes"],
    )
    for root, fragment in (("{plain_file}", "is not a folder"), ("/dev/null", "is not a folder"))
] + [
    (["find", "{video}", "a cat", "-m", FAKE], "/proc/cache", "virtual file system"),
    (["index", "{video}"], "/proc/cache", "virtual file system"),
    (["run", "{bench}", "-m", FAKE, "--out", "{root}/p.jsonl"], "/proc/cache", "virtual file"),
]

NUMBERS = [
    (["find", "{video}", "a cat", "--fps", "inf"], "not a finite number"),
    (["find", "{video}", "a cat", "--fps", "nan"], "--fps"),
    (["find", "{video}", "a cat", "--fps", "-1"], "--fps"),
    (["find", "{video}", "a cat", "--fps", "0"], "--fps"),
    (["find", "{video}", "a cat", "--max", "0"], "--max"),
    (["find", "{video}", "a cat", "--max", "-3"], "--max"),
    (["index", "{video}", "--fps", "inf"], "not a finite number"),
    (["index", "{video}", "--fps", "-inf"], "--fps"),
    (["run", "{bench}", "--out", "{root}/p.jsonl", "--fps", "nan"], "--fps"),
    (["run", "{bench}", "--out", "{root}/p.jsonl", "--workers", "0"], "--workers"),
    (["run", "{bench}", "--out", "{root}/p.jsonl", "--workers", "-1"], "--workers"),
    (["run", "{bench}", "--out", "{root}/p.jsonl", "--gpus-per-worker", "inf"], "finite"),
    (["run", "{bench}", "--out", "{root}/p.jsonl", "--gpus-per-worker", "-1"], "--gpus"),
    (["eval", "{bench}", "{preds}", "--theta", "nan"], "theta"),
    (["eval", "{bench}", "{preds}", "--theta", "inf"], "theta"),
    (["eval", "{bench}", "{preds}", "--theta", "1e308"], "theta"),
    (["eval", "{bench}", "{preds}", "--theta", "-0.5"], "theta"),
    (["eval", "{bench}", "{preds}", "--bootstrap", "-1"], "bootstrap"),
    (["eval", "{bench}", "{preds}", "--bootstrap", "1000000000"], "bootstrap"),
    (["eval", "{bench}", "{preds}", "--bootstrap", "10", "--seed", "-1"], "seed"),
    (["eval", "{bench}", "{preds}", "--bootstrap", "1e308"], "--bootstrap"),
    (["synth", "--dry-run", "--minutes", "inf"], "out of range"),
    (["synth", "--dry-run", "--minutes", "nan"], "out of range"),
    (["synth", "--dry-run", "--minutes", "1e308"], "out of range"),
    (["synth", "--dry-run", "--minutes", "1e9"], "out of range"),
    (["synth", "--dry-run", "--minutes", "-5"], "out of range"),
    (["synth", "--dry-run", "--minutes", "0"], "out of range"),
    (["synth", "--dry-run", "--videos", "0"], "--videos"),
    (["synth", "--dry-run", "--videos", "-2"], "--videos"),
    (["synth", "--dry-run", "--videos", "1000000000"], "--videos"),
    (["synth", "--dry-run", "--tiny", "--seed", "-1"], "--seed"),
    (["synth", "--tiny", "--minutes", "0.5", "--seed", "-1", "--out", "{root}/b"], "--seed"),
    (
        ["find", "{video}", "a cat", "-m", "retrieval", "-p", "smooth_s=inf"],
        "smooth_s='inf' is not a finite number",
    ),
    (
        ["find", "{video}", "a cat", "-m", "retrieval", "-p", "threshold=nan"],
        "is not a finite number",
    ),
    (
        ["find", "{video}", "a cat", "-m", "retrieval", "-p", "k=-1", "-p", "mode=topk"],
        "k must be at least 1",
    ),
    (
        ["find", "{video}", "a cat", "-m", "retrieval", "-p", "max_len_s=-5", "--single"],
        "max_len_s must be above",
    ),
    (["cache", "clean", "--older-than", "nan", "--dry-run"], "--older-than"),
    (["cache", "clean", "--older-than", "-1", "--dry-run"], "--older-than"),
]


def _id(kind: str, argv: list[str]) -> str:
    return f"{kind}:{' '.join(argv[:1] + argv[-2:])}"


CASES = (
    [pytest.param(argv, frag, id=_id("out", argv)) for argv, frag in OUTPUT_PATHS]
    + [
        pytest.param([*argv, "--cache-dir", root], frag, id=f"cache:{argv[0]}:{root}")
        for argv, root, frag in CACHE_ROOTS
    ]
    + [pytest.param(argv, frag, id=_id("num", argv)) for argv, frag in NUMBERS]
)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return make_world(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(autouse=True)
def isolated_cache(world, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(world.cache))
    register_test_encoder(monkeypatch)


def assert_one_line_error(code: int, err: str, fragment: str) -> None:
    assert "Traceback" not in err, err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("longground: error: "), err
    assert fragment in lines[0], err


@pytest.mark.parametrize(("argv", "fragment"), CASES)
def test_hostile_input_is_one_line_exit_2_and_touches_nothing(world, argv, fragment):
    before = world.snapshot()
    code, out, err = call(world.fill(argv))
    assert_one_line_error(code, err, fragment)
    assert world.snapshot() == before
    assert not (world.root / "missing").exists() and not (world.root / "b").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["find", "{video}", "a cat", "-m", FAKE],
        ["index", "{video}", "--encoder", "lg-test-mean"],
        ["cache", "info"],
    ],
)
@pytest.mark.parametrize("root", ["{plain_file}", "/dev/null"])
def test_a_bad_cache_root_from_the_environment_is_named(world, monkeypatch, argv, root):
    monkeypatch.setenv("LONGGROUND_CACHE", world.fill([root])[0])
    code, _, err = call(world.fill(argv))
    assert_one_line_error(code, err, "$LONGGROUND_CACHE")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
@pytest.mark.parametrize(
    "argv",
    [
        ["run", "{bench}", "-m", FAKE, "--out", "{folder}/ro/p.jsonl"],
        ["eval", "{bench}", "{preds}", "--per-query", "{folder}/ro/q.jsonl"],
        ["find", "{video}", "a cat", "-m", FAKE, "--cache-dir", "{folder}/ro/cache"],
        ["synth", "--tiny", "--minutes", "0.5", "--out", "{folder}/ro/bench"],
    ],
)
def test_an_unwritable_folder_is_refused(world, argv):
    read_only = world.folder / "ro"
    read_only.mkdir(exist_ok=True)
    read_only.chmod(0o500)
    try:
        code, _, err = call(world.fill(argv))
    finally:
        read_only.chmod(0o700)
    assert_one_line_error(code, err, "cannot write in")


def test_outputs_that_are_links_to_an_input_are_refused(world, tmp_path):
    symlink, hardlink = tmp_path / "sym.jsonl", tmp_path / "hard.jsonl"
    symlink.symlink_to(world.bench)
    os.link(world.preds, hardlink)
    before = world.snapshot()
    for argv in (
        ["run", "{bench}", "-m", FAKE, "--out", str(symlink), "--overwrite"],
        ["eval", "{bench}", "{preds}", "--per-query", str(hardlink)],
    ):
        code, _, err = call(world.fill(argv))
        assert_one_line_error(code, err, "would overwrite the input")
    assert world.snapshot() == before


def test_the_run_sidecar_may_not_be_an_input_either(world, tmp_path):
    out = tmp_path / "p.jsonl"
    (tmp_path / "p.jsonl.meta.json").symlink_to(world.bench)
    code, _, err = call(world.fill(["run", "{bench}", "-m", FAKE, "--out", str(out)]))
    assert_one_line_error(code, err, "would overwrite the input")


def test_a_bad_trace_path_fails_before_any_indexing(world, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("LONGGROUND_CACHE", str(cache))
    code, _, err = call(world.fill(["find", "{video}", "a cat", "--trace", "{folder}"]))
    assert_one_line_error(code, err, "is a folder")
    assert not cache.exists()  # no index was built, no encoder was asked for


def test_synth_refuses_a_folder_that_holds_a_benchmark_unless_overwrite(world, tmp_path):
    out = tmp_path / "bench"
    out.mkdir()
    (out / "benchmark.jsonl").write_text("my benchmark\n")
    argv = ["synth", "--tiny", "--minutes", "0.5", "--videos", "1", "--out", str(out)]
    code, _, err = call(argv)
    assert_one_line_error(code, err, "already holds a benchmark")
    assert (out / "benchmark.jsonl").read_text() == "my benchmark\n"
    assert not (out / "videos").exists()
    code, out_text, err = call([*argv, "--overwrite"])
    assert code == 0, err
    assert (out / "benchmark.jsonl").read_text().startswith("{")


def test_fps_above_the_videos_rate_is_capped_with_one_warning_line(world, tmp_path):
    argv = ["index", "{video}", "--fps", "1e308", "--encoder", "lg-test-mean", "--channels", "none"]
    code, out, err = call(world.fill([*argv, "--cache-dir", str(tmp_path)]))
    assert code == 0, err
    assert err.strip().splitlines() == [
        f"longground: warning: {world.video}: 1e+308 samples/s is above the video's frame rate; "
        "sampling at 10"
    ]
    assert "20 frames at 1e+308 fps" in out  # 2 s at the video's own 10 fps


@pytest.mark.parametrize(
    "argv",
    [
        ["synth", "--dry-run", "--minutes", "1e9"],
        ["synth", "--dry-run", "--minutes", "5", "--videos", "100000000"],
        ["eval", "{bench}", "{preds}", "--bootstrap", "99999999999999"],
    ],
)
def test_huge_requests_answer_at_once(world, argv):
    started = time.perf_counter()
    code, _, err = call(world.fill(argv))
    assert code == 2 and "Traceback" not in err
    assert time.perf_counter() - started < 5.0


def test_files_are_written_with_the_umask_not_0600(world, tmp_path):
    old = os.umask(0o022)
    try:
        per_query = tmp_path / "q.jsonl"
        code, _, err = call(
            world.fill(["eval", "{bench}", "{preds}", "--per-query", str(per_query)])
        )
        assert code == 0, err
        assert stat.S_IMODE(per_query.stat().st_mode) == 0o644
        os.umask(0o027)
        with atomic_open(tmp_path / "new.txt") as handle:
            handle.write("x")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "shared.json"
    path.write_text("old")
    path.chmod(0o664)
    with atomic_open(path) as handle:
        handle.write("new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o664


def test_version(capsys):
    code, out, err = call(["--version"])
    assert code == 0 and out == f"longground {longground.__version__}\n" and not err


def test_usage_errors_are_one_line_too(world):
    for argv in (["find"], ["bogus-command"], ["eval", "{bench}"], ["find", "--nope", "a", "b"]):
        code, _, err = call(world.fill(argv))
        assert code == 2 and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and "--help" in err, err


def test_a_good_call_still_works(world, tmp_path):
    out = tmp_path / "p.jsonl"
    code, _, err = call(world.fill(["run", "{bench}", "-m", FAKE, "--out", str(out)]))
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 2
    assert Path(str(out) + ".meta.json").exists()
