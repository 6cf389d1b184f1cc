"""Python's cyclic garbage collector started less often while an engine runs a chunk or task.

Why: a chunk's columns (decoded values, their mapped copies, serialized outputs) and a task's
stores and record caches stay alive while it runs. CPython counts every container allocation
toward the young generation's threshold (700), so at the default a chunk of 1,000 JSON records
starts two or three young collections that free nothing, promote the chunk's live objects, and
every few dozen chunks add up to a collection of the whole heap. Measured: the live runtime's W1
(a JSON filter and map, ``bench/idiomatic_live.py``) spent 0.55-0.8 us a record of its stream
thread's 4.4 on them (the raw confluent-kafka loop, whose objects die one by one, 0.1-0.3);
a Spark ``run_batch`` word count's counting task a fifth of its Python CPU.
``fewer_collections`` raises the young threshold to ``YOUNG_COLLECTION`` allocations for its
body: garbage in reference cycles waits at most that long, everything else is freed as before.
It suits bodies of any length (a live poll's batch, a Spark task over a whole partition).
``collections_off`` turns automatic collection off for its body: the test driver's bulk pipes
and reads, bounded calls on the caller's thread whose records die by reference counting, while
the outputs they retain grow the heap each collection would walk again.

Invariants: the collector's settings are process-wide, so one body at a time owns a change
(another thread's body meanwhile runs under it and leaves it alone; a nested body too) and the
owner puts back exactly what it found, also on an error; what is already at least as lenient
(a threshold above ``YOUNG_COLLECTION``, collection turned off with ``gc.disable()``) is left as
it is.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["YOUNG_COLLECTION", "collections_off", "fewer_collections"]

YOUNG_COLLECTION = 50_000  # container allocations between two young collections in a body

_lock = threading.Lock()
_owned = [False]  # a body has raised the threshold and will put it back


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with the young collection threshold at least ``YOUNG_COLLECTION``, then
    put back the thresholds found (unless another body owns the change)."""
    with _owning(lambda: gc.isenabled() and gc.get_threshold()[0] < YOUNG_COLLECTION) as owner:
        if owner:
            before = gc.get_threshold()
            gc.set_threshold(YOUNG_COLLECTION, *before[1:])
        try:
            yield
        finally:
            if owner:
                gc.set_threshold(*before)


@contextmanager
def collections_off() -> Iterator[None]:
    """Run the body with automatic collection off, then on again (unless it was off already
    or another body owns the change)."""
    with _owning(gc.isenabled) as owner:
        if owner:
            gc.disable()
        try:
            yield
        finally:
            if owner:
                gc.enable()


@contextmanager
def _owning(needed: Callable[[], bool]) -> Iterator[bool]:
    """Whether this body owns a change to the collector (none is owned and ``needed()``); the
    ownership ends with the body."""
    with _lock:
        owner = not _owned[0] and needed()
        if owner:
            _owned[0] = True
    try:
        yield owner
    finally:
        if owner:
            with _lock:
                _owned[0] = False
