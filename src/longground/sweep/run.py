"""Running the sweep: every method on every query's crop at every window, resumably.

Answers go to `DIR/<method>/<window>.jsonl`, one canonical prediction line per positive query
(intervals in video time, plus `"crop_s"`), appended and flushed as each query finishes. A
second run with the same settings (`DIR/sweep.json`) skips the queries already answered; a
torn last line (from a kill) is dropped and redone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..atomic import atomic_open
from ..errors import UserError
from ..run.execute import error_record, grounding_record
from ..run.scheduler import resolve_video
from ..samples import Sample
from .windows import Window

SETTINGS = "sweep.json"


def prepare_out(out: Path, settings: dict, overwrite: bool) -> None:
    """Create `out` and record `settings`; refuse a folder holding a sweep with other settings,
    or holding anything but a sweep.

    With `overwrite`, only the answer files a sweep writes (`<method>/<window>.jsonl`, for the
    methods and windows of the old settings and the new) are removed: never other files.

    Raises:
        UserError: `out` cannot be written, holds another sweep or other files (and not
            `overwrite`).
    """
    folder, path = Path(out), Path(out) / SETTINGS
    try:
        if not overwrite and not path.exists() and folder.is_dir() and any(folder.iterdir()):
            raise UserError(
                f"{out} holds files that are not a sweep; choose a new or empty folder, or "
                "use --overwrite"
            )
        folder.mkdir(parents=True, exist_ok=True)
        old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        if old is not None and not overwrite:
            if old != settings:
                raise UserError(
                    f"{out} holds a sweep with other settings; use --overwrite or another --out"
                )
            return
        if overwrite:
            for answers in _answer_files(folder, [settings, old if isinstance(old, dict) else {}]):
                answers.unlink(missing_ok=True)
        with atomic_open(path) as handle:
            handle.write(json.dumps(settings, indent=1))
    except OSError as exc:
        raise UserError(f"{out}: cannot write the sweep there ({exc.strerror})") from None
    except ValueError:
        raise UserError(f"{path}: not a sweep settings file; use --overwrite") from None


def variant_label(method: str, n_frames: int | None) -> str:
    """The name (and answer folder) of a method at one frame count of a `--frames` sweep.

    >>> variant_label("monolithic", 64), variant_label("retrieval", None)
    ('monolithic@64', 'retrieval')
    """
    return method if n_frames is None else f"{method}@{int(n_frames)}"


def _answer_files(folder: Path, settings: list[dict]) -> set[Path]:
    """The `<method>/<window>.jsonl` files that sweeps with these settings write."""
    methods = {
        variant_label(str(m), n)
        for s in settings
        for m in s.get("methods", [])
        for n in (s.get("frames") or [None])
    }
    windows = {str(w) for s in settings for w in s.get("windows", [])}
    return {folder / method / f"{window}.jsonl" for method in methods for window in windows}


def answered_qids(path: Path) -> set[str]:
    """The qids already in `path`; a torn (unparseable) last line is cut off the file."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    lines = data.split(b"\n")
    done, good_bytes = set(), 0
    for i, line in enumerate(lines):
        if not line.strip():
            good_bytes += len(line) + 1
            continue
        try:
            done.add(str(json.loads(line)["qid"]))
        except (ValueError, KeyError, TypeError):
            if i < len(lines) - 1 and any(rest.strip() for rest in lines[i + 1 :]):
                raise UserError(f"{path}:{i + 1}: not a sweep answer; use --overwrite") from None
            break
        good_bytes += len(line) + 1
    if good_bytes < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(min(good_bytes, len(data)))
    return done


def answer_window(
    method, name: str, samples: Sequence[Sample], window: Window, path: Path, roots
) -> int:
    """Answer every positive sample not yet in `path` on its crop; returns how many ran."""
    done = answered_qids(path)
    # one video's queries together, so its index is loaded while it is warm
    todo = sorted(
        (s for s in samples if len(s.gt) and str(s.qid) not in done), key=lambda s: s.video
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        for sample in todo:
            out.write(json.dumps(_answer(method, name, sample, window, roots)) + "\n")
            out.flush()
    return len(todo)


def _answer(method, name: str, sample: Sample, window: Window, roots) -> dict:
    start_s, end_s = window.crop(sample.gt.spans, sample.duration_s)
    video = resolve_video(sample.video, roots)
    began = time.perf_counter()
    if video is None:
        record = error_record(sample.qid, f"video not found: {sample.video}", name, 0.0)
    else:
        try:
            grounding = method.ground_crop(video, sample.query, start_s, end_s)
            record = grounding_record(sample.qid, grounding, name, time.perf_counter() - began)
        except UserError as exc:
            record = error_record(sample.qid, str(exc), name, time.perf_counter() - began)
    record["crop_s"] = [start_s, end_s]
    return record


def run_sweep(
    samples: Sequence[Sample],
    methods: Mapping[str, object],
    windows: Sequence[Window],
    out: Path,
    roots: Sequence[Path] = (),
) -> dict[str, dict[str, Path]]:
    """Answer every (method, window, positive query); returns the answer files by method and
    window label."""
    files: dict[str, dict[str, Path]] = {}
    for name, method in methods.items():
        files[name] = {}
        for window in windows:
            path = Path(out) / name / f"{window.file_stem}.jsonl"
            answer_window(method, name, samples, window, path, roots)
            files[name][window.label] = path
    return files
