"""Running what a table needs: each method setting answers the benchmark once, resumably.

Answers go to `DIR/runs/<method>-<hash>.jsonl`, named by the method's full settings and the
benchmark, so tables that need the same run (CoMET Tables 2 and 6 both run the agent) share
it, and a second `reproduce` only answers what is missing (queries that failed with an error,
such as an unreachable server, are tried again; parse failures are answers and stay). Each
line is a canonical prediction plus the parts of the method's trace a table reads
(`"trace"`). The Video-LLM's replies are also kept in the response cache, so even a run
started afresh sends no request twice.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import UserError
from ..methods import MethodConfig, build_method
from ..run.execute import error_record, grounding_record
from ..run.journal import write_atomic
from ..run.scheduler import resolve_video
from ..samples import Sample
from ..sweep.run import answered_qids

ConfigFor = Callable[[str, dict[str, str], bool], MethodConfig]


@dataclass
class Context:
    """What every table builder gets.

    Attributes:
        samples: the benchmark.
        bench: its file; `bench_format` the format it was read as.
        out: the output folder.
        config_for: `(method, params, single) -> MethodConfig` (server, model, encoder,
            cache and the user's `-p` already applied).
        roots: folders holding the videos.
        model: the Video-LLM's name for row labels; `encoder_label` the retrieval's.
        published: show the paper's numbers (the benchmark is the paper's).
        frames: frame counts for EWB Table 5 (empty: the paper's).
        reference: the same settings on a second benchmark (EWB Table 1's other column).
    """

    samples: list[Sample]
    bench: Path
    bench_format: str
    out: Path
    config_for: ConfigFor
    roots: Sequence[Path] = ()
    model: str = "Video-LLM"
    encoder_label: str = "retrieval"
    published: bool = False
    frames: list[int] = field(default_factory=list)
    reference: Context | None = None

    def answers(
        self, method: str, params: dict[str, str], single: bool, keep: Sequence[str] = ()
    ) -> Path:
        """Answer every query with `method` (not yet answered); returns the answer file.

        Args:
            keep: trace keys copied into each line's `"trace"`.
        """
        config = self.config_for(method, params, single)
        ident = {**config.fingerprint(method), "benchmark": str(self.bench.resolve())}
        digest = hashlib.sha1(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()
        path = self.out / "runs" / f"{method}-{digest[:12]}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = path.with_suffix(".meta.json")
        if not meta.exists():
            meta.write_text(json.dumps(ident, indent=1, default=str), encoding="utf-8")
        done = answered_qids(_drop_errors(path))
        todo = sorted((s for s in self.samples if str(s.qid) not in done), key=lambda s: s.video)
        if todo:
            grounder = build_method(method, config)
            with open(path, "a", encoding="utf-8") as handle:
                for sample in todo:
                    record = _answer(grounder, method, sample, self.roots, keep)
                    handle.write(json.dumps(record) + "\n")
                    handle.flush()
        return path

    def score(self, path: Path, protocol: str) -> dict[str, Any]:
        """The metrics of an answer file under `protocol` ("comet" or "single"); an
        undefined Pearson correlation comes with "pearson_reason"."""
        from ..eval import evaluate
        from ..formats import load_predictions

        by_qid = {s.qid: s for s in self.samples}
        predictions = load_predictions(path, samples=by_qid)
        result = evaluate(self.samples, predictions, protocol=protocol)
        if not result.metrics.get("pearson_undefined"):
            return result.metrics
        reason = constant_count(result.queries["n_pred"], result.queries["n_gt"])
        return {**result.metrics, "pearson_reason": reason}


def constant_count(n_pred: np.ndarray, n_gt: np.ndarray) -> str:
    """Why Pearson's r of the per-query counts is undefined: the side that does not vary.

    >>> constant_count(np.array([0, 0, 0]), np.array([1, 2, 0]))
    'every query was answered with 0 intervals'
    >>> constant_count(np.array([1, 3]), np.array([1, 1]))
    'every query has 1 GT interval'
    """
    parts = []
    if len(n_pred) and np.all(n_pred == n_pred[0]):
        parts.append(f"every query was answered with {_intervals(int(n_pred[0]))}")
    if len(n_gt) and np.all(n_gt == n_gt[0]):
        parts.append(f"every query has {_intervals(int(n_gt[0]), 'GT ')}")
    return " and ".join(parts) or "fewer than two queries"


def _intervals(n: int, kind: str = "") -> str:
    return f"{n} {kind}interval{'s' if n != 1 else ''}"


def _drop_errors(path: Path) -> Path:
    """Remove the lines of queries that could not be answered (server down, video missing),
    so that a second run tries them again; answers and parse failures stay."""
    if not path.exists():
        return path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not _is_error(line)]
    if len(kept) != len(lines):
        write_atomic(path, "".join(kept))
    return path


def _is_error(line: str) -> bool:
    try:
        return "error" in json.loads(line)
    except ValueError:
        return False  # a torn last line: answered_qids cuts it


def _answer(grounder, name: str, sample: Sample, roots, keep: Sequence[str]) -> dict:
    video = resolve_video(sample.video, roots)
    began = time.perf_counter()
    if video is None:
        return error_record(sample.qid, f"video not found: {sample.video}", name, 0.0)
    try:
        grounding = grounder.ground(video, sample.query)
    except UserError as exc:
        return error_record(sample.qid, str(exc), name, time.perf_counter() - began)
    record = grounding_record(sample.qid, grounding, name, time.perf_counter() - began)
    if keep:
        record["trace"] = {k: grounding.trace.get(k) for k in keep}
    return record


def read_traces(path: Path) -> list[dict]:
    """The `"trace"` part of every line of an answer file (lines without one: `{}`)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line).get("trace") or {} for line in lines if line.strip()]
