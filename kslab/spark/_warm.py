"""Open tasks kept in a Spark Python worker between micro-batches, trusted only while Spark
state says they are current.

Spark reuses a Python worker for later tasks (``spark.python.worker.reuse``, on by default) and
runs one task at a time in it, so the core task one micro-batch built for a group (its stores'
entries in memory, its clocks, its compiled batch plans) can serve that group's next micro-batch
in the same worker instead of being rebuilt and read back from Spark state. Trust comes from the
state: each micro-batch ends by writing a fresh random token beside the task's clocks in Spark
state, committed together with the stores' entries (one state store commit, or none), and the
worker keeps the open task under that token. The next micro-batch takes the open task only when
the token it reads from Spark state is the one kept. A micro-batch that failed or was cut short
after keeping (its state rolled back), a restart from the checkpoint (new workers), a group run
meanwhile by another worker (the state moved on): each reads another token, and the task is
built from Spark state as before. An entry is taken out while a micro-batch uses it, so one
that raises leaves nothing behind; at most ``KEPT`` entries stay, the least recently used
closed first.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from typing import Any, Protocol

__all__ = ["KEPT", "Closable", "keep", "new_token", "take"]

KEPT = 8  # open tasks one worker keeps (each holds its stores' entries in memory)


class Closable(Protocol):
    """What is kept: closed when dropped."""

    def close(self) -> None:
        """Release what it holds."""


_OPEN: OrderedDict[tuple[Any, ...], tuple[str, Closable]] = OrderedDict()


def new_token() -> str:
    """A token no other micro-batch wrote."""
    return uuid.uuid4().hex


def take(key: tuple[Any, ...], token: str | None) -> Any:
    """The open task kept under ``key`` if it was kept with ``token`` (the one in Spark state),
    removed from the kept ones; otherwise ``None`` (a stale one is closed)."""
    entry = _OPEN.pop(key, None)
    if entry is None:
        return None
    if token is None or entry[0] != token:
        entry[1].close()
        return None
    return entry[1]


def keep(key: tuple[Any, ...], token: str, value: Closable) -> None:
    """Keep ``value`` under ``key`` as current for Spark state holding ``token``."""
    old = _OPEN.pop(key, None)
    if old is not None and old[1] is not value:
        old[1].close()
    _OPEN[key] = (token, value)
    while len(_OPEN) > KEPT:
        _, (_, dropped) = _OPEN.popitem(last=False)
        dropped.close()
