"""kslab's warnings about a user's records, shown in the cell that caused them.

Kafka Streams logs what it does to a record it cannot use (a record late for an expired
window, a null key a join skips, a deserialization error a handler skips) and counts it. In a
notebook a log line goes to the terminal that started Jupyter, where nobody looks. With the
extension loaded, a warning that kslab's loggers emit on the thread running a cell is held
while the cell runs and shown under it when it ends: one line per kind of warning (Kafka's own
message, so it can be searched for), with how many times it came and the first record it
named. Warnings from other threads (the live runtime's stream threads) go where they went
before. Only a Jupyter kernel installs it (``load_ipython_extension``): a terminal IPython
already shows a log line where the user looks. Invariant: a held warning is never lost: it is
shown in the cell, or, if showing it fails, passed on to the loggers' usual handlers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from html import escape
from typing import Any

__all__ = ["CellWarnings", "install"]

LOGGER = "kslab"
_SHOWN_PER_CELL = 8  # kinds of warning listed under one cell; the rest are counted


class CellWarnings(logging.Handler):
    """A handler on the ``kslab`` logger that holds the running cell's warnings."""

    def __init__(self, show: Callable[[dict[str, str]], None]) -> None:
        super().__init__(logging.WARNING)
        self.show = show
        self.thread: int | None = None  # the thread running the current cell, while it runs
        self.held: dict[Any, list[logging.LogRecord]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        """Hold a warning of the cell's thread; pass any other on to the usual handlers."""
        if self.thread is not None and record.thread == self.thread:
            self.held.setdefault(record.msg, []).append(record)
        else:
            _pass_on(record)

    def cell_started(self, *_: Any) -> None:
        """IPython's ``pre_run_cell``: hold warnings of this thread from now on."""
        self.held = {}
        self.thread = threading.get_ident()

    def cell_finished(self, *_: Any) -> None:
        """IPython's ``post_run_cell``: show what was held under the cell, then stop holding."""
        held, self.held, self.thread = self.held, {}, None
        if not held:
            return
        try:
            self.show(summary_bundle(held))
        except Exception:  # showing failed: the warnings still reach a log
            for records in held.values():
                for record in records:
                    _pass_on(record)


def summary_bundle(held: dict[Any, list[logging.LogRecord]]) -> dict[str, str]:
    """The text and HTML of one cell's warnings: a line per kind (its first message), with
    how many times it came."""
    kinds = [(records[0].getMessage(), len(records))
             for records in list(held.values())[:_SHOWN_PER_CELL]]
    total = sum(len(records) for records in held.values())
    more = len(held) - len(kinds)
    head = f"kslab: {total} warning{'s' if total > 1 else ''} while this cell ran"
    times = [f" [{count} times; the first shown]" if count > 1 else "" for _, count in kinds]
    text = "\n".join([head, *(f"  {first}{t}" for (first, _), t in zip(kinds, times,
                                                                       strict=True))])
    items = "".join(f"<li><code>{escape(first)}</code>{escape(t)}</li>"
                    for (first, _), t in zip(kinds, times, strict=True))
    if more > 0:
        text += f"\n  and {more} other kind(s)"
        items += f"<li>and {more} other kind(s)</li>"
    html = (f'<details class="kslab-cell-warnings" style="color:#8a5300;font-size:12px">'
            f"<summary>{escape(head)}</summary><ul>{items}</ul></details>")
    return {"text/plain": text, "text/html": html}


def _pass_on(record: logging.LogRecord) -> None:
    """Give ``record`` to the handlers above the ``kslab`` logger, as propagation would."""
    logger = logging.getLogger(LOGGER).parent
    if logger is not None:
        logger.handle(record)


def install(ipython: Any) -> CellWarnings:
    """Hold kslab's warnings per cell in ``ipython`` (once per kernel; idempotent)."""
    logger = logging.getLogger(LOGGER)
    for handler in logger.handlers:
        if isinstance(handler, CellWarnings):
            return handler
    from IPython.display import display

    handler = CellWarnings(lambda bundle: display(bundle, raw=True))
    logger.addHandler(handler)
    logger.propagate = False  # the handler passes on what it does not hold
    ipython.events.register("pre_run_cell", handler.cell_started)
    ipython.events.register("post_run_cell", handler.cell_finished)
    return handler
