"""How often a query analysis agrees with the hand labels of data/queries/real_queries.jsonl.

    PYTHONPATH=src python perf/query_agreement.py [--analyse MODULE:FUNCTION] [--file F]

`--analyse` names a function of one query text (default `longground.query:analyse`) whose
result has `.target.text` and `.target.route.channel`. For each source (charades-sta,
qvhighlights, activitynet-captions, made-up) the script prints channel agreement (the
analysis's channel equals the label, after `CHANNEL_ALIASES`) and target agreement (the two
targets hold the same content words: lower-cased, articles, determiners and stop words
dropped, a plain plural "s" stripped; `content_words`), then lists every disagreement. The
labels were written by hand from data/queries/README.md's guide, independently of any parser.

Exit 2 with one line when the function cannot be imported or its results lack those fields.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "data/queries/real_queries.jsonl"
DEFAULT_ANALYSE = "longground.query:analyse"

#: Names an analysis may give a channel, read as the label's name.
CHANNEL_ALIASES = {
    "person": "people",
    "persons": "people",
    "face": "people",
    "faces": "people",
    "asr": "speech",
    "transcript": "speech",
    "keyword": "speech",
    "ocr": "text",
    "frames": "visual",
    "frame": "visual",
    "image": "visual",
    "vision": "visual",
    "retrieval": "visual",
}

#: Articles, determiners, pronouns, auxiliaries, prepositions, conjunctions and temporal
#: connectives: words that do not say what the target event is.
STOP_WORDS = frozenset(
    """a an the this that these those some any each every all both either neither no another
    other such own same what which who whom whose i me my we us our you your he him his she her
    it its they them their themselves himself herself itself is are was were be been being am
    do does did doing done has have had having will would shall should can could may might must
    of in on at by for with about into onto from to up down out off over under again further
    then once after before while when whenever as until during afterwards eventually finally
    and or but nor so than too very just also there here where why how not only s""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def content_words(text: str) -> frozenset[str]:
    """The content words of a target: lower-cased, possessive "'s" and stop words dropped, a
    plain plural "s" stripped (not from "ss" or words of three letters or fewer).

    >>> sorted(content_words("The Person's dogs are walking in the parks"))
    ['dog', 'park', 'person', 'walking']
    >>> content_words("a glass") == content_words("the glass")
    True
    """
    words = set()
    for token in _TOKEN.findall(text.lower()):
        token = token.removesuffix("'s")
        if token in STOP_WORDS or not token:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        words.add(token)
    return frozenset(words)


def channel_name(channel: object) -> str:
    """An analysis's channel (a string or an enum) as the label's name."""
    name = str(getattr(channel, "value", channel)).lower().rsplit(".", 1)[-1]
    return CHANNEL_ALIASES.get(name, name)


@dataclass(frozen=True)
class Outcome:
    """One labelled query against the analysis: what each side says."""

    row: dict
    channel: str
    target: str
    error: str = ""

    @property
    def channel_agrees(self) -> bool:
        return not self.error and self.channel == self.row["channel"]

    @property
    def target_agrees(self) -> bool:
        return not self.error and content_words(self.target) == content_words(self.row["target"])


class Unusable(Exception):
    """The analysis cannot be imported or read; the message says why in one line."""


def load_analyse(path: str) -> Callable[[str], object]:
    """The function named `MODULE:FUNCTION`."""
    module_name, _, function = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise Unusable(
            f"cannot import {module_name} ({exc}); is the query analysis here?"
        ) from None
    analyse = getattr(module, function or "analyse", None)
    if not callable(analyse):
        raise Unusable(f"{module_name} has no function {function or 'analyse'!r}")
    return analyse


def judge(row: dict, analyse: Callable[[str], object]) -> Outcome:
    """Run the analysis on one row's query; an exception becomes a disagreement."""
    try:
        result = analyse(row["query"])
    except Exception as exc:  # noqa: BLE001 - any failure is reported per query
        return Outcome(row, "", "", f"{type(exc).__name__}: {exc}")
    try:
        target = result.target
        return Outcome(row, channel_name(target.route.channel), str(target.text))
    except AttributeError as exc:
        raise Unusable(
            f"the analysis's result lacks .target.text/.target.route.channel: {exc}"
        ) from None


def read_rows(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, ValueError) as exc:
        raise Unusable(f"{path}: cannot be read ({exc})") from None


def report(outcomes: list[Outcome], disagreements: bool = True) -> str:
    """Agreement per source, then (optionally) every disagreement."""
    sources = list(dict.fromkeys(o.row["source"] for o in outcomes))
    lines = [f"{'source':<22} {'n':>4}  {'channel':>8}  {'target':>8}"]
    for source in [*sources, "all"]:
        group = [o for o in outcomes if source in ("all", o.row["source"])]
        channel = sum(o.channel_agrees for o in group) / len(group)
        target = sum(o.target_agrees for o in group) / len(group)
        lines.append(f"{source:<22} {len(group):>4}  {channel:>8.1%}  {target:>8.1%}")
    if disagreements:
        lines += ["", "disagreements (label | analysis):"]
        for o in outcomes:
            if o.channel_agrees and o.target_agrees:
                continue
            said = o.error or f"{o.channel} | {o.target!r}"
            lines.append(f"{o.row['id']}: {o.row['query']!r}")
            lines.append(f"    {o.row['channel']} | {o.row['target']!r}  vs  {said}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--analyse", default=DEFAULT_ANALYSE, help="MODULE:FUNCTION")
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--summary", action="store_true", help="leave out the disagreements")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.file)
        analyse = load_analyse(args.analyse)
        outcomes = [judge(row, analyse) for row in rows]
    except Unusable as exc:
        print(f"query_agreement: error: {exc}", file=sys.stderr)
        return 2
    print(report(outcomes, not args.summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
