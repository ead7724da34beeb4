"""The composited scene: photos pasted on plain or textured backdrops (studio and composited
footage, and the project's own generator, `longground synth`).

There the frame's outer ring shows the backdrop, and what it does not show is the object. The
scene adds to the general perception (`scene.Scene`):

- closer looks (`closer.HalvesAndBoxes`): the frame's halves (`regions`, with the features
  the source gives for them) and the object boxes of each half and of the whole frame
  (`object_views`), kept per video in memory and next to the graph cache;
- backdrops named by colour or texture (`backdrops.backdrop_probability`);
- objects told apart by their looks and colourless objects (`object_looks`: `identity`,
  `object_colors`);
- something standing while another thing moves (`standing`).

The settings' switches (`object_presence`, `object_looks`) turn the parts they name on in any
scene (object boxes are read in the composited scene alone); the rest belong to the
composited scene alone. `regions` turns the closer looks on or off in either scene.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...cache.kinds import agent_objects_name
from ..frames import FrameSampler
from ..scene import CloserLooks, SameFn, Scene
from ..settings import AgentSettings
from ..source import LooksFn, VideoSource
from ..trace import Trace
from .backdrops import backdrop_probability
from .closer import HalvesAndBoxes
from .identity import instance_looks, same_identity_matrix
from .object_colors import colourless_share
from .standing import stays_standing


class CompositedScene(Scene):
    """The composited scene's perception for one agent (it keeps the closer views' features
    per video between queries).

    Args:
        settings: the agent's settings (`regions`, `object_presence`, `object_looks`).
        cache_root: the graph cache's folder, where the views' features are kept (None:
            memory only).
    """

    name = "composited"

    def __init__(self, settings: AgentSettings, cache_root: Path | None):
        super().__init__(settings, cache_root)
        whole = settings.scene == "composited"
        self.backdrop = backdrop_probability if whole else None
        self.standing = stays_standing if whole else None
        self.colourless = colourless_share if settings.object_looks else None

    def closer(self, source: VideoSource, video_key: str, trace: Trace) -> CloserLooks | None:
        """Frame halves and object views of `source` for one query; their cost falls inside
        the step that asks for them (filter or verification) and is also shown alone as
        "detail.regions" and "detail.objects". Object views only in the composited scene
        itself: an object box is what the frame's outer ring does not show."""
        if not self.settings.regions:
            return None
        regions, objects, views = self.regions(source, video_key, trace), None, source.extras
        if views.objects is not None and self.settings.scene == "composited":
            name = None if self.cache_root is None else agent_objects_name(video_key)
            objects = self.indexed(views.objects, video_key, name, "objects", trace)
        return HalvesAndBoxes(source.score, regions, objects, self.settings.object_presence)

    identity_by = "the objects' looks"

    def identities(
        self, closer: CloserLooks | None, frames: FrameSampler | None, text: str,
        looks: LooksFn | None = None,
    ) -> SameFn | None:  # fmt: skip
        """Instances told apart by the objects' looks (`identity.same_identity_matrix`, each
        span's looks read once on the `closer` views); None without
        `object_looks` or frames. `looks` (tracked crops) is not used: the object's own
        pixels say more on composited footage."""
        if not self.settings.object_looks or frames is None:
            return None
        seen: dict[tuple[float, float], list] = {}

        def same(instances: list) -> np.ndarray:
            spans = [(i.start_s, i.end_s) for i in instances]
            new = sorted({s for s in spans if s not in seen})
            found = instance_looks(closer, frames, np.array(new).reshape(-1, 2), text)
            seen.update(zip(new, found, strict=True))
            return same_identity_matrix([seen[s] for s in spans])

        return same
