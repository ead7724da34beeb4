"""One report figure: a matplotlib `Figure` with its alt text and caption, saved as PNG + PDF."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import require

PNG_DPI = 110


@dataclass
class ReportFigure:
    """A figure of the report.

    Attributes:
        name: file stem (`figures/<name>.png` and `.pdf`).
        title: heading above it on the page.
        alt: alt text: what the image shows, for a reader who cannot see it.
        caption: what the figure shows and how to read it.
        figure: the matplotlib `Figure` (dropped once saved).
    """

    name: str
    title: str
    alt: str
    caption: str
    figure: object = None

    def save(self, folder: Path) -> dict:
        """Write `<name>.png` and `<name>.pdf` into `folder`; returns what the page needs
        (name, title, alt, caption, png, pdf as paths relative to the report)."""
        self.figure.savefig(folder / f"{self.name}.png", dpi=PNG_DPI)
        if self.figure.get_layout_engine() is not None:
            self.figure.set_layout_engine("none")  # keep the layout just computed for the PNG
        self.figure.savefig(folder / f"{self.name}.pdf")
        self.figure = None
        rel = f"{folder.name}/{self.name}"
        return {
            "name": self.name,
            "title": self.title,
            "alt": self.alt,
            "caption": self.caption,
            "png": f"{rel}.png",
            "pdf": f"{rel}.pdf",
        }


def new_figure(
    width_in: float, height_in: float, ncols: int = 1, nrows: int = 1, layout="constrained"
):
    """A matplotlib `Figure` (no pyplot, no global state) and its axes array `(nrows, ncols)`;
    `layout=None` leaves the placement to the caller (`subplots_adjust`), which is faster."""
    require("matplotlib", "report")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width_in, height_in), layout=layout)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


@dataclass(frozen=True)
class LeftOut:
    """A figure the report leaves out, and why in one line (shown on the page instead)."""

    name: str
    title: str
    reason: str

    def save(self, folder: Path) -> dict:
        """What the page needs: the figure's name and title, and the reason."""
        return {"name": self.name, "title": self.title, "reason": self.reason}


def legend_above(fig, ax) -> None:
    """The legend of `ax`'s labelled artists above the panels, in a row, where it covers no
    bar or line (a constrained-layout figure makes room for it)."""
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=min(4, len(names)),
               fontsize="small", frameon=False)  # fmt: skip
