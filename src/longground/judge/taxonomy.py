"""ExtremeWhenBench's failure taxonomy as the paper ran it: a language model reads each failed
query (query, GT, the system's interval and reply) and names one of five a-priori categories.

The paper names four of them (search_fail, localization_fail, parsing_fail, refusal) and
splits search from localisation at a ±5 min midpoint offset; the fifth is taken here as
"other". The prompt is `prompts/taxonomy_classify.md`; replies go through the response cache,
so a second run asks nothing. A reply that names no category is counted as "unreadable", never
guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..eval.taxonomy import CLASSES
from ..llm.base import ChatClient, Message
from ..llm.prompts import render_prompt
from ..samples import Prediction, Sample

CATEGORIES = ("search_fail", "localization_fail", "parsing_fail", "refusal", "other")
UNREADABLE = "unreadable"
# The rules' classes in the LLM's terms, for the agreement between the two.
RULE_TO_CATEGORY = {
    "parse_fail": "parsing_fail",
    "no_answer": "refusal",
    "search_fail": "search_fail",
    "localization_fail": "localization_fail",
}
MAX_RESPONSE_CHARS = 1500
_OBJECT = re.compile(r"\{.*\}", re.S)


def _spans_text(spans: np.ndarray) -> str:
    return ", ".join(f"[{s:.1f}, {e:.1f}]" for s, e in np.asarray(spans).reshape(-1, 2)) or "none"


def failure_prompt(sample: Sample, prediction: Prediction | None, iou: float,
                   distance_s: float, offset_min: float) -> str:  # fmt: skip
    """The classifier's prompt for one failed query."""
    moments = None if prediction is None else prediction.moments
    first = "none" if moments is None or len(moments) == 0 else _spans_text(moments.spans[:1])
    raw = "(no reply)" if prediction is None or prediction.raw is None else prediction.raw
    distance = "unknown" if not np.isfinite(distance_s) else f"{distance_s:.1f} seconds"
    return render_prompt(
        "taxonomy_classify",
        duration_s=f"{sample.duration_s:.1f}",
        iou=f"{0.0 if not np.isfinite(iou) else iou:.3f}",
        query=sample.query,
        gt=_spans_text(sample.gt.spans),
        prediction=first,
        distance=distance,
        response=json.dumps(raw[:MAX_RESPONSE_CHARS], ensure_ascii=False),
        offset_min=f"{offset_min:g}",
    )


def read_category(text: str) -> tuple[str, str]:
    """`(category, reason)` from the classifier's reply; `("unreadable", why)` when it names
    none of `CATEGORIES`.

    >>> read_category('Sure. {"category": "search_fail", "reason": "wrong hour"}')
    ('search_fail', 'wrong hour')
    >>> read_category("search")[0]
    'unreadable'
    """
    found = _OBJECT.search(text or "")
    try:
        value = json.loads(found.group(0)) if found else None
    except ValueError:
        value = None
    if not isinstance(value, dict) or value.get("category") not in CATEGORIES:
        return UNREADABLE, "the reply names none of the five categories"
    return str(value["category"]), str(value.get("reason", ""))


def classify_failure(client: ChatClient, prompt: str) -> tuple[str, str]:
    """Ask the classifier once; `(category, reason)`."""
    reply = client.complete([Message("user", prompt)], max_tokens=256, temperature=0.0)
    return read_category(reply.text)


def llm_taxonomy(
    client: ChatClient,
    samples: Mapping[str, Sample],
    predictions: Mapping[str, Prediction],
    failures: Sequence[tuple[str, str, float, float]],
    offset_min: float,
) -> dict:
    """Classify each failure with the model and compare with the rules.

    Args:
        client: the classifier (a cached chat client).
        samples, predictions: by qid.
        failures: `(qid, rules class, iou, midpoint distance in seconds)` per failed query.
        offset_min: the search / localisation boundary stated to the model.

    Returns:
        `{"model", "categories", "n", "counts", "fractions", "agreement", "confusion",
        "queries"}`: counts and fractions over `CATEGORIES` plus "unreadable"; agreement is
        the fraction of readable replies equal to the rules' class (mapped by
        `RULE_TO_CATEGORY`); confusion is `{rules class: {category: n}}`.
    """
    names = (*CATEGORIES, UNREADABLE)
    counts = dict.fromkeys(names, 0)
    confusion = {rule: dict.fromkeys(names, 0) for rule in CLASSES}
    rows, agree, readable = [], 0, 0
    for qid, rule, iou, distance_s in failures:
        prompt = failure_prompt(samples[qid], predictions.get(qid), iou, distance_s, offset_min)
        category, reason = classify_failure(client, prompt)
        counts[category] += 1
        confusion[rule][category] += 1
        if category != UNREADABLE:
            readable += 1
            agree += int(RULE_TO_CATEGORY[rule] == category)
        rows.append({"qid": qid, "rules": rule, "llm": category, "reason": reason})
    n = len(failures)
    return {
        "model": getattr(client, "model", ""),
        "categories": list(CATEGORIES),
        "n": n,
        "counts": counts,
        "fractions": {k: (v / n if n else 0.0) for k, v in counts.items()},
        "agreement": agree / readable if readable else None,
        "confusion": confusion,
        "queries": rows,
    }
