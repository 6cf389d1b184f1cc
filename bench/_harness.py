"""What every benchmark script shares: timing contestants fairly in one process.

Invariant: contestants alternate order every round and the median is reported, because on these
machines whichever code first grows the heap after a large free pays for it.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable

__all__ = ["interleaved"]


def interleaved(runs: int, *fns: Callable[[], int],
                clock: Callable[[], float] = time.perf_counter) -> list[tuple[float, int]]:
    """Median seconds per function over ``runs`` rounds, and each one's item count
    (``clock``: ``time.process_time`` for CPU time)."""
    times: list[list[float]] = [[] for _ in fns]
    counts = [0] * len(fns)
    for round_ in range(runs):
        order = list(enumerate(fns))
        if round_ % 2:
            order.reverse()
        for index, fn in order:
            gc.collect()
            start = clock()
            counts[index] = fn()
            times[index].append(clock() - start)
    return [(statistics.median(t), c) for t, c in zip(times, counts, strict=True)]
