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
    text = resources.files("longground").joinpath("data/imagenet_classes.tsv").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    if len(rows) != N_CLASSES or any(len(row) != 2 for row in rows):
        raise RuntimeError("data/imagenet_classes.tsv is damaged: reinstall longground")
    return tuple(tuple(name.strip() for name in row[1].split(",")) for row in rows)


def class_prompts(template: str = "a photo of a {}") -> list[str]:
    """One sentence per class, from its first lemma.

    >>> class_prompts()[:2]
    ['a photo of a tench', 'a photo of a goldfish']
    """
    return [template.format(lemmas[0]) for lemmas in imagenet_lemmas()]
