"""Command-line options shared by the commands that run a method (`find`, `run`).

Declare them in a command's signature with these annotated types, then call `method_config`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from ..device import check_batch_size, parse_device
from ..errors import UserError
from ..methods import LLMConfig, MethodConfig
from .checks import at_least

# The defaults of the shared options live in `MethodConfig`; commands read them from here.
DEFAULTS = MethodConfig()

def known_encoder(spec: str | None) -> str | None:
    """An encoder option (`NAME` or `NAME:ARG`) whose NAME is registered, checked as it is
    read (its weights are loaded when a method first needs them).

    >>> known_encoder("open_clip:ViT-B-32/openai")
    'open_clip:ViT-B-32/openai'
    """
    if spec is None or spec == DEFAULTS.encoder:
        return spec
    import importlib

    from ..encoders.base import ENCODERS
    from ..encoders.load import IMPLEMENTATIONS, parse_spec

    for module in IMPLEMENTATIONS:
        importlib.import_module(module)
    name = parse_spec(spec)[0]
    if name not in ENCODERS:
        raise typer.BadParameter(f"unknown encoder {name!r}; known: {', '.join(sorted(ENCODERS))}")
    return spec


def existing_folders(paths: list[Path] | None) -> list[Path] | None:
    """Folders to read from (`--videos`): each must be an existing folder.

    >>> existing_folders([Path(".")])
    [PosixPath('.')]
    """
    for path in paths or []:
        if not path.is_dir():
            reason = "no such folder" if not path.exists() else "is not a folder"
            raise typer.BadParameter(f"{path}: {reason}")
    return paths


Method = Annotated[str, typer.Option("--method", "-m", help="Grounding method.")]
Encoder = Annotated[
    str,
    typer.Option(
        "--encoder",
        callback=known_encoder,
        help="Image-text encoder: label-bridge (offline default), open_clip:ARCH/WEIGHTS, "
        "hf:REPO_OR_PATH.",
    ),
]
Fps = Annotated[
    float,
    typer.Option(
        "--fps",
        callback=at_least(0.01),
        help="Frames per second to index (at most the video's own rate).",
    ),
]
Device = Annotated[
    str | None,
    typer.Option(
        "--device",
        help="Where encoders run: cpu, cuda, cuda:N or auto (a GPU when there is one; half "
        "precision there). Default: each encoder's own (the CPU).",
    ),
]
BatchSize = Annotated[
    int | None,
    typer.Option("--batch-size", help="Frames per encoder forward pass (default: the encoder's)."),
]
Single = Annotated[
    bool,
    typer.Option(
        "--single",
        help="At most one moment (the single-moment protocol); none when nothing reaches the "
        "method's threshold (retrieval: -p force=true answers anyway).",
    ),
]
Params = Annotated[
    list[str] | None,
    typer.Option("--param", "-p", help="Method parameter KEY=VALUE; repeat for more."),
]
Preset = Annotated[
    str | None,
    typer.Option(
        "--preset",
        help="Named parameter set applied before -p: longground (the defaults) or paper "
        "(the paper's settings, where the method has them).",
    ),
]
Appearance = Annotated[
    str | None,
    typer.Option(
        "--appearance",
        help="Agent: encoder of the appearance features events are segmented on (default: "
        "the --encoder's); hf:PATH may be a DINOv2 checkpoint. Same as -p appearance=.",
    ),
]
SegmentEncoder = Annotated[
    str | None,
    typer.Option(
        "--segment-encoder",
        help="Agent: encoder of the segment embeddings in the graph's edge weights (default: "
        "the --encoder's). Same as -p segment_encoder=.",
    ),
]
VideoInputMode = Annotated[
    str | None,
    typer.Option(
        "--video-input",
        help="How frames reach the Video-LLM: frames (one image each, after its time), video "
        "(one video part with the sampling fps, for Qwen-VL / InternVL servers) or grid "
        "(8x8 timestamped mosaics). Default: frames, or the paper's with --preset paper.",
    ),
]
ParseMode = Annotated[
    str | None,
    typer.Option(
        "--parse",
        help="How the model's answer is read: lenient (JSON, prose, clock times) or strict "
        "(JSON only, as the papers score). Default: lenient; strict with --preset paper.",
    ),
]
def _backend(value: str | None) -> str | None:
    """`--llm`: a chat backend's name (`llm.factory.CHAT_BACKENDS`), checked as it is read."""
    from ..llm.factory import CHAT_BACKENDS

    if value is not None and value not in CHAT_BACKENDS:
        raise typer.BadParameter(f"{value!r}: choose {' or '.join(sorted(CHAT_BACKENDS))}")
    return value


def _server_urls(values: list[str] | None) -> list[str] | None:
    """`--base-url`: each an http(s) URL, or a file of URLs (read when the client is built).

    >>> _server_urls(["http://127.0.0.1:8000/v1"])
    ['http://127.0.0.1:8000/v1']
    """
    for value in values or []:
        for url in value.split():
            if not url.lower().startswith(("http://", "https://")) and not Path(url).is_file():
                raise typer.BadParameter(f"{url!r} is neither an http(s) URL nor a file of URLs")
    return values


Llm = Annotated[
    str | None,
    typer.Option(
        "--llm", callback=_backend, help="Video-LLM backend: openai (HTTP) or transformers."
    ),
]
BaseUrl = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        callback=_server_urls,
        help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat it (or give a "
        "file of URLs, one per line) to spread requests over several servers.",
    ),
]
Model = Annotated[str | None, typer.Option("--model", help="Model name or local path.")]
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key", help="API key (default: $LONGGROUND_LLM_API_KEY, else $OPENAI_API_KEY)."
    ),
]
BenchFormat = Annotated[str | None, typer.Option("--format", help="Benchmark format.")]
VideoFolders = Annotated[
    list[Path] | None,
    typer.Option("--videos", callback=existing_folders, help="Folder holding the videos; repeat."),
]
CacheDir = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="Feature and LLM-answer cache (default: "
                 "$LONGGROUND_CACHE or ~/.cache/longground)."),
]  # fmt: skip


def check_preset(preset: str | None, methods) -> None:
    """Refuse a `--preset` that none of `methods` has (it would change nothing).

    >>> check_preset("paper", ["retrieval", "hybrid"])
    """
    if preset is None:
        return
    from ..methods.presets import preset_names

    offered = {name: preset_names(name) for name in methods}
    if not any(preset in names for names in offered.values()):
        known = "; ".join(f"{m}: {', '.join(n)}" for m, n in offered.items())
        raise UserError(f"--preset {preset}: no method here has it ({known})")


def parse_params(items: list[str] | None) -> dict[str, str]:
    """`["k=3", "mode=topk"]` -> `{"k": "3", "mode": "topk"}`.

    >>> parse_params(["k=3", "beta=0.6"])
    {'k': '3', 'beta': '0.6'}
    """
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--param wants KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def method_config(
    *,
    encoder: str,
    fps: float,
    single: bool,
    params: list[str] | None,
    llm: str | None,
    base_url: list[str] | str | None,
    model: str | None,
    api_key: str | None,
    cache_dir: Path | None,
    method: str = "",
    preset: str | None = None,
    appearance: str | None = None,
    segment_encoder: str | None = None,
    video_input: str | None = None,
    parse: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
) -> MethodConfig:
    """The `MethodConfig` that the shared options describe; `preset` (for `method`) gives
    parameter values that `params` then override; `appearance` and `segment_encoder` (the
    agent's feature extractors) become the params of those names. `--preset paper` also
    sets the paper's video input, frame count and strict parsing for the model
    (`longground.methods.baselines`), each overridden by its own option."""
    from ..answers import answer_parser
    from ..llm.video_input import VideoInput
    from ..methods.presets import apply_preset

    extractors = {"appearance": appearance, "segment_encoder": segment_encoder}
    extractors = {k: v for k, v in extractors.items() if v is not None}
    if extractors and method != "agent":
        flags = ", ".join("--" + k.replace("_", "-") for k in extractors)
        raise UserError(f"{flags}: only --method agent takes feature extractors")

    model_name = model or os.environ.get("LONGGROUND_LLM_MODEL", "")
    paper, grid_side = paper_baseline(method, preset, single, model_name), 8
    method_params = apply_preset(method, preset, parse_params(params))
    if paper is not None:
        method_params = {"n_frames": paper.n_frames, **method_params}
        video_input, parse = video_input or paper.video_input, parse or "strict"
        grid_side = paper.grid_side
    answer_parser(parse)  # an unknown mode stops here, before any work
    video_input = VideoInput(video_input or "frames", grid_side).mode
    llm_config = None
    if llm or base_url or model or api_key or video_input != "frames":
        llm_config = LLMConfig(
            backend=llm or "openai",
            model=model_name,
            base_url=join_urls(base_url) or os.environ.get("LONGGROUND_LLM_BASE_URL"),
            api_key=api_key,
            video_input=video_input,
            grid_side=grid_side,
        )
    return MethodConfig(
        encoder=encoder,
        fps=fps,
        single=single,
        params={**method_params, **extractors},
        llm=llm_config,
        cache_dir=cache_dir,
        parse=parse or "lenient",
        device=_checked_device(device),
        batch_size=check_batch_size(batch_size),
    )


def paper_baseline(method: str, preset: str | None, single: bool, model: str):
    """The `PaperSetting` `--preset paper` applies to a Video-LLM method, else None.

    >>> paper_baseline("monolithic", "paper", True, "gpt-5.4").video_input
    'grid'
    >>> paper_baseline("agent", "paper", False, "m") is None
    True
    """
    if preset != "paper" or method not in ("monolithic", "hybrid"):
        return None
    from ..methods.baselines import paper_setting

    return paper_setting(method, single, model)


def join_urls(base_url: list[str] | str | None) -> str | None:
    """`--base-url` values as the one setting `LLMConfig.base_url` holds (space-separated).

    >>> join_urls(["http://a/v1", "http://b/v1"]), join_urls(None)
    ('http://a/v1 http://b/v1', None)
    """
    if isinstance(base_url, str) or base_url is None:
        return base_url
    return " ".join(base_url) or None


def _checked_device(device: str | None) -> str | None:
    """`--device` checked for its form (whether the GPU exists is checked when the encoder
    loads, so a run that needs no encoder never asks)."""
    if device is not None:
        parse_device(device)
    return device
