"""CPython's automatic garbage collection held off while a stream thread processes a poll.

Why: a polled batch runs as a chunk whose columns (the decoded values, their mapped copies, the
serialized outputs) stay alive until the chunk ends. CPython counts every allocation of a
container (also a dict that is never tracked) toward the young generation's threshold, 700, so
a chunk of 1,000 JSON records starts two or three collections that free nothing, promote the
chunk's live objects, and every few dozen chunks add up to a collection of the whole heap. W1
live (a JSON filter and map, ``bench/idiomatic_live.py``) spent 0.55-0.8 us a record of its
stream thread's 4.4 there (load 18-20), the raw confluent-kafka loop, whose objects die one by
one, 0.1-0.3; held off, kslab's thread collects what that loop does (its polls' messages).
Held off for the chunk, the count falls back as the chunk's objects are freed at its end; what
outlives it (store contents, queued records, garbage in reference cycles) still counts, and its
collection runs at the first allocation after the chunk.

Invariants: a pause lasts one call of ``gc_paused`` and ends on its way out, also on an error;
one thread at a time holds it (another thread's chunk meanwhile runs with collection off too,
and on again once the holder is done, so a busy thread never keeps it off for long: the
holder's next poll allocates its messages with collection on); an application that turned
collection off itself (``gc.disable()`` before the batch) is left as it is. An application
thread that calls ``gc.disable()`` while a batch is being processed sees collection on again
after that batch.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["gc_paused"]

_lock = threading.Lock()
_held = [False]  # a thread holds the pause (collection is off because of it)


def gc_paused(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` with automatic collection off (unless another thread's pause or
    the application turned it off already), on again when it returns or raises."""
    with _lock:
        owned = not _held[0] and gc.isenabled()
        if owned:
            gc.disable()
            _held[0] = True
    if not owned:
        return function(*args)
    try:
        return function(*args)
    finally:
        with _lock:
            _held[0] = False
            gc.enable()
