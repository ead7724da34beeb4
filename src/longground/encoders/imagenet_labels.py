"""The 1000 ImageNet-1k class names shipped with the package, in classifier output order.

`data/imagenet_classes.tsv` holds one `synset<TAB>lemma, lemma, ...` line per class (WordNet
lemmas, taken from timm's data files, Apache-2.0); lines starting with `#` are comments.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

N_CLASSES = 1000


@lru_cache(maxsize=1)
def imagenet_lemmas() -> tuple[tuple[str, ...], ...]:
    """The WordNet lemmas of each class, most common name first.

    >>> lemmas = imagenet_lemmas()
    >>> len(lemmas), lemmas[0][0], lemmas[281][0]
    (1000, 'tench', 'tabby')
    """
    return tuple(names for _, names in _rows("imagenet_classes.tsv"))


@lru_cache(maxsize=1)
def imagenet_synsets() -> tuple[str, ...]:
    """The WordNet 3.0 noun synset id of each class ("n01440764").

    >>> imagenet_synsets()[339]
    'n02389026'
    """
    return tuple(synset for synset, _ in _rows("imagenet_classes.tsv"))


@lru_cache(maxsize=1)
def imagenet_hypernyms() -> tuple[tuple[str, ...], ...]:
    """The lemmas of every WordNet hypernym of each class, nearest first (lower case).

    `data/imagenet_hypernyms.tsv`, written by `perf/imagenet_hypernyms.py` from WordNet 3.0.

    >>> imagenet_lemmas()[339][0], imagenet_hypernyms()[339][:2]
    ('sorrel', ('horse', 'equus caballus'))
    """
    rows = _rows("imagenet_hypernyms.tsv")
    if tuple(synset for synset, _ in rows) != imagenet_synsets():
        raise RuntimeError("data/imagenet_hypernyms.tsv is damaged: reinstall longground")
    return tuple(names for _, names in rows)


def _rows(name: str) -> list[tuple[str, tuple[str, ...]]]:
    """`(synset, names)` per class of a `synset<TAB>name, name, ...` file in `data/`."""
    text = resources.files("longground").joinpath(f"data/{name}").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    if len(rows) != N_CLASSES or any(len(row) != 2 for row in rows):
        raise RuntimeError(f"data/{name} is damaged: reinstall longground")
    return [(row[0], tuple(n.strip() for n in row[1].split(",") if n.strip())) for row in rows]


def class_prompts(template: str = "a photo of a {}") -> list[str]:
    """One sentence per class, from its first lemma.

    >>> class_prompts()[:2]
    ['a photo of a tench', 'a photo of a goldfish']
    """
    return [template.format(lemmas[0]) for lemmas in imagenet_lemmas()]
