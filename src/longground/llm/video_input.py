"""How frames reach a Video-LLM (`--video-input frames|video|grid`).

Every method and build stage writes its request one way: a prompt, then timestamped frames
(`Message.images` with `image_labels` and `image_times_s`). A `VideoInput` turns that message
into the shape the papers used for each baseline, just before it is sent:

- `frames` (the default): each frame is its own image part, after its timestamp label;
- `video`: all frames become one video part (`Message.video`), which the OpenAI-compatible
  payload sends as a `video_url` of JPEG frames with the sampling fps (vLLM and SGLang pass it
  to the model's own video processor: Qwen2.5-VL, Qwen3-VL, InternVL) and the transformers
  client hands to the model's video processor; the prompt lists every frame's time;
- `grid`: frames are tiled `side x side` per mosaic image (ExtremeWhenBench's GPT setting,
  8 x 8), each tile stamped with its time; a text part before each mosaic lists its times.

The mosaic drawing lives in `longground.video.grid`, which this package may not import; the
layer that builds the client hands it in as `tile`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..errors import UserError
from .base import ChatClient, Completion, Message, VideoClip
from .timing import frame_label

# (frames (N, H, W, 3) uint8, pts_s (N,), rows, cols, stamp times) -> one mosaic image
# (H', W', 3) uint8: the signature of `longground.video.mosaic`.
Tiler = Callable[[np.ndarray, np.ndarray, int, int, bool], np.ndarray]


@dataclass(frozen=True)
class VideoInput:
    """How frames are sent.

    Args:
        mode: "frames", "video" or "grid" (a key of `VIDEO_INPUT_MODES`).
        grid_side: tiles per side of a grid mosaic (grid mode); 8 makes 64 frames a mosaic.
        grid_max_px: a mosaic's longer side is shrunk to at most this many pixels.

    >>> VideoInput("grid").frames_per_image
    64
    """

    mode: str = "frames"
    grid_side: int = 8
    grid_max_px: int = 2048

    def __post_init__(self) -> None:
        if self.mode not in VIDEO_INPUT_MODES:
            known = ", ".join(VIDEO_INPUT_MODES)
            raise UserError(f"unknown video input {self.mode!r}; choose from: {known}")
        if self.grid_side < 1 or self.grid_max_px < 16:
            raise UserError(
                f"grid side must be >= 1 and the mosaic size >= 16 px, got {self.grid_side}, "
                f"{self.grid_max_px}"
            )

    @property
    def frames_per_image(self) -> int:
        return self.grid_side * self.grid_side


def _times_text(message: Message) -> list[str]:
    """Each frame for a listing: its label when it says more than the time ("event 3,
    12.0 s", "40.5 s candidate"), else its time in seconds."""
    times, labels = message.image_times_s, message.image_labels
    if times is not None and (labels is None or labels == [frame_label(t) for t in times]):
        return [f"{t:.1f} s" for t in times]
    labels = labels or [f"frame {i + 1}" for i in range(len(message.images))]
    return [label.rstrip(":") for label in labels]


def _keep(message: Message, options: VideoInput, tile: Tiler | None) -> Message:
    return message


def _same_size(frames: list[np.ndarray]) -> np.ndarray:
    """`(N, H, W, 3)` frames, every frame resized to the first one's size when they differ."""
    height, width = frames[0].shape[:2]
    if all(f.shape[:2] == (height, width) for f in frames):
        return np.stack(frames)
    from PIL import Image

    return np.stack(
        [np.asarray(Image.fromarray(f).resize((width, height), Image.BILINEAR)) for f in frames]
    )


def _to_video(message: Message, options: VideoInput, tile: Tiler | None) -> Message:
    """The frames as one video part; the prompt gains a line with every frame's time."""
    if not message.images:
        return message
    times = message.image_times_s
    clip = VideoClip(
        _same_size([np.asarray(f) for f in message.images]),
        None if times is None else np.asarray(times, dtype=np.float64),
        tuple(message.image_labels or ()),
    )
    fps = clip.sample_fps
    rate = f", about {fps:.4g} frames per second of video" if fps else ""
    listing = (
        f"The video holds {len(clip.frames)} frames{rate}. Their times, in order: "
        + ", ".join(_times_text(message))
        + "."
    )
    text = f"{message.text.rstrip()}\n\n{listing}" if message.text else listing
    return replace(message, text=text, images=[], image_labels=None, video=clip)


def _to_grids(message: Message, options: VideoInput, tile: Tiler | None) -> Message:
    """The frames tiled `side x side` per mosaic, each mosaic after a line of its times."""
    if not message.images:
        return message
    if tile is None:
        raise ValueError("grid video input needs a tile function (longground.video.mosaic)")
    frames = _same_size([np.asarray(f) for f in message.images])
    known = message.image_times_s is not None
    times = np.asarray(message.image_times_s if known else np.zeros(len(frames)), np.float64)
    listed = _times_text(message)
    per, side = options.frames_per_image, options.grid_side
    n_grids = math.ceil(len(frames) / per)
    images, labels = [], []
    for g in range(n_grids):
        part = slice(g * per, (g + 1) * per)
        image = tile(frames[part], times[part], side, side, known)
        images.append(_fit(image, options.grid_max_px))
        first, last = g * per + 1, min((g + 1) * per, len(frames))
        labels.append(
            f"Grid {g + 1} of {n_grids}: frames {first}-{last}, left to right and top to "
            f"bottom, at {', '.join(listed[part])}:"
        )
    return replace(message, images=images, image_labels=labels, image_times_s=None)


def _fit(image: np.ndarray, max_px: int) -> np.ndarray:
    """`image` shrunk so its longer side is at most `max_px` (never enlarged)."""
    height, width = image.shape[:2]
    scale = max_px / max(height, width)
    if scale >= 1:
        return image
    from PIL import Image

    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(image).resize(size, Image.BILINEAR))


Converter = Callable[[Message, VideoInput, Tiler | None], Message]
VIDEO_INPUT_MODES: dict[str, Converter] = {"frames": _keep, "video": _to_video, "grid": _to_grids}


def video_processor_kwargs(messages: list[Message]) -> dict:
    """Video-processor settings for a conversation with a video part: keep every frame sent
    (`do_sample_frames=False`) and date them at their sampling rate (`fps`, when known); {}
    without a video. The HTTP payload sends them as `mm_processor_kwargs`, the transformers
    client passes them to the processor.

    >>> clip = VideoClip(np.zeros((3, 2, 2, 3), np.uint8), np.array([0.0, 2.0, 4.0]))
    >>> video_processor_kwargs([Message("user", "When?", video=clip)])
    {'do_sample_frames': False, 'fps': 0.5}
    >>> video_processor_kwargs([Message("user", "When?")])
    {}
    """
    videos = [m.video for m in messages if m.video is not None]
    if not videos:
        return {}
    out: dict = {"do_sample_frames": False}
    if videos[0].sample_fps is not None:
        out["fps"] = videos[0].sample_fps
    return out


def convert_messages(
    messages: list[Message], options: VideoInput, tile: Tiler | None = None
) -> list[Message]:
    """`messages` with their frames in the shape `options.mode` asks for.

    >>> m = Message("user", "When?", [np.zeros((2, 2, 3), np.uint8)] * 3, ["a", "b", "c"],
    ...             [1.0, 2.0, 3.0])
    >>> out = convert_messages([m], VideoInput("video"))[0]
    >>> out.images, out.video.frames.shape, out.video.sample_fps
    ([], (3, 2, 2, 3), 1.0)
    """
    convert = VIDEO_INPUT_MODES[options.mode]
    return [convert(message, options, tile) for message in messages]


class VideoInputClient(ChatClient):
    """Wraps a client: every conversation's frames are sent in `options.mode`'s shape.

    Put it outside the response cache, so the cache key sees what is actually sent.

    Args:
        inner: the client that sends (usually a `CachedChatClient`).
        options: the video input mode and grid settings.
        tile: the mosaic function for grid mode (`longground.video.mosaic`).
    """

    def __init__(self, inner: ChatClient, options: VideoInput, tile: Tiler | None = None):
        if options.mode == "grid" and tile is None:
            raise ValueError("grid video input needs a tile function")
        self.inner = inner
        self.options = options
        self.tile = tile
        self.model = inner.model

    @property
    def usage(self):
        return self.inner.usage

    def complete(
        self, messages: list[Message], *, max_tokens: int = 1024, temperature: float = 0.0
    ) -> Completion:
        sent = convert_messages(messages, self.options, self.tile)
        return self.inner.complete(sent, max_tokens=max_tokens, temperature=temperature)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


def with_video_input(
    client: ChatClient, options: VideoInput | None, tile: Tiler | None = None
) -> ChatClient:
    """`client` itself for the frames mode (or no options), else wrapped in
    `VideoInputClient`."""
    if options is None or options.mode == "frames":
        return client
    return VideoInputClient(client, options, tile)
