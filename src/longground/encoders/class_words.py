"""Query words to ImageNet classes, through WordNet hypernyms (the label bridge's second path).

The label mix (`label_bridge.label_mix`) sees a class only when it is among a frame's top-k and
its name reads like the query: "a horse" and "a photo of a sorrel" are far apart for a sentence
model, and a silhouette the classifier reads as a black dog puts "sorrel" at rank 60 to 80.
Every ImageNet class is a WordNet synset, so a query word that is one of a class's lemmas or
hypernym lemmas ("horse" for sorrel, "motorcycle" for moped, "cat" for tabby) names that class
directly; the frame's probability mass on the named classes is then evidence of its own
(`class_score`), read from the full probability vector the index keeps.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from .imagenet_labels import imagenet_hypernyms, imagenet_lemmas

# A word naming more classes than this is too general to pick anything out ("animal" names 398,
# "dog" 118, "bird" 59).
MAX_CLASSES = 150
# Words of queries that are WordNet hypernyms of some class but never name what is shown:
# "person" and its synonyms name ImageNet's only people, a groom, a scuba diver and a
# ballplayer (a query about a person means anyone: the people channel), and "match", "peer",
# "equal", "associate", "cause" reach the ballplayer through senses of "person" no query
# means ("a match" is struck).
IGNORED = frozenset({"time", "thing", "object", "whole", "unit", "screen", "frame", "shot",
                     "person", "individual", "someone", "somebody", "mortal", "soul", "match",
                     "peer", "equal", "compeer", "associate", "cause"})  # fmt: skip
# Probability per named class that reads as the bridge's "present" threshold (a word naming n
# classes needs n times that mass: "dog" names 118 breeds, whose summed probability is 0.1 on
# frames without any dog), and bridge units per decade of probability (docs/encoders.md).
PRESENT_P = 0.01
UNITS_PER_DECADE = 1.2
LOGP_FLOOR = -20.0


@lru_cache(maxsize=1)
def _all_word_classes() -> dict[str, frozenset[int]]:
    """Lemma -> every class it names (own lemmas and hypernym lemmas)."""
    found: dict[str, set[int]] = {}
    for index, (lemmas, parents) in enumerate(zip(imagenet_lemmas(), imagenet_hypernyms())):
        for lemma in {*(w.lower() for w in lemmas), *parents}:
            found.setdefault(lemma, set()).add(index)
    return {lemma: frozenset(classes) for lemma, classes in found.items()}


@lru_cache(maxsize=1)
def _word_classes() -> dict[str, tuple[int, ...]]:
    """Lemma -> the classes it names, general ones dropped."""
    return {
        lemma: tuple(sorted(classes))
        for lemma, classes in _all_word_classes().items()
        if len(classes) <= MAX_CLASSES and lemma not in IGNORED
    }


def person_classes() -> frozenset[int]:
    """ImageNet's classes that are people (a groom, a scuba diver, a ballplayer).

    >>> len(person_classes())
    3
    """
    return _all_word_classes()["person"]


def too_general(word: str) -> bool:
    """A WordNet word over more than `MAX_CLASSES` classes ("animal", "organism"): a word of
    its own, not another name for one of the vocabulary's words.

    >>> too_general("animal"), too_general("dog"), too_general("kitty")
    (True, False, False)
    """
    return len(_all_word_classes().get(word.lower(), ())) > MAX_CLASSES


def vocabulary() -> tuple[str, ...]:
    """Every word or two-word phrase that names classes (sorted).

    >>> "motorcycle" in vocabulary(), "kitty" in vocabulary()
    (True, False)
    """
    return tuple(sorted(_word_classes()))


@lru_cache(maxsize=256)
def neighbour_classes(classes: tuple[int, ...]) -> tuple[int, ...]:
    """The classes a query's `classes` are most easily confused with: the others under their
    nearest WordNet hypernym that also covers other classes ("car" -> the other motor
    vehicles: trucks, mopeds, go-karts; "cat" -> the other felines), at most `MAX_CLASSES`.

    >>> from longground.encoders.imagenet_labels import imagenet_lemmas
    >>> names = {imagenet_lemmas()[i][0] for i in neighbour_classes(named_classes("a car"))}
    >>> "moped" in names, "cab" in names
    (True, False)
    """
    wanted = frozenset(classes)
    if not wanted:
        return ()
    table = _all_word_classes()
    best: frozenset[int] | None = None
    for index in wanted:
        for lemma in imagenet_hypernyms()[index]:
            group = table.get(lemma, frozenset())
            if wanted < group and len(group) - len(wanted) <= MAX_CLASSES:
                if best is None or len(group) < len(best):
                    best = group
                break
    return tuple(sorted(best - wanted)) if best else ()


@lru_cache(maxsize=256)
def named_classes(text: str) -> tuple[int, ...]:
    """The ImageNet classes a query names by a word or a two-word phrase (sorted indices).

    >>> from longground.encoders.imagenet_labels import imagenet_lemmas
    >>> [imagenet_lemmas()[i][0] for i in named_classes("the black horse")]
    ['sorrel']
    >>> len(named_classes("cars on a busy street")), named_classes("a teddy bear")
    (12, (850,))
    >>> named_classes("the moon at night")
    ()
    >>> named_classes("the horse's silhouette") == named_classes("the horse silhouette")
    True
    >>> named_classes("a woman covering her face with her hand"), named_classes("someone")
    ((), ())
    """
    table = _word_classes()
    # a possessive names the thing too: "the horse's silhouette", "the dogs' bowls"
    tokens = re.findall(r"[a-z][a-z'-]*", text.lower().replace("’", "'"))
    words = [_singular(w.removesuffix("'s").rstrip("'"), table) for w in tokens]
    found: set[int] = set()
    verbs = set(_verbs(words))  # "covering her face" names no covering
    covered: set[int] = set()
    for at, pair in enumerate(zip(words, words[1:])):
        if " ".join(pair) in table and not verbs & {at, at + 1}:
            found.update(table[" ".join(pair)])
            covered.update((at, at + 1))
    for at, word in enumerate(words):
        if at not in covered | verbs:
            found.update(table.get(word, ()))
    return tuple(sorted(found))


#: Words after which a word in -ing is a verb: an object ("covering her face", "building a
#: wall") or a form of "be" before it ("is fixing").
_OBJECT_WORDS = frozenset("a an the his her their its my your our this that these those some "
                          "every each him them it".split())  # fmt: skip
_BE = frozenset("is are was were be been being".split())


def _verbs(words: list[str]) -> list[int]:
    """Positions of words in -ing used as verbs, which name no thing even where WordNet has
    a noun of that spelling ("covering", "building", "dressing").

    >>> _verbs("a woman covering her face".split()), _verbs("a floor covering".split())
    ([2], [])
    >>> _verbs("the man is building".split()), _verbs("a tall building in the city".split())
    ([3], [])
    """
    return [at for at, word in enumerate(words) if word.endswith("ing") and (
        (at + 1 < len(words) and words[at + 1] in _OBJECT_WORDS)
        or (at > 0 and words[at - 1] in _BE))]  # fmt: skip


def _singular(word: str, table: dict) -> str:
    """`word` without a plural "s" when only the singular names classes ("cars" -> "car")."""
    if word not in table and word.endswith("s") and word[:-1] in table:
        return word[:-1]
    return word


def class_mass(logp: np.ndarray, classes: tuple[int, ...]) -> np.ndarray:
    """`(...)` the probability the classifier puts on `classes` together (0 when empty).

    >>> round(float(class_mass(class_logp(np.array([[0.2, 0.3, 0.5]])), (0, 2))[0]), 4)
    0.7
    """
    if not classes:
        return np.zeros(np.shape(logp)[:-1], np.float32)
    picked = np.asarray(logp, dtype=np.float64)[..., list(classes)]
    return np.exp(picked).sum(axis=-1).astype(np.float32)


def class_logp(probs: np.ndarray) -> np.ndarray:
    """`(N, C)` natural-log probabilities, floored at `LOGP_FLOOR` (kept in half precision)."""
    return np.maximum(np.log(np.maximum(probs, 1e-30)), LOGP_FLOOR).astype(np.float32)


def class_score(logp: np.ndarray, classes: tuple[int, ...]) -> np.ndarray:
    """Evidence that a frame shows one of `classes`, in the bridge's units.

    Args:
        logp: `(..., C)` log-probabilities from `class_logp`.
        classes: class indices from `named_classes` (not empty).

    Returns:
        `(...)` float32: `UNITS_PER_DECADE * log10(p / (n * PRESENT_P)) + 2.4`, p the
        probability mass on the n `classes`; 2.4 (the bridge's presence threshold) at a mean
        of `PRESENT_P` per class.

    >>> lp = class_logp(np.array([[0.01, 0.99], [0.001, 0.999]]))
    >>> class_score(lp, (0,)).astype(float).round(2).tolist()
    [2.4, 1.2]
    """
    picked = np.asarray(logp, dtype=np.float64)[..., list(classes)]
    top = picked.max(axis=-1, keepdims=True)
    mass = top[..., 0] + np.log(np.exp(picked - top).sum(axis=-1))
    decades = (mass - np.log(PRESENT_P * len(classes))) / np.log(10.0)
    return (UNITS_PER_DECADE * decades + 2.4).astype(np.float32)
