"""The punctuation schedules of one task for one clock, fired in time order.

Invariant (Kafka's ``PunctuationQueue``): one ``maybe_punctuate(now)`` call fires each schedule
at most once, stamped with ``now``; a schedule that fell several intervals behind resynchronises
to the next boundary after ``now`` instead of replaying every missed one.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

from kslab.processor import Cancellable

__all__ = ["PunctuationQueue", "Schedule"]


class Schedule(Cancellable):
    """One registered punctuator: its node, next fire time and interval."""

    __slots__ = ("cancelled", "interval", "next_time", "node", "punctuator")

    def __init__(self, node: Any, start: int, interval: int, punctuator: Callable[[int], None]):
        self.node = node
        self.next_time = start
        self.interval = interval
        self.punctuator = punctuator
        self.cancelled = False

    def cancel(self) -> None:
        """Stop this punctuation; it will not fire again."""
        self.cancelled = True

    def advance(self, now: int) -> None:
        """Move to the next boundary after ``now`` (skipping missed ones, as Kafka does)."""
        next_time = self.next_time + self.interval
        if now >= next_time:
            missed = (now - self.next_time) // self.interval
            next_time = self.next_time + (missed + 1) * self.interval
        self.next_time = next_time


class PunctuationQueue:
    """Schedules for one clock, ordered by next fire time (ties in registration order)."""

    def __init__(self) -> None:
        # the schedules as a heap of (next fire time, registration, schedule); a cancelled
        # one stays until popped, so an empty heap means nothing is scheduled (engines test
        # ``heap`` in their per-record loops, which is why it is public; only this class
        # changes it, in place)
        self.heap: list[tuple[int, int, Schedule]] = []
        self._seq = itertools.count()

    def schedule(self, schedule: Schedule) -> Schedule:
        """Register ``schedule``; returns it as the ``Cancellable``."""
        heapq.heappush(self.heap, (schedule.next_time, next(self._seq), schedule))
        return schedule

    def maybe_punctuate(self, now: int, fire: Callable[[Schedule, int], None]) -> bool:
        """Fire every schedule due at ``now`` once, through ``fire(schedule, now)``."""
        heap = self.heap
        if not heap or heap[0][0] > now:
            return False
        punctuated = False
        while heap and heap[0][0] <= now:
            schedule = heapq.heappop(heap)[2]
            if schedule.cancelled:
                continue
            fire(schedule, now)
            punctuated = True
            if not schedule.cancelled:  # the punctuator may cancel itself
                schedule.advance(now)
                heapq.heappush(heap, (schedule.next_time, next(self._seq), schedule))
        return punctuated

    def snapshot(self) -> list[tuple[int, int, Schedule, bool]]:
        """The schedules' times and cancel flags, for a later ``restore``."""
        return [(t, s, sched, sched.cancelled) for t, s, sched in self.heap]

    def restore(self, snapshot: list[tuple[int, int, Schedule, bool]]) -> None:
        """Put back the schedules as ``snapshot`` saw them."""
        heap = self.heap
        heap.clear()
        for t, s, sched, cancelled in snapshot:
            sched.next_time = t
            sched.cancelled = cancelled
            heap.append((t, s, sched))
        heapq.heapify(heap)

    def next_time(self) -> int | None:
        """When the next live schedule fires; ``None`` when none is scheduled."""
        return min((t for t, _, schedule in self.heap if not schedule.cancelled), default=None)

    def __len__(self) -> int:
        return sum(1 for _, _, s in self.heap if not s.cancelled)
