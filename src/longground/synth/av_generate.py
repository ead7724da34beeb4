"""Writing the audio-visual benchmark (`longground synth --av`): videos with a soundtrack,
and the JSONL with `speech`, `text` and `person` queries (see `synth.audiovisual`), each in
one or more wordings (`synth.wordings`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..formats.lines import write_jsonl
from ..samples import Sample
from .audiovisual import ATTRIBUTES, av_queries, plan_av
from .av_render import write_av_video
from .wordings import check_wordings, records, reworded

DEFAULT_MINUTES = (15.0,)


def generate_av(out: Path, videos: int, minutes: list[float] | None, seed: int,
                jsonl_name: str, video_dir: str, wordings: int = 1) -> list[Sample]:  # fmt: skip
    """Render `videos` videos (lengths from `minutes`, used in turn) under `out/video_dir`
    and write their queries to `out/jsonl_name`, each in `wordings` wordings (query `j` of
    video `i` reworded from `default_rng([seed, i, 22, j])`); returns every wording."""
    check_wordings(wordings)
    lengths = list(minutes or DEFAULT_MINUTES)
    (out / video_dir).mkdir(parents=True, exist_ok=True)
    groups: list[list[Sample]] = []
    for i in range(videos):
        plan = plan_av(seed, i, lengths[i % len(lengths)])
        name = f"{video_dir}/av_{i:03d}.mp4"
        spans = write_av_video(plan, out / name)
        for j, (sample, meaning) in enumerate(av_queries(plan, name, spans, f"av{i:03d}")):
            rng = np.random.default_rng([seed, i, 22, j])
            groups.append(reworded(sample, meaning, wordings, rng))
    write_jsonl(out / jsonl_name, records(groups, ATTRIBUTES))
    return [sample for group in groups for sample in group]
