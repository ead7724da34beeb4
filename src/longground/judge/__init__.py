"""A Video-LLM's failures sorted by another model: ExtremeWhenBench's LLM failure taxonomy
(`eval --taxonomy --classifier llm`), beside the distance rules of `eval.taxonomy`."""

from .taxonomy import CATEGORIES, RULE_TO_CATEGORY, classify_failure, llm_taxonomy

__all__ = ["CATEGORIES", "RULE_TO_CATEGORY", "classify_failure", "llm_taxonomy"]
