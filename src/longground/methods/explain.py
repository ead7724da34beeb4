"""Why each moment was found, and why the candidates that were not, in one line each.

`explain(grounding)` reads what a method recorded (`Grounding.trace`) and says, per moment,
which channel answered, its score and the threshold it passed, and what was heard, read or
seen; then each candidate that was looked at and turned down, with the number that fell
short. `find --explain` prints these lines; `--trace FILE` keeps the whole record.
"""

from __future__ import annotations

from ..channels.match import KEYWORD_STANDOUT
from ..moments import Moments
from ..timecode import format_time, ordinal
from .base import Grounding
from .footage import COMPOSITED_SHARE


def explain(grounding: Grounding) -> list[str]:
    """`["why: ...", "rejected: ..."]` lines for the moments of `grounding` and the candidates
    it turned down (empty when the method recorded nothing to explain), and which one moment
    the query asked for ("the first time", "the longest shot") and how long they must last."""
    lines = _explain(grounding)
    analysis = grounding.trace.get("analysis", {})
    target = (analysis.get("events") or [{}])[0]
    least, most = target.get("least", 1), target.get("most")
    if lines and target.get("channel") == "visual" and (least > 1 or most is not None):
        lines.append(f"why: not checked: how many at once ({_at_once(least, most)}); the image "
                     "encoder sees whether a thing is there, not how many: --tracks "
                     "--count-objects counts them")  # fmt: skip
    length = analysis.get("length_s")
    if lines and length is not None:
        shortest_s, longest_s = length
        bound = (f"at most {longest_s:g} s" if longest_s is not None
                 else f"at least {shortest_s:g} s")  # fmt: skip
        lines.append(f"why: only moments that last {bound}")
    which = analysis.get("occurrence")
    if lines and which is not None:
        several = isinstance(which, str) and which.startswith(("first ", "last ", "every "))
        asked = "the moments asked for" if several else "one moment asked for"
        lines.append(f"why: {asked}: {_which(which)}")
    return lines


def _which(occurrence: int | str) -> str:
    """ "the first", "the last", "number 3 in time order", "the longest", "the first 2",
    "every 2nd in time order, from the first" (of the moments)."""
    if isinstance(occurrence, str) and occurrence.startswith("every "):
        return f"every {ordinal(int(occurrence.split()[1]))} in time order, from the first"
    if isinstance(occurrence, str):
        return f"the {occurrence}"
    named = {1: "the first", -1: "the last"}
    return named.get(occurrence, f"number {occurrence} in time order")


def _explain(grounding: Grounding) -> list[str]:
    trace = grounding.trace
    hidden = trace.get("hidden")
    if hidden is not None:
        return [f"why: where {hidden['query']!r} is not shown: the gaps of at least "
                f"{hidden['min_s']:g} s between the {len(hidden['shown'])} moments that show it"]
    either = trace.get("either")
    if either is not None:
        parts = ", ".join(f"{e['query']!r} ({len(e['moments'])})" for e in either)
        return [f"why: any of {len(either)} things, the moments of each joined: {parts}"]
    edit = trace.get("edit")
    if edit is not None:
        read = f"read from the pixels on {edit['frames_read']} frames at {edit['fps']:g} fps"
        return [f"why: {edit['rule']}, {read}"]
    adjacent = trace.get("adjacent")
    if adjacent is not None:
        return [f"why: the shot {adjacent['side']} each of the {len(adjacent['shown'])} moments "
                f"of {adjacent['query']!r}: to the nearest cut, at most {adjacent['max_s']:g} s"]
    combined = trace.get("combined")
    if combined is not None:
        return _combined(grounding.moments, combined)
    route = trace.get("route", {})
    channel = route.get("channel")
    if channel in ("speech", "text", "people"):
        lines = _channel(grounding.moments, channel, route, trace.get("channel", {}))
        return lines + _ranked(trace)
    if "verifications" in trace:
        return _visual(grounding.moments, trace)
    if "peak_score" in trace:
        needle, peak = route.get("needle", "the query"), trace["peak_score"]
        threshold = trace.get("threshold", 0.0)
        return [f"why: frame scores of {needle!r} peak at {peak:.3f}, threshold {threshold:.3f}"]
    return []


def _span(start_s: float, end_s: float) -> str:
    return f"{format_time(start_s)}-{format_time(end_s)}"


def _channel(moments: Moments, channel: str, route: dict, details: dict) -> list[str]:
    needle = route.get("needle", "")
    margin = route.get("margin")
    decided = f"rule {route.get('rule')}" + ("" if margin is None else f", margin {margin:.2f}")
    lines = [f"why: the {channel} channel, needle {needle!r} ({decided})"]
    if details.get("any"):
        lines.append(_any(details))
    elif channel == "speech":
        for seg in details.get("matched", []):
            how = "said word for word" if seg["exact"] else (
                f"spotted {seg['spotted']}, above every null word ({_null(seg)})"
                + _standout(seg))
            lines.append(f"why: cue {seg['segment']}: {how}: {seg['words']!r}")
        for seg in details.get("rejected", []):
            lines.append(f"rejected: cue {seg['segment']}: spotted {seg['spotted']} but "
                         f"{_rejected_why(seg)}: {seg['words']!r}")  # fmt: skip
        if not details.get("matched") and not details.get("rejected"):
            lines.append(_not_heard(needle, details))
    elif channel == "text":
        read = ", ".join(repr(t) for t in details.get("matched", []))
        held = f"a {details['kind']} pattern" if details.get("kind") else "it (similarity >= 0.8)"
        lines.append(f"why: lines read that hold {held}: {read or 'none'}")
    else:
        counted = details.get("counted", "persons")
        if "at_once" in details:
            counted += f" ({_at_once(*details['at_once'])})"
        lines.append(f"why: {counted} on {details.get('frames_with', 0)}"
                     f" of {details.get('frames', 0)} sampled frames")  # fmt: skip
    return lines + _moment_lines(moments, channel)


def _at_once(least: int, most: int | None) -> str:
    """ "2 at once", "2 or more at once", "1 to 3 at once"."""
    if least == most:
        return f"{least} at once"
    return f"{least} or more at once" if most is None else f"{least} to {most} at once"


def _moment_lines(moments: Moments, label: str) -> list[str]:
    """One line per moment: its span, what answered it and its score."""
    scores = moments.scores if moments.scores is not None else [None] * moments.count
    return [f"why: {_span(start_s, end_s)}: {label}"
            + ("" if score is None else f", score {score:.3f}")
            for (start_s, end_s), score in zip(moments.spans, scores)]  # fmt: skip


def _combined(moments: Moments, combined: dict) -> list[str]:
    """The lines of a query whose events went to their own channels: what each found, and
    what the relation kept."""
    lines = []
    for event in combined["subevents"]:
        where = "image encoder" if event["channel"] == "visual" else f"{event['channel']} channel"
        n = len(event["moments"])
        lines.append(f"why: {event['role']} {event['text']!r} from the {where}: "
                     f"{n} moment{'' if n == 1 else 's'}")  # fmt: skip
    relation, kept = combined["relation"], f"{combined['count']} of the target's moments kept"
    if relation == "between times":
        lines.append(f"why: inside {_span(*combined['window_s'])}: {kept}")
    elif relation != "none":
        reach = combined.get("reach_s")
        within = "" if reach is None else f" (within {reach:g} s)"
        lines.append(f"why: relation {relation!r}{within}: {kept}")
    return lines + _moment_lines(moments, "combined")


def _any(details: dict) -> str:
    """The line of an answer that asked for a channel itself, with no words named."""
    if details["any"] == "text":
        return f"why: any on-screen text: every line read ({details.get('lines', 0)} lines)"
    if details["any"] == "silence":
        return (f"why: silence: the gaps of at least {details['min_s']:g} s around the "
                f"{details.get('segments', 0)} speech cues")
    return f"why: any speech: the {details.get('segments', 0)} speech cues"


def _null(seg: dict) -> str:
    """The best null word the keyword spotter heard in a cue, for a speech line."""
    word, score = seg.get("null") or (None, None)
    return "it heard none" if word is None else f"best: {word!r} {score}"


def _standout(seg: dict) -> str:
    """How far a kept spotted cue stands above the needle's median over the other cues."""
    standout = seg.get("standout")
    return "" if standout is None else f" and {standout} above its median over the other cues"


def _rejected_why(seg: dict) -> str:
    """Why a spotted cue was not kept: a null word fit it better, or the needle fits the
    video's other cues about as well (`match.KEYWORD_STANDOUT`)."""
    word, score = seg.get("null") or (None, None)
    if word is not None and score >= seg["spotted"]:
        return f"a null word fits better ({_null(seg)})"
    return (f"it fits the other cues about as well (only {seg['standout']} above its median "
            f"there, below {KEYWORD_STANDOUT})")  # fmt: skip


def _not_heard(needle: str, details: dict) -> str:
    """The line of a speech answer that no cue came near: how many cues were listened to,
    and why the keyword spotter could not help."""
    segments = details.get("segments", 0)
    if not segments:
        return "rejected: the video has no speech to listen to"
    spotter = details.get("not_spotted") or "the keyword spotter heard it in none"
    return (f"rejected: none of the {segments} speech cues holds {needle!r}: no transcript "
            f"has it word for word, and {spotter}")


def _ranked(trace: dict) -> list[str]:
    """The line of a people answer narrowed to one person by rank ("the second person")."""
    told = trace.get("identity")
    if told is None:
        return []
    return [f"why: {told['face_tracks']} face tracks told apart as {told['people']} people by "
            f"their looks (cosine >= {told['same_at']:.2f}); kept person {told['rank']}"]


def _classes(text: str) -> list[str]:
    """What the offline encoder reads the text as: the ImageNet classes it names and their
    confusable neighbours (near misses are decided against them)."""
    from ..encoders.class_words import named_classes, neighbour_classes
    from ..encoders.imagenet_labels import imagenet_lemmas

    named = named_classes(text)
    if not named:
        return [f"why: {text!r} names no ImageNet class: judged by the meaning of its words"]
    names = imagenet_lemmas()

    def listed(classes: tuple[int, ...]) -> str:
        shown = ", ".join(names[i][0] for i in classes[:6])
        return shown + (f" and {len(classes) - 6} more" if len(classes) > 6 else "")

    classes = "class" if len(named) == 1 else "classes"
    lines = [f"why: {text!r} names {len(named)} ImageNet {classes}: {listed(named)}"]
    neighbours = neighbour_classes(named)
    if neighbours:
        lines.append(f"why: confusable with {listed(neighbours)}: where those are clearly seen and "
                     "more probable, only the named classes' own probability counts")  # fmt: skip
    return lines


def _null_text(target: str, decision: dict) -> list[str]:
    """How far the target's best event stands out against its strongest null text (the
    everyday vocabulary or a confusable neighbour), and what that decided."""
    null, null_z = decision.get("null") or (None, None)
    standout = decision.get("standout")
    if null is None or standout is None:
        return []
    said = (f"its best event stands {standout:.1f} robust SDs above its median over the video, "
            f"{null!r} {null_z:.1f}")  # fmt: skip
    if standout >= null_z:
        return [f"why: {said}: the threshold may be lowered to the video's own level"]
    kept = ("keeps the absolute threshold" if decision.get("threshold") is not None
            else "is not seen in whole frames or their halves")  # fmt: skip
    return [f"why: {said}: {target!r} {kept}"]


def _visual(moments: Moments, trace: dict) -> list[str]:
    """The agent's verified candidates (the moments' sources) and its rejected ones."""
    plan = trace.get("plan", {})
    decision = trace.get("decision", {}).get("texts", {}).get(plan.get("target"), {})
    threshold = decision.get("threshold")
    target = plan.get("target", "")
    lines = [f"why: the image encoder, target {target!r}"
             + ("" if threshold is None else f" (presence threshold {threshold:.3f})")]  # fmt: skip
    scene = trace.get("scene", {})
    if "uniform_frames" in scene:
        lines.append(f"why: read as {scene['scene']} footage: {scene['uniform_frames']:.0%} of "
                     f"{scene['frames']} frames have a one-colour edge (composited from "
                     f"{COMPOSITED_SHARE:.0%})")  # fmt: skip
    lines += _classes(target) + _null_text(target, decision)
    actions = trace.get("graph", {}).get("actions", [])
    for v in trace.get("verifications", []):
        node = v.get("candidate")
        span = actions[node] if isinstance(node, int) and node < len(actions) else {}
        where = _span(span["start_s"], span["end_s"]) if "start_s" in span else f"node {node}"
        if v.get("verified"):
            entry = v.get("entry") or {}
            lines.append(f"why: {where}: verified, p {entry.get('confidence', 0):.2f}")
        else:
            parts = v.get("details") or {}
            shown = ", ".join(
                f"{k} {val:.2f}" for k, val in parts.items() if isinstance(val, float)
            )
            lines.append(f"rejected: {where}: {v.get('reason')}" + (f" ({shown})" if shown else ""))
    return lines
