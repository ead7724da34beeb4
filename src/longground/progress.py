"""Progress bars for long work: count, rate and ETA on a terminal, silent when piped.

Every long-running command uses these, so the look is the same everywhere and nothing is
written to stderr when it is a file or a pipe (logs stay clean).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress_bar(
    total: float | None = None,
    desc: str = "",
    unit: str = "it",
    enabled: bool = True,
):
    """A tqdm bar on stderr showing count, rate (`unit`/s) and ETA; use `.update(n)`.

    It draws only when `enabled` and stderr is a terminal; otherwise it is a `SilentBar`
    that still counts (`.n`). Use it as a context manager so it closes.

    Args:
        total: expected count (None: no ETA).
        desc: label in front of the bar.
        unit: what is counted, e.g. "frame".
        enabled: False silences it even on a terminal.

    >>> with progress_bar(total=3, desc="demo", unit="frame") as bar:
    ...     bar.update(3)
    >>> bar.n
    3
    """
    if not (enabled and _is_terminal(sys.stderr)):
        return SilentBar(total)
    from tqdm import tqdm

    # A terminal that reports a 0x0 size (some ptys) would hide the bar; assume 80x24 there.
    columns, lines = shutil.get_terminal_size()
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        ncols=columns,
        nrows=lines,
        smoothing=0.1,
        leave=True,
    )


class SilentBar:
    """What `progress_bar` returns off a terminal: counts, draws nothing."""

    def __init__(self, total: float | None = None):
        self.total, self.n = total, 0

    def update(self, n: float = 1) -> None:
        self.n += n

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        pass

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> SilentBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def track(
    items: Iterable[T],
    total: float | None = None,
    desc: str = "",
    unit: str = "it",
    enabled: bool = True,
) -> Iterator[T]:
    """Iterate `items`, advancing a `progress_bar` by one per item.

    >>> list(track(range(3), desc="demo"))
    [0, 1, 2]
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)
    with progress_bar(total, desc, unit, enabled) as bar:
        for item in items:
            yield item
            bar.update(1)


def note(line: str) -> None:
    """Write one line on stderr without breaking a progress bar drawn there.

    >>> note("longground: warning: demo")
    """
    if _is_terminal(sys.stderr):
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)
