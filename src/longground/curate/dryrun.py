"""`--dry-run`: a stage's prompts, number of calls and estimated tokens, with no network.

The messages are built exactly as a real run builds them (frames are decoded locally), but
nothing is sent and nothing is written. Stages that depend on an earlier stage's answers
cannot be planned exactly; the pipeline describes them with an upper bound instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UserError
from .estimate import message_tokens
from .stage import Stage


@dataclass
class StagePlan:
    """What a stage would ask.

    Attributes:
        stage: its name.
        calls: requests it would make.
        prompt_tokens: estimated prompt tokens over all calls.
        completion_tokens_max: the answer budget over all calls (an upper bound).
        images: images sent over all calls.
        prompts: `(key, text)` of each call's text, in order.
        input_errors: `key: error` for items that would fail before any request.
    """

    stage: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens_max: int = 0
    images: int = 0
    prompts: list[tuple[str, str]] = field(default_factory=list)
    input_errors: list[str] = field(default_factory=list)


def plan_stage(stage: Stage) -> StagePlan:
    """Build every call's messages and count them, sending nothing."""
    plan = StagePlan(stage.name)
    for call in stage.calls():
        try:
            messages = call.build()
        except (UserError, OSError, ValueError) as exc:
            plan.input_errors.append(f"{call.key}: {' '.join(str(exc).split())}")
            continue
        plan.calls += 1
        plan.prompt_tokens += message_tokens(messages)
        plan.completion_tokens_max += call.max_tokens
        plan.images += sum(len(m.images) for m in messages)
        plan.prompts.append((call.key, "\n".join(m.text for m in messages)))
    return plan


def format_plan(plan: StagePlan, show_prompts: bool = True) -> str:
    """The plan for people: each prompt under a header, then the totals.

    >>> print(format_plan(StagePlan("queries", 2, 900, 512, 16), show_prompts=False))
    stage queries: 2 calls, 16 images, ~900 prompt tokens, <= 512 completion tokens
    """
    lines = []
    if show_prompts:
        for key, text in plan.prompts:
            lines += [f"--- {plan.stage} {key} ---", text.rstrip(), ""]
    lines += [f"{plan.stage}: input error: {e}" for e in plan.input_errors]
    lines.append(
        f"stage {plan.stage}: {plan.calls} calls, {plan.images} images, "
        f"~{plan.prompt_tokens:,} prompt tokens, <= {plan.completion_tokens_max:,} "
        "completion tokens"
    )
    return "\n".join(lines)
