"""One model per construction stage (ExtremeWhenBench Table 4 uses gpt-5-mini for P1, P3 and
P4, gpt-5.1 for P2 and gpt-5.4 for P5, all at medium reasoning effort), and the optional batch
submission of a stage's requests.

`--stage-model p2=gpt-5.1` names a stage by its number (`p0` ... `p5`; `p5` covers the
pre-pass and the scoring pass) or by its full name (`p5_score`, `queries`, `annotations`);
stages not named use `--model`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from ..errors import UserError
from ..llm.base import ChatClient
from ..llm.config import LLMConfig

EWB_STAGES = ("p0_captions", "p1_events", "p2_verify", "p3_dedup", "p4_questions",
              "p5_prefilter", "p5_score")  # fmt: skip
COMET_STAGES = ("queries", "annotations")
EFFORTS = ("minimal", "low", "medium", "high")


def parse_assignments(items: Iterable[str] | None, option: str, stages: Sequence[str]) -> dict:
    """`["p1=gpt-5-mini", "p5_score=gpt-5.4"]` as `{"p1": ..., "p5_score": ...}`, each key
    checked against the pipeline's stages.

    >>> parse_assignments(["p1=m1", "p5_score=m2"], "--stage-model", EWB_STAGES)
    {'p1': 'm1', 'p5_score': 'm2'}
    """
    known = set(stages) | {s.split("_")[0] for s in stages}
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise UserError(f"{option} wants STAGE=VALUE (e.g. p1=gpt-5-mini), got {item!r}")
        if key not in known:
            raise UserError(f"{option} {item!r}: no stage {key!r} (choose from: "
                            f"{', '.join(sorted(known))})")  # fmt: skip
        out[key] = value
    return out


def _lookup(table: dict[str, str], stage: str) -> str | None:
    return table.get(stage, table.get(stage.split("_")[0]))


@dataclass(frozen=True)
class BatchSettings:
    """Submit each stage's uncached requests as one batch (files + batches API) and wait.

    Attributes:
        poll_s: seconds between status checks.
        timeout_s: give up waiting after this long (the batch id is kept: run again).
        completion_window: the window the server is asked for.
    """

    poll_s: float = 30.0
    timeout_s: float = 24 * 3600.0
    completion_window: str = "24h"


class StageClients:
    """The chat client of each stage, built on first use (one per model and effort).

    Args:
        base: the `--model` settings, used by every stage not named.
        make: builds a (cached) client from an `LLMConfig`.
        models: `{stage or pN: model}`; efforts: `{stage or pN: reasoning effort}`.
        batch: submit requests as batches, or None.
    """

    def __init__(self, base: LLMConfig, make: Callable[[LLMConfig], ChatClient],
                 models: dict[str, str] | None = None, efforts: dict[str, str] | None = None,
                 batch: BatchSettings | None = None):  # fmt: skip
        for effort in [base.reasoning_effort, *(efforts or {}).values()]:
            if effort is not None and effort not in EFFORTS:
                raise UserError(f"reasoning effort {effort!r}: choose from {', '.join(EFFORTS)}")
        self.base, self.make, self.batch = base, make, batch
        self.models, self.efforts = dict(models or {}), dict(efforts or {})
        self._built: dict[tuple[str, str | None], ChatClient] = {}

    def config(self, stage: str) -> LLMConfig:
        """The settings of `stage`'s model."""
        model = _lookup(self.models, stage) or self.base.model
        effort = _lookup(self.efforts, stage) or self.base.reasoning_effort
        return replace(self.base, model=model, reasoning_effort=effort)

    def for_stage(self, stage: str) -> ChatClient:
        cfg = self.config(stage)
        key = (cfg.model, cfg.reasoning_effort)
        if key not in self._built:
            self._built[key] = self.make(cfg)
        return self._built[key]

    @property
    def model(self) -> str:
        return self.base.model

    def close(self) -> None:
        for client in self._built.values():
            close = getattr(client, "close", None)
            if close is not None:
                close()


def stage_client(client, stage: str) -> tuple[ChatClient, BatchSettings | None]:
    """The client `stage` uses, and the batch settings (a plain client: itself, no batch)."""
    if isinstance(client, StageClients):
        return client.for_stage(stage), client.batch
    return client, None
