"""The real-footage benchmark (`longground synth --montage MANIFEST`): long montages of real
clips, with recorded speech laid over the silent ones, and exact truth for every query.

A manifest (`montage_manifest`) says what each clip shows and when and which recordings say
which words when. `montage_plan` draws each montage's order, pieces and speech overlays,
`montage_truth` and `montage_queries` compute the queries' truth from the plan alone, and
`montage_render` decodes, scales and encodes it. Written under the output folder: the MP4s and
a timeline of each in `videos/`, and `benchmark.jsonl` (the canonical format, rewritten after
each video), whose lines carry a `condition` naming what each query asks.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ..errors import UserError
from ..formats.canonical import sample_record
from ..formats.lines import write_jsonl
from ..samples import Sample
from ..timecode import format_time
from .montage_manifest import Manifest, load_manifest
from .montage_plan import MontagePlan, plan_montage
from .montage_queries import ATTRIBUTES, MontageQuery, montage_queries
from .montage_render import write_montage

DEFAULT_SIZE = (640, 360)
DEFAULT_FPS = Fraction(10)
DEFAULT_MINUTES = (7.0,)
MAX_VIDEOS = 100


def plan_all(
    manifest: Manifest, videos: int, minutes: list[float], seed: int, fps: Fraction
) -> list[tuple[MontagePlan, list[MontageQuery]]]:
    """Every montage's plan and queries (nothing read or written)."""
    out = []
    for i in range(videos):
        plan = plan_montage(manifest, seed, i, minutes[i % len(minutes)], fps)
        out.append((plan, montage_queries(manifest, plan, seed, i)))
    return out


def check_options(videos: int, seed: int, fps: Fraction) -> None:
    """One line on the first unusable option, before anything is read."""
    if not 1 <= videos <= MAX_VIDEOS:
        raise UserError(f"--videos must be in [1, {MAX_VIDEOS}], got {videos}")
    if seed < 0:
        raise UserError(f"--seed must be >= 0, got {seed}")
    if not 1 <= fps <= 60:
        raise UserError(f"--fps {float(fps):g} is out of range: use 1 to 60")


def generate_montages(
    manifest_path: Path,
    out: Path | None,
    videos: int,
    minutes: list[float] | None,
    seed: int,
    size: tuple[int, int] = DEFAULT_SIZE,
    fps: Fraction = DEFAULT_FPS,
    jsonl_name: str = "benchmark.jsonl",
    video_dir: str = "videos",
    progress=None,
    dry_run: bool = False,
) -> list[Sample]:
    """Load the manifest and plan every montage (so a bad manifest or length stops the run
    before anything is written), then render them one by one into `out`.

    Args:
        progress: called with each finished video's path, or None.
        dry_run: plan only; write nothing (`out` may be None).

    Returns:
        The samples, their `video` relative to `out`.
    """
    check_options(videos, seed, fps)
    manifest = load_manifest(manifest_path)
    planned = plan_all(manifest, videos, list(minutes or DEFAULT_MINUTES), seed, fps)
    samples: list[Sample] = []
    rows: list[dict] = []
    for i, (plan, queries) in enumerate(planned):
        name = f"{video_dir}/montage_{i:03d}.mp4"
        if not dry_run:
            (out / video_dir).mkdir(parents=True, exist_ok=True)
            write_montage(manifest, plan, out / name, *size)
            (out / name).with_suffix(".timeline.tsv").write_text(timeline(manifest, plan))
        for j, q in enumerate(queries):
            sample = Sample(
                f"montage_{i:03d}_q{j:03d}",
                name,
                plan.duration_s,
                q.query,
                q.gt,
                q.attributes,
                manifest.name,
            )
            samples.append(sample)
            rows.append(sample_record(sample, {"condition": q.condition}, ATTRIBUTES))
        if not dry_run:
            write_jsonl(out / jsonl_name, rows)
            if progress is not None:
                progress(out / name)
    return samples


def timeline(manifest: Manifest, plan: MontagePlan) -> str:
    """A tab-separated list of what plays when, for people checking a montage.

    Columns: start, end (`HH:MM:SS.s`), what (`clip` or `speech`), source, from (its own
    time), words.
    """
    rows = [(p.at_s, plan.end_s(p), "clip", p.clip, plan.window(p)[0], "") for p in plan.placements]
    recordings = {r.id: r for r in manifest.recordings}
    for o in plan.overlays:
        rec = recordings[o.recording]
        words = " / ".join(u.text for u in rec.says)
        rows.append((o.at_s, o.at_s + rec.length_s, "speech", rec.id, rec.trim[0], words))
    lines = ["start\tend\twhat\tsource\tfrom\twords"]
    for start, end, what, source, own, words in sorted(rows, key=lambda r: (r[0], r[2])):
        own_s = "" if own is None else f"{own:.2f}"
        lines.append(
            f"{format_time(start)}\t{format_time(end)}\t{what}\t{source}\t{own_s}\t{words}"
        )
    return "\n".join(lines) + "\n"
