"""Writing the audio-visual benchmark (`longground synth --av`): videos with a soundtrack,
and the JSONL with `speech`, `text` and `person` queries (see `synth.audiovisual`)."""

from __future__ import annotations

from pathlib import Path

from ..formats.canonical import sample_record
from ..formats.lines import write_jsonl
from ..samples import Sample
from .audiovisual import ATTRIBUTES, plan_av
from .av_render import write_av_video

DEFAULT_MINUTES = (15.0,)


def generate_av(out: Path, videos: int, minutes: list[float] | None, seed: int,
                jsonl_name: str, video_dir: str) -> list[Sample]:  # fmt: skip
    """Render `videos` videos (lengths from `minutes`, used in turn) under `out/video_dir`
    and write their queries to `out/jsonl_name`; returns the samples."""
    lengths = list(minutes or DEFAULT_MINUTES)
    (out / video_dir).mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    rows = []
    for i in range(videos):
        plan = plan_av(seed, i, lengths[i % len(lengths)])
        name = f"{video_dir}/av_{i:03d}.mp4"
        spans = write_av_video(plan, out / name)
        for sample in _samples(plan, name, spans, i):
            samples.append(sample)
            rows.append(sample_record(sample, attribute_order=ATTRIBUTES))
    write_jsonl(out / jsonl_name, rows)
    return samples


def _samples(plan, name: str, spans, index: int) -> list[Sample]:
    from .audiovisual import av_samples

    return av_samples(plan, name, spans, f"av{index:03d}")
