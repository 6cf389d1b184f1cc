"""Progress of long driver work: a bar with the rate and the time left, for whoever watches.

The driver's ``pipe_dataframe``, ``run`` and ``replay`` report here when they work through more
than ``options.threshold`` rows (100,000 by default: tests and small runs stay quiet). This
layer knows no notebook: it calls a *reporter factory*, ``factory(total, description)``, whose
reporter takes ``update(rows)`` and ``close()``. The default factory is ``tqdm.auto`` (a widget
in Jupyter, a text bar on a terminal), imported on first use, or, without tqdm, a plain text
line on stderr; it reports only where a person watches: in an IPython kernel, or when stderr
is a terminal (``options.enabled = True``/``False`` decides instead). A reporter is always
closed, also when the work is interrupted (the kernel's stop button).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

__all__ = ["PlainBar", "ProgressOptions", "Reporter", "count", "options", "reporter", "tracked"]

T = TypeVar("T")


class Reporter(Protocol):
    """What a factory returns: told the rows done since the last call, then closed."""

    def update(self, n: int) -> Any:
        """``n`` more rows are done."""

    def close(self) -> Any:
        """The work ended (done, failed or interrupted)."""


@dataclass
class ProgressOptions:
    """``threshold``: the fewest rows that report; ``enabled``: ``None`` reports where a person
    watches (a kernel, a terminal); ``factory``: ``None`` for tqdm (or the plain bar)."""

    threshold: int = 100_000
    enabled: bool | None = None
    factory: Callable[[int, str], Reporter] | None = None


options = ProgressOptions()


class _Quiet:
    """The reporter of small or unwatched work: does nothing."""

    def update(self, n: int) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""


_QUIET = _Quiet()


def reporter(total: int, description: str) -> Reporter:
    """The reporter for ``total`` rows of work, or one that does nothing (below the threshold,
    or nobody watching)."""
    if total < options.threshold or not _watched():
        return _QUIET
    factory = options.factory or _default_factory()
    return factory(total, description)


def tracked(total: int, description: str, work: Callable[[Reporter], T]) -> T:
    """``work(reporter)`` for ``total`` rows, the reporter closed however the work ends."""
    bar = reporter(total, description)
    try:
        return work(bar)
    finally:
        bar.close()


def count(items: Any) -> int:
    """How many ``items`` there are, when they know (0 for an iterator: no progress bar)."""
    return len(items) if hasattr(items, "__len__") else 0


def _watched() -> bool:
    if options.enabled is not None:
        return options.enabled
    ipython = sys.modules.get("IPython")  # a kernel has imported it; never imported here
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and "IPKernelApp" in getattr(shell, "config", {}):
        return True  # a Jupyter kernel (a terminal IPython is a terminal: below)
    stderr = sys.stderr
    return bool(stderr is not None and hasattr(stderr, "isatty") and stderr.isatty())


def _default_factory() -> Callable[[int, str], Reporter]:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return PlainBar

    def make(total: int, description: str) -> Reporter:
        return tqdm(total=total, desc=description, unit="rows", unit_scale=True,  # type: ignore[no-any-return]
                    leave=True, mininterval=0.5)

    return make


class PlainBar:
    """A text progress line on stderr (without tqdm): rows done, rate and time left."""

    def __init__(self, total: int, description: str, stream: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.description = description
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()

    def line(self) -> str:
        """``"piping in: 250,000/1,000,000 rows (25%), 125,000 rows/s, 0:06 left"``."""
        elapsed = max(self.clock() - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate else None
        eta = "?" if left is None else f"{int(left) // 60}:{int(left) % 60:02d}"
        percent = 100 * self.done // max(self.total, 1)
        return (f"{self.description}: {self.done:,}/{self.total:,} rows ({percent}%), "
                f"{rate:,.0f} rows/s, {eta} left")

    def update(self, n: int) -> None:
        """Count ``n`` more rows and redraw the line."""
        self.done += n
        self.stream.write("\r" + self.line())
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        self.stream.write("\n")
        self.stream.flush()
