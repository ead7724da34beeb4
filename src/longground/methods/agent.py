"""CoMET-Agent as a grounding method (`--method agent`).

This file is the adapter between the agent's pure core (`longground.agent`) and the real
world: it opens the video, reads the feature timeline from the store, scores texts with the
encoder, decodes frames for optical flow and for Video-LLM roles, and keeps one graph cache
(in process and on disk) so later queries on a video reuse its graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..agent.composited.object_views import OBJECT_FOUND, object_views
from ..agent.composited.regions import halves
from ..agent.graph.cache import GraphCache
from ..agent.pipeline import CometAgent
from ..agent.settings import AgentSettings
from ..agent.source import ChannelAnswer, Extras, ScoreScale, VideoSource
from ..cache.kinds import agent_dir, agent_video_key
from ..encoders.label_bridge import HALF_LOGITS
from ..errors import UserError
from ..query import Relation, Route, analyse
from ..tracking.identity import Faces, TrackedLooks
from .base import Grounding, IndexedGrounder, MethodConfig, register_method
from .channels import best_one
from .footage import Footage, cached_footage
from .presets import Preset, register_preset

FRAME_SIDE = 224
#: Videos whose faces (`tracking.identity.Faces`: tracks and looks, under a megabyte) are
#: kept for the next query for a person by rank.
KEPT_FACES = 8
# Region features are computed this many frames at a time (the progress bar's step).
REGION_BATCH = 32
#: The general scene's "visible": -0.5 log-odds of the encoder's presence model (p = 0.38),
#: chosen on the real tuning montage from 0, -0.5, -1, -1.5 and -2 by F1@0.5 + Rej-F1
#: (docs/agent.md, "Scenes"); `-p presence_threshold=` overrides it.
VISIBLE_LOG_ODDS = -0.5

# CoMET's own choices where the agent's defaults differ (docs/agent.md, "Presets"). Table 4's
# profiles (rho_E, tau_e, rho_A, PELT beta, sigma, tau, budgets) are used as published by both
# presets, so they need no values here.
PAPER = register_preset(
    Preset(
        "agent",
        "paper",
        values={
            "order": "uniform",
            "max_iterations": 3,
            "early_stop": True,
            "settle_context": True,
            "inherit_bounds": True,
            "full_rate_events": False,
            "scale_budget": False,
        },
        sources={
            "order": "CoMET Algorithm 1 line 3 (sample v_i ~ U); App. C.3 (1)",
            "max_iterations": "CoMET App. D (N_max = 3)",
            "early_stop": "CoMET App. D (early termination when no new candidates are accepted)",
            "settle_context": "CoMET Algorithm 1 (U <- U minus the perception context C(v))",
            "inherit_bounds": "CoMET §4.3 and App. C.3 (2), C.4 (timestamps inherited from v_i)",
            "full_rate_events": "CoMET App. C.2 and Table 4 (event features sampled at rho_E)",
            "scale_budget": "CoMET App. D (a fixed N_max = 3 whatever the video's length)",
        },
        summary="CoMET's Algorithm 1 as published: uniform draws from U, N_max = 3, early stop, "
        "inherited timestamps, events segmented at rho_E",
    )
)


class FileSource(VideoSource):
    """A video file seen through the encoder and the feature store; timelines are kept in
    memory, so the queries of one video read the store once.

    `extractors` maps a timeline feature name to `(encoder, its feature)`: "appearance" from
    `--appearance`, "segment" from `--segment-encoder`; each is indexed by the same store at
    the same rate and replaces (or adds) that feature.
    """

    def __init__(
        self, video: Path, encoder, store, extractors: dict | None = None,
        config: MethodConfig | None = None, region_source: str = "encoder",
        presence: bool = False,
    ):  # fmt: skip
        """`config` gives the evidence channels (`--channels`, cache, rate) sub-events may
        be routed to; without it the source has none. `region_source` says where the
        halves' features come from (`agent.settings.REGION_SOURCES`, see `region_features`).
        `presence`: score texts by the encoder's presence model, in calibrated log-odds
        (the general scene; "visible" at `VISIBLE_LOG_ODDS`), instead of its raw score."""
        from ..cache import video_fingerprint
        from ..video import probe

        self.video, self.encoder, self.store = Path(video), encoder, store
        self.config = config
        self.extractors = dict(extractors or {})
        self.duration_s = float(probe(self.video).duration_s)
        ids = [getattr(encoder, "encoder_id", type(encoder).__name__)]
        ids += [f"{name}={enc.encoder_id}" for name, (enc, _) in sorted(self.extractors.items())]
        gate = getattr(store, "gate", None)
        if gate is not None:  # reused rows (content-adaptive index) change the graph
            ids.append(f"change={gate.key}")
        self._regions_in_index = (
            region_source == "index" and hasattr(encoder, "region_features") and not presence
        )
        if presence:
            ids.append("regions=tiles")
        if self._regions_in_index:
            ids.append("regions=index")  # the halves' features differ from encoded crops'
        self.key = agent_video_key(video_fingerprint(self.video), "+".join(ids))
        self.presence = presence
        # The general scene looks closer at tiles of the frame, the composited one at its
        # halves (where the generator places pairs of objects).
        self.region_layout = "tiles" if presence else "halves"
        threshold = getattr(encoder, "default_threshold", None)
        self.scale = ScoreScale(VISIBLE_LOG_ODDS, 1.0) if presence else ScoreScale(threshold)
        self.extras = Extras(self.channel_answer, self.region_features, self._regions_in_index,
                             self.object_features, TrackedLooks(self.video, encoder))  # fmt: skip
        self._timelines: dict[float, tuple[np.ndarray, dict[str, np.ndarray]]] = {}

    def timeline(self, fps: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        if fps not in self._timelines:
            tl = self.store.get_or_build(self.video, self.encoder, fps)
            times_s, features = np.asarray(tl.times_s), dict(tl.features)
            for name, (encoder, feature) in self.extractors.items():
                other = self.store.get_or_build(self.video, encoder, fps)
                features[name] = nearest_rows(
                    np.asarray(other.times_s), np.asarray(other.features[feature]), times_s
                )
            self._timelines[fps] = (times_s, features)
        return self._timelines[fps]

    def sampled_fps(self, fps: float) -> float:
        """`Timeline.fps` of the index at `fps`: the rate after capping at the video's own."""
        return float(self.store.get_or_build(self.video, self.encoder, fps).fps)

    def score(self, features: dict[str, np.ndarray], text: str) -> np.ndarray:
        from ..encoders.base import presence_scores

        if self.presence:
            return np.asarray(presence_scores(self.encoder, features, text), dtype=np.float64)
        return np.asarray(self.encoder.score(features, text), dtype=np.float64)

    def frames(
        self, windows: list[tuple[float, float, float]], short_side: int
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """One decoding pass over all `windows` (the decoder seeks only across gaps where
        that pays), with the frames `video.sample_frames` gives for each window."""
        from ..video.container import open_video
        from ..video.sampling import FrameStream

        video = open_video(self.video)
        times, owner = window_times(windows, video.duration_s)
        if not times:
            video.close()
            return
        stream = FrameStream(video, times, short_side, batch_size=64)
        at = 0
        try:
            for batch in stream:
                rows = owner[at : at + len(batch)]
                at += len(batch)
                for i in np.unique(rows):
                    take = rows == i
                    yield int(i), batch.frames[take], batch.pts_s[take]
        finally:
            stream.close()

    def frames_at(self, times_s: np.ndarray) -> np.ndarray:
        from ..video import frames_at

        return frames_at(
            self.video, np.asarray(times_s, dtype=np.float64), short_side=FRAME_SIDE
        ).frames

    def channel_answer(self, route: Route) -> ChannelAnswer | None:
        """The channel `route` names, answered on this video's evidence; None for the image
        encoder or without a config."""
        if self.config is None:
            return None
        from .channels import channel_answer, route_record

        found = channel_answer(self.video, route, self.config)
        if found is None:
            return None
        names, moments, details = found
        record = {"route": route_record(route, names), "matched": details}
        return ChannelAnswer(route.channel, moments, record)

    def region_features(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """Features of the two halves of each frame at `times_s` (rising).

        From the index when the encoder derives them from its whole-frame pass (label-bridge:
        its last feature map pooled per half, `encoders.label_bridge.HALF_LOGITS`) and
        `region_source` is "index": the nearest indexed frame's, with no decoding and no
        encoder call. Otherwise each half is cropped and encoded (`encoded_halves`).
        """
        stored = self._index_halves() if self._regions_in_index else None
        if stored is None:
            return self.encoded_halves(times_s)
        index_times, rows = stored
        times_s = np.asarray(times_s, dtype=np.float64)
        return self.encoder.region_features({HALF_LOGITS: nearest_rows(index_times, rows, times_s)})

    def _index_halves(self) -> tuple[np.ndarray, np.ndarray] | None:
        """`(times_s (T,), half logits (T, 2, C))` of the densest timeline loaded so far that
        holds them, or None."""
        held = [(fps, tl) for fps, tl in self._timelines.items() if HALF_LOGITS in tl[1]]
        if not held:
            return None
        times_s, features = max(held, key=lambda item: item[0])[1]
        return times_s, features[HALF_LOGITS]

    def object_features(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """Features of the objects of each frame at `times_s` (`object_views.VIEWS`: each
        half's object box and the largest object whole): frames decoded at `FRAME_SIDE`,
        each view cut to a square and encoded, `REGION_BATCH` frames per encoder call; under
        `OBJECT_FOUND`, which views found an object box."""
        times_s = np.asarray(times_s, dtype=np.float64)
        rows = []
        for at in range(0, len(times_s), REGION_BATCH):
            crops, found = object_views(self.frames_at(times_s[at : at + REGION_BATCH]))
            n, sides = crops.shape[:2]
            feats = self.encoder.image_features(crops.reshape(n * sides, *crops.shape[2:]))
            rows.append({k: np.asarray(v).reshape(n, sides, *np.shape(v)[1:])
                         for k, v in feats.items()} | {OBJECT_FOUND: found})  # fmt: skip
        return {k: np.concatenate([r[k] for r in rows]) for k in rows[0]}

    def encoded_halves(self, times_s: np.ndarray) -> dict[str, np.ndarray]:
        """Features of the regions of each frame at `times_s` (rising): its two halves in the
        composited scene, its `tiles` in the general one (decoded at twice the size, so a
        tile reaches the encoder at about its own resolution), each cropped and encoded:
        decoded in one pass `REGION_BATCH` frames at a time under a progress bar (silent
        off a terminal).
        No decoding thread: the encoder already uses every core, and a thread's own heap
        adds to the peak RSS.

        With the feature store's change gate (content-adaptive indexing), a half whose
        thumbnail did not change since the last encoded one reuses its features, as the index
        does with whole frames (`index.change`); without a gate every half is encoded.
        """
        from ..progress import progress_bar
        from ..video.container import open_video
        from ..video.sampling import FrameStream, as_fraction

        video = open_video(self.video)
        times = [as_fraction(float(t)) for t in np.maximum(np.asarray(times_s, float), 0.0)]
        if video.duration_s is not None:  # as `frames_at` clips them
            last = max(as_fraction(0), as_fraction(video.duration_s) - as_fraction(0.001))
            times = [min(t, last) for t in times]
        crops = tiles if self.region_layout == "tiles" else halves
        side = 2 * FRAME_SIDE if self.region_layout == "tiles" else FRAME_SIDE
        stream = FrameStream(video, times, side, batch_size=REGION_BATCH)
        gate = getattr(self.store, "gate", None)
        n_parts = len(crops(np.zeros((1, 4, 4, 3), np.uint8)))
        parts = [_GatedEncode(self.encoder, gate, REGION_BATCH) for _ in range(n_parts)]
        desc = f"{self.video.name} regions"
        with progress_bar(len(times), desc=desc, unit="frame") as bar:
            try:
                for batch in stream:
                    for part, crop in zip(parts, crops(batch.frames), strict=True):
                        part.add(crop)
                    bar.update(len(batch))
            finally:
                stream.close()
        if parts[0].n_added != len(times):
            raise UserError(f"{self.video}: frames at {len(times)} times could not all be decoded")
        rows = [part.features() for part in parts]
        return {k: np.stack([r[k] for r in rows], axis=1) for k in rows[0]}


class _GatedEncode:
    """Encoder features of one region's crops, added batch after batch. With a change gate,
    a crop whose thumbnail did not change since the last encoded one reuses its features.
    The crops to encode are sent to the encoder `chunk` at a time whatever the gate kept of
    each batch, so the encoder always sees the same batch shape: 60 calls of 1 to 32
    label-bridge crops grew the process by 96 MB, 60 calls of 32 by 45 MB."""

    def __init__(self, encoder, gate, chunk: int):
        self.encoder, self.gate, self.chunk = encoder, gate, chunk
        self.last_thumb = None
        self.masks: list[np.ndarray] = []
        self.pending: list[np.ndarray] = []
        self.computed: list[dict[str, np.ndarray]] = []

    @property
    def n_added(self) -> int:
        return sum(len(m) for m in self.masks)

    def add(self, crops: np.ndarray) -> None:
        """Take `(B, H, W, 3)` uint8 crops; encodes every full chunk of changed ones."""
        if self.gate is None:
            mask = np.ones(len(crops), dtype=bool)
        else:
            thumbs = self.gate.thumbnails(crops)
            mask, self.last_thumb = self.gate.select(thumbs, self.last_thumb)
        self.masks.append(mask)
        self.pending.append(np.ascontiguousarray(crops[mask]))
        while sum(len(p) for p in self.pending) >= self.chunk:
            self._encode(self.chunk)

    def _encode(self, n: int) -> None:
        stack = np.concatenate(self.pending)
        self.pending = [stack[n:]]
        features = self.encoder.image_features(stack[:n])
        self.computed.append({k: np.asarray(v) for k, v in features.items() if k != HALF_LOGITS})

    def features(self) -> dict[str, np.ndarray]:
        """Named `(N, ...)` features of every crop added (reused rows filled in)."""
        left = sum(len(p) for p in self.pending)
        if left:
            self._encode(left)
        computed = {k: np.concatenate([c[k] for c in self.computed]) for k in self.computed[0]}
        source = np.cumsum(np.concatenate(self.masks)) - 1
        return {k: v[source] for k, v in computed.items()}


def tiles(frames: np.ndarray, share: float = 0.6) -> tuple[np.ndarray, ...]:
    """Five overlapping crops of `(N, H, W, 3)` frames, each `share` of their width and
    height: the four corners and the centre. A thing a fifth of the frame wide is seen at
    about 1.7 times the size it has in the whole frame, wherever it is.

    >>> [t.shape for t in tiles(np.zeros((1, 10, 20, 3), np.uint8))][:2]
    [(1, 6, 12, 3), (1, 6, 12, 3)]
    """
    _, h, w, _ = frames.shape
    th, tw = max(1, round(h * share)), max(1, round(w * share))
    starts = [(0, 0), (0, w - tw), (h - th, 0), (h - th, w - tw), ((h - th) // 2, (w - tw) // 2)]
    return tuple(frames[:, y : y + th, x : x + tw] for y, x in starts)


def window_times(
    windows: list[tuple[float, float, float]], duration_s: float | None
) -> tuple[list, np.ndarray]:
    """The exact sample times `sample_frames` takes in each window `(start_s, end_s, fps)`
    (clipped to `duration_s`), all in one rising list, and the `(N,)` window index of each.

    >>> times, owner = window_times([(0.0, 1.0, 2.0), (2.5, 3.5, 1.0)], 3.0)
    >>> [float(t) for t in times], owner.tolist()
    ([0.0, 0.5, 2.5], [0, 0, 1])
    """
    from ..video.sampling import as_fraction, sample_times

    last = None if duration_s is None else as_fraction(duration_s)
    times, owner = [], []
    for i, (start_s, end_s, fps) in enumerate(windows):
        end = as_fraction(end_s) if last is None else min(as_fraction(end_s), last)
        part = list(sample_times(as_fraction(fps), as_fraction(start_s), end))
        times += part
        owner += [i] * len(part)
    return times, np.asarray(owner, dtype=np.int64)


def nearest_rows(times_s: np.ndarray, rows: np.ndarray, at_s: np.ndarray) -> np.ndarray:
    """The rows of a timeline sampled at `times_s` that lie nearest to each of `at_s`.

    Two indexes of one video at one rate have the same sample times; this only guards
    against a frame more or less at the end.

    >>> nearest_rows(np.array([0.0, 1.0, 2.0]), np.arange(3)[:, None], np.array([0.1, 1.9]))
    array([[0],
           [2]])
    """
    if len(times_s) == 0:
        raise UserError("an extra feature index of the video is empty")
    right = np.clip(np.searchsorted(times_s, at_s), 1, max(len(times_s) - 1, 1))
    left = right - 1
    nearer_left = np.abs(at_s - times_s[left]) <= np.abs(times_s[right] - at_s)
    return rows[np.where(nearer_left, left, right)]


def feature_extractors(
    settings: AgentSettings, device: str | None = None, batch_size: int | None = None
) -> dict:
    """`{"appearance": (encoder, "appearance"), "segment": (encoder, "embedding")}` for the
    extractors the settings name, on `device` (`--device`); a spec that cannot give its
    feature is a one-line error."""
    from ..agent.source import SEGMENT_FEATURE
    from ..encoders.hf_dinov2 import load_feature_encoder

    out = {}
    if settings.appearance:
        enc = load_feature_encoder(
            settings.appearance, "appearance", "--appearance", device, batch_size
        )
        out["appearance"] = (enc, "appearance")
    if settings.segment_encoder:
        enc = load_feature_encoder(
            settings.segment_encoder, "embedding", "--segment-encoder", device, batch_size
        )
        out[SEGMENT_FEATURE] = (enc, "embedding")
    return out


class AgentMethod(IndexedGrounder):
    """Plan, graph, verify, aggregate; offline scorers unless a Video-LLM is configured."""

    name = "agent"

    def __init__(self, config: MethodConfig, encoder=None, store=None, client=None):
        """`encoder`, `store` and `client` default to the configured encoder, the feature
        store and (when an LLM backend is used) the cached chat client."""
        self.config = config
        self.settings = AgentSettings.from_params(config.params)
        self._encoder, self._store = encoder, store
        if client is None and self._wants_llm():
            from .ask import method_chat_client

            client = method_chat_client(config)
        self._cache, self._client = GraphCache(agent_dir(config.cache_dir)), client
        self._agents: dict[str, CometAgent] = {}
        self._footage: dict[Path, Footage] = {}
        self._extractors = feature_extractors(  # bad specs fail before any work
            self.settings, self.config.device, self.config.batch_size
        )
        self._sources: dict[tuple[Path, str], FileSource] = {}
        self._faces: dict[tuple[Path, bytes], Faces] = {}  # `_ranked`'s, newest last

    def _wants_llm(self) -> bool:
        roles = ("planner", "filter", "verifier", "aggregator")
        named = [getattr(self.settings, r) or self.settings.roles for r in roles]
        return "llm" in named or ("auto" in named and self.config.llm is not None)

    def scene(self, video: Path) -> str:
        """The scene the agent answers `video` in: the one asked for, or, with "auto", the
        one its footage looks like (`methods.footage`, read once per video)."""
        if self.settings.scene != "auto":
            return self.settings.scene
        video = Path(video)
        if video not in self._footage:
            self._footage[video] = cached_footage(video, self._cache.root)
        return self._footage[video].scene

    def agent(self, scene: str) -> CometAgent:
        """The agent of one scene, its settings those given with that scene."""
        if scene not in self._agents:
            settings = (
                self.settings
                if scene == self.settings.scene
                else AgentSettings.from_params({**self.config.params, "scene": scene})
            )
            self._agents[scene] = CometAgent(settings, self.config.fps, self._cache, self._client)
        return self._agents[scene]

    def source(self, video: Path, scene: str | None = None) -> FileSource:
        video = Path(video)
        scene = scene or self.scene(video)
        if (video, scene) not in self._sources:
            self._sources[(video, scene)] = FileSource(
                video, self.encoder, self.store, self._extractors, self.config,
                self.settings.region_source, presence=scene == "general",
            )  # fmt: skip
        return self._sources[(video, scene)]

    def ground(self, video: Path, query: str) -> Grounding:
        from .channels import derived_grounding, routed_grounding, with_route

        analysis = analyse(query)
        derived = derived_grounding(self.ground, video, analysis, self.config.single,
                                    self.config.cache_dir)  # fmt: skip
        if derived is not None:
            return derived
        ranked = self._ranked(video, analysis)
        if ranked is not None:
            return ranked
        routed = routed_grounding(video, analysis, self.config)
        if routed is not None:
            routed.trace["method"] = "agent"
            return routed
        grounding = self._ground_frames(video, query)
        combined = grounding.trace.get("combined")
        if combined is not None:
            grounding.trace["route"] = combined_route(combined, self.config)
        return with_route(grounding, analysis, self.config)

    def _ranked(self, video: Path, analysis) -> Grounding | None:
        """The answer to a query for one person by rank ("the second person to appear",
        "when does the first person come back"): the people channel's moments narrowed to
        that person, told apart by their faces' looks (`tracking.identity.Faces`, kept for
        the `KEPT_FACES` videos asked about last).
        None for any other query, or where the people channel is not selected."""
        from ..query.structure import ordinal
        from .channels import routed_grounding

        rank, _ = ordinal(analysis.target.phrase)
        alone = len(analysis.events) == 1 and analysis.relation is Relation.NONE
        if rank is None or not alone or analysis.occurrence is not None:
            return None
        if analysis.target.route.channel != "people":
            return None
        every = replace(self.config, single=False)  # all the persons, then the one asked for
        routed = routed_grounding(video, replace(analysis, skip_first=False), every)
        if routed is None:
            return None
        key = (Path(video), routed.moments.spans.tobytes())
        faces = self._faces.pop(key, None) or Faces(video, routed.moments, self.encoder)
        self._faces[key] = faces  # every rank asked of a video reads the same faces
        while len(self._faces) > KEPT_FACES:
            self._faces.pop(next(iter(self._faces)))
        moments, record = faces.ranked(rank, analysis.skip_first)
        moments = best_one(moments) if self.config.single else moments
        trace = {**routed.trace, "method": "agent", "analysis": analysis.to_record(),
                 "identity": record}  # fmt: skip
        return replace(routed, moments=moments, trace=trace)

    def _ground_frames(self, video: Path, query: str) -> Grounding:
        scene = self.scene(video)
        moments, trace = self.agent(scene).run(self.source(video, scene), query)
        moments = best_one(moments) if self.config.single else moments
        record = {"method": "agent", **trace.to_dict()}
        footage = self._footage.get(Path(video))
        record["scene"] = footage.to_dict() if footage else {"scene": scene, "rule": "asked for"}
        failure = trace.parse_failure if len(moments) == 0 else None
        if failure is not None:
            return Grounding(moments, raw=failure.raw, trace=record, parse_error=failure.reason)
        separation = record.get("confidence", {}).get("separation")
        raw = separation if separation is not None and len(separation) == len(moments) else None
        return Grounding(moments=moments, trace=record, raw_scores=raw)


def combined_route(combined: dict, config: MethodConfig) -> dict:
    """The trace's "route" of a query whose sub-events went to their own channels."""
    from ..channels import parse_channels

    events = [{"role": e["role"], "phrase": e["phrase"], "channel": e["channel"],
               "needle": e.get("route", {}).get("needle", e["text"])}
              for e in combined["subevents"]]  # fmt: skip
    return {"channel": "combined", "rule": "agent-plan", "relation": combined["relation"],
            "subevents": events, "channels": list(parse_channels(config.channels))}  # fmt: skip


@register_method("agent")
def build(config: MethodConfig) -> AgentMethod:
    return AgentMethod(config)
