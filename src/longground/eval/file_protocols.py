"""Protocols that read their own files: their scores need fields only their format has
(QVHighlights' window scores and clip saliency), so they do not go through `Sample` and
`Prediction`. Spatio-temporal grounding (`stvg`) reads boxes the same way.
`longground eval --protocol NAME` asks this registry before the `Protocol` one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar


class FileProtocol(ABC):
    """A scoring protocol over whole files of its own format."""

    name: ClassVar[str]

    @abstractmethod
    def score_files(self, gt: Path, pred: Path) -> Any:
        """Read and score both files (a `UserError` naming the file and line when unreadable)."""

    @abstractmethod
    def to_json(self, scores: Any) -> dict:
        """The published JSON layout of the scores."""

    @abstractmethod
    def table(self, scores: Any) -> str:
        """The scores as text tables."""

    @abstractmethod
    def rows(self, scores: Any) -> list[dict]:
        """One row per query, for `--per-query`."""


FILE_PROTOCOLS: dict[str, FileProtocol] = {}


def file_protocol(name: str) -> FileProtocol | None:
    """The protocol `name` when it reads its own files, else None.

    >>> file_protocol("qvhighlights").name, file_protocol("comet")
    ('qvhighlights', None)
    """
    return FILE_PROTOCOLS.get(name)


class QVHighlightsFiles(FileProtocol):
    """Moment-DETR's evaluation: moment mAP and R1 by length, highlight mAP and HIT@1."""

    name = "qvhighlights"

    def score_files(self, gt: Path, pred: Path) -> Any:
        from .qvhighlights import load_and_score

        return load_and_score(gt, pred)

    def to_json(self, scores: Any) -> dict:
        from .qvhighlights import published

        return published(scores.metrics())

    def table(self, scores: Any) -> str:
        from .qvhighlights_table import format_qvhighlights

        return format_qvhighlights(scores)

    def rows(self, scores: Any) -> list[dict]:
        return scores.rows()


class StvgFiles(FileProtocol):
    """Spatio-temporal grounding (HC-STVG, VidSTG): m_tIoU, m_vIoU, vIoU@0.3 and vIoU@0.5."""

    name = "stvg"

    def score_files(self, gt: Path, pred: Path) -> Any:
        from .stvg import load_and_score

        return load_and_score(gt, pred)

    def to_json(self, scores: Any) -> dict:
        return scores.metrics()

    def table(self, scores: Any) -> str:
        from .stvg import format_stvg

        return format_stvg(scores)

    def rows(self, scores: Any) -> list[dict]:
        return scores.rows()


FILE_PROTOCOLS[QVHighlightsFiles.name] = QVHighlightsFiles()
FILE_PROTOCOLS[StvgFiles.name] = StvgFiles()
