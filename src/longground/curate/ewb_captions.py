"""ExtremeWhenBench P0: a caption for every second of each video, with its absolute time.

The paper captions each 1 fps frame with a Video-LLM. Here the captioner is any
`ImageTextEncoder`: each frame is scored against a vocabulary of class names (ImageNet's by
default) and its caption lists the best few, "top classes: a, b, c". With the offline
label-bridge encoder this needs no model server; it shows the plumbing, and its captions are
far poorer than a Video-LLM's.

Output: `captions.jsonl`, one record per video (`qid` = the video id) holding
`captions: [[time_s, text], ...]`, or `error` for a video that cannot be read. It is a
`run.journal.Journal`, so a crash resumes at the first video not written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ..encoders.base import ImageTextEncoder
from ..errors import UserError
from ..run.journal import Journal, write_atomic
from .record import StageRecord
from .source import VIDEO_FILES, FrameSource
from .stage import Call, ReplyError, Stage

TOP_CLASSES = 3


def imagenet_vocabulary() -> list[str]:
    """The first name of each ImageNet-1k class (1000 names)."""
    from ..encoders.imagenet_labels import imagenet_lemmas

    return [names[0] for names in imagenet_lemmas()]


class EncoderCaptioner:
    """Captions frames with the vocabulary words an encoder scores highest.

    Args:
        encoder: any `ImageTextEncoder`.
        vocabulary: the words a caption may use.
        top: how many words per caption.
    """

    def __init__(self, encoder: ImageTextEncoder, vocabulary: list[str], top: int = TOP_CLASSES):
        if not vocabulary:
            raise UserError("the caption vocabulary is empty")
        self.encoder, self.vocabulary, self.top = encoder, list(vocabulary), top
        self._texts = np.asarray(encoder.encode_texts(self.vocabulary), dtype=np.float32)

    @property
    def captioner_id(self) -> str:
        """Changes whenever the captions would: encoder, vocabulary, number of words."""
        words = hashlib.sha256("\n".join(self.vocabulary).encode()).hexdigest()[:12]
        return f"{self.encoder.encoder_id}|vocab:{words}|top:{self.top}"

    def caption(self, frames: np.ndarray) -> list[str]:
        """One caption per frame of `(N, H, W, 3)` uint8 frames."""
        scores = np.asarray(self.encoder.encode_images(frames)) @ self._texts.T
        best = np.argsort(-scores, axis=1, kind="stable")[:, : self.top]
        return ["top classes: " + ", ".join(self.vocabulary[j] for j in row) for row in best]


def caption_video(
    path: Path, captioner: EncoderCaptioner, fps: float = 1.0, source: FrameSource = VIDEO_FILES
) -> dict:
    """`{"duration_s", "captions": [[time_s, text], ...]}` for one video at `fps`."""
    duration_s = source.duration_s(path)
    captions: list[list] = []
    for times_s, frames in source.sampled(path, fps, short_side=224, batch_size=32):
        texts = captioner.caption(frames)
        captions += [[round(float(t), 3), c] for t, c in zip(times_s, texts, strict=True)]
    if not captions:
        raise UserError(f"{path}: no frames could be decoded")
    return {"duration_s": float(duration_s or captions[-1][0] + 1.0), "captions": captions}


def run_captions(
    videos: dict[str, Path],
    out: Path,
    captioner: EncoderCaptioner,
    *,
    fps: float = 1.0,
    overwrite: bool = False,
    describe: Callable[[str], None] | None = None,
) -> list[StageRecord]:
    """Caption every video into `out/captions.jsonl` (resuming), records in video order."""
    fingerprint = {"stage": "captions", "captioner": captioner.captioner_id, "fps": fps}
    path = Path(out) / "captions.jsonl"
    with Journal.open(path, fingerprint, overwrite=overwrite) as journal:
        for vid, video in videos.items():
            if vid in journal.done:
                continue
            fields = {"video": str(video.absolute())}
            try:
                record = StageRecord(vid, {**fields, **caption_video(video, captioner, fps)})
            except (UserError, OSError) as exc:
                record = StageRecord(vid, fields, error=" ".join(str(exc).split()))
            if describe is not None:
                describe(vid)
            journal.append(record.to_json())
        records = [StageRecord.from_json(journal.done[vid]) for vid in videos]
    manifest = {**fingerprint, "output": path.name, "counts": {
        "items": len(records), "ok": sum(r.ok for r in records),
        "input_failed": sum(r.input_failed for r in records)}}  # fmt: skip
    write_atomic(path.with_name("captions.manifest.json"), json.dumps(manifest, indent=1))
    return records


class CaptionStage(Stage):
    """P0 with a chat model, as in the paper: frames at `fps`, `batch` frames per call (1: one
    call per frame), one caption each."""

    name = "p0_captions"
    prompts = ("build_ewb_caption",)

    def __init__(self, videos: dict[str, Path], fps: float = 1.0, batch: int = 1,
                 short_side: int = 336, max_tokens: int = 128,
                 source: FrameSource = VIDEO_FILES):  # fmt: skip
        if batch < 1:
            raise UserError(f"caption batch must be at least 1, got {batch}")
        self.videos, self.fps, self.batch, self.short_side = videos, fps, batch, short_side
        self.source = source
        self.max_tokens = max_tokens * batch
        self.settings = {"fps": fps, "batch": batch, "short_side": short_side}

    def calls(self) -> Iterable[Call]:
        for vid, path in self.videos.items():
            try:
                duration_s = self.source.duration_s(path)
            except UserError as exc:
                yield Call(f"{vid}@error", _raiser(exc), {"video_id": vid})
                continue
            times = np.arange(0.0, duration_s, 1.0 / self.fps)
            for k in range(0, len(times), self.batch):
                chunk = [round(float(t), 3) for t in times[k : k + self.batch]]
                context = {"video": str(path.absolute()), "video_id": vid,
                           "duration_s": duration_s, "times_s": chunk}  # fmt: skip
                build = lambda p=path, c=chunk: self._messages(p, c)  # noqa: E731
                yield Call(f"{vid}@{chunk[0]:.3f}", build, context, self.max_tokens)

    def _messages(self, path: Path, times_s: list[float]):
        from ..llm.timing import timed_frames_message
        from .prompts import build_prompt

        frames, _ = self.source.frames_at(path, times_s, short_side=self.short_side)
        text = build_prompt("build_ewb_caption", n_frames=len(frames))
        return [timed_frames_message(text, frames, np.asarray(times_s, np.float64))]

    def read(self, call: Call, text: str) -> dict:
        from .ewb_stages import json_value

        captions = json_value(text, list)
        want = len(call.context["times_s"])
        if len(captions) != want or not all(isinstance(c, str) and c.strip() for c in captions):
            raise ReplyError(f"expected a list of {want} non-empty captions")
        return {"captions": [[t, " ".join(c.split())] for t, c in
                             zip(call.context["times_s"], captions, strict=True)]}  # fmt: skip


def _raiser(exc: Exception):
    def build():
        raise exc

    return build


def captions_by_video(
    result_records: list[StageRecord], videos: dict[str, Path]
) -> list[StageRecord]:
    """`CaptionStage` records gathered into one caption stream per video (the shape
    `run_captions` writes); a video with no caption at all carries the first error.

    >>> recs = [StageRecord("v.0", {"video_id": "v", "duration_s": 2.0, "captions": [[0.0, "a"]]}),
    ...         StageRecord("v.1", {"video_id": "v"}, parse_error="bad")]
    >>> captions_by_video(recs, {"v": Path("v.mp4")})[0].fields["captions"]
    [[0.0, 'a']]
    """
    out = []
    for vid, path in videos.items():
        mine = [r for r in result_records if r.fields.get("video_id") == vid]
        good = [r.fields for r in mine if r.ok and "captions" in r.fields]
        fields = {"video": str(path.absolute())}
        if not good:
            first = next((r.failure for r in mine if r.failure), "no frames")
            out.append(StageRecord(vid, fields, error=first))
            continue
        captions = [c for r in good for c in r["captions"]]
        fields.update(duration_s=good[0]["duration_s"], captions=captions)
        out.append(StageRecord(vid, fields))
    return out
