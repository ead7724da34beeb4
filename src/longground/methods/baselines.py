"""What `--preset paper` sets for a Video-LLM baseline: each paper's stated input mode, frame
count and parse rule, per model family.

The papers evaluate each model their own way: ExtremeWhenBench serves open models with vLLM
and lmms-eval (video input, the best frame count of its sweep), shows GPT 8 x 8 timestamped
grids and gives Gemini the raw video; CoMET-Bench samples 128 uniform frames for every model,
as images through the public APIs of hosted models. Both read answers as strict JSON. The
paper is ExtremeWhenBench for `--single` and for the hybrid (its retrieve-then-ground), and
CoMET-Bench otherwise. A row matches when its pattern is found in the model name (case
ignored); the last row of each paper matches any model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class PaperSetting:
    """One baseline as a paper ran it.

    Args:
        paper: "ewb" (ExtremeWhenBench) or "comet" (CoMET-Bench).
        family: the models it covers, for tables.
        pattern: a regular expression searched in the model name (case ignored).
        video_input: "frames", "video" or "grid" (`longground.llm.video_input`).
        n_frames: frames per request (the monolithic's `n_frames`).
        source: where the paper states it.
        grid_side: tiles per mosaic side (grid input).

    >>> PaperSetting("ewb", "GPT", "gpt", "grid", 64, "Table 1").grid_side
    8
    """

    paper: str
    family: str
    pattern: str
    video_input: str
    n_frames: int
    source: str
    grid_side: int = 8

    def matches(self, model: str) -> bool:
        return re.search(self.pattern, model, re.I) is not None


PAPER_PARSE = "strict"
PAPER_SETTINGS: tuple[PaperSetting, ...] = (
    PaperSetting("ewb", "Qwen-VL (Qwen3.5-9B)", "qwen", "video", 2048,
                 "EWB §3 setup (vLLM + lmms-eval); Table 5, best N = 2,048 on ours"),
    PaperSetting("ewb", "InternVL3.5-8B", "internvl", "video", 128,
                 "EWB §3 setup; Table 5 and App. C (saturates at N = 128, context overflow above)"),
    PaperSetting("ewb", "LLaVA-OneVision-7B", r"llava[-_ ]?(onevision|ov)", "video", 128,
                 "EWB §3 setup; Table 5 and App. C (saturates near N = 128)"),
    PaperSetting("ewb", "LLaVA-NeXT-Video-7B", r"llava[-_ ]?next", "video", 4,
                 "EWB Table 5 (best N = 4 on Charades-STA; left out of the sweep on ours)"),
    PaperSetting("ewb", "GPT (GPT-5.4)", r"\bgpt|^o\d", "grid", 64,
                 "EWB §3 setup (8x8 grid); Table 1 and App. C (64 frames)"),
    PaperSetting("ewb", "Gemini", "gemini", "video", 1024,
                 "EWB §3 setup (raw video); Table 1 and App. C (Gemini-2.5-flash, 1,024 frames)"),
    PaperSetting("ewb", "any other model", "", "video", 128,
                 "EWB §3 setup (open models as video through vLLM); App. C (N = 128)"),
    PaperSetting("comet", "hosted (GPT, Gemini)", r"\bgpt|^o\d|gemini|claude", "frames", 128,
                 "CoMET App. D (public APIs, 128 uniformly extracted frames)"),
    PaperSetting("comet", "any other model", "", "video", 128,
                 "CoMET §5 setup (uniform sampling at 128 frames); App. D (official checkpoints)"),
)  # fmt: skip


def paper_of(method: str, single: bool) -> str:
    """The paper whose baseline `method` reproduces.

    >>> paper_of("hybrid", False), paper_of("monolithic", True), paper_of("monolithic", False)
    ('ewb', 'ewb', 'comet')
    """
    return "ewb" if single or method == "hybrid" else "comet"


def paper_setting(method: str, single: bool, model: str) -> PaperSetting:
    """The row of `PAPER_SETTINGS` for this method, protocol and model.

    >>> paper_setting("monolithic", True, "gpt-5.4").video_input
    'grid'
    >>> paper_setting("monolithic", False, "Qwen/Qwen3-VL-8B-Instruct").n_frames
    128
    """
    paper = paper_of(method, single)
    return next(s for s in PAPER_SETTINGS if s.paper == paper and s.matches(model))
