"""The input partitions of one task and the stream time they define.

Invariant (Kafka's ``PartitionGroup``): the next record is the head with the smallest timestamp
across the task's partitions, and stream time — the largest timestamp the task has taken — never
decreases. Ties go to the partition registered first, so runs are deterministic.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kslab.core.record_queue import UNKNOWN, RecordQueue, StampedRecord

__all__ = ["UNKNOWN", "PartitionGroup"]

log = logging.getLogger("kslab.core")


class PartitionGroup:
    """Chooses the next record for a task from its partition queues."""

    __slots__ = ("_deadlines", "_enforced", "_metrics", "_queues", "_single", "last",
                 "max_idle_ms", "queues", "stream_time")

    def __init__(self, queues: dict[tuple[str, int], RecordQueue], max_idle_ms: int = 0,
                 metrics: Any = None) -> None:
        self.queues = queues
        self._metrics = metrics  # records each taken record's lateness (``late(ms)``)
        self._queues = list(queues.values())
        self._single = self._queues[0] if len(self._queues) == 1 else None
        self.stream_time = UNKNOWN
        self.max_idle_ms = max_idle_ms
        self._deadlines: dict[tuple[str, int], int] = {}
        self.last: RecordQueue | None = None  # the queue ``next_record`` took from last
        # the empty partitions the last ``ready_to_process`` went on without, and its now
        self._enforced: tuple[list[tuple[str, int]], int] | None = None

    def ready_to_process(self, now: int,
                         lag_of: Callable[[tuple[str, int]], int | None] | None = None) -> bool:
        """Kafka's ``readyToProcess``: whether the task may take its next record at wall-clock
        ``now`` (ms).

        ``max.task.idle.ms`` < 0 (Kafka's ``MAX_TASK_IDLE_MS_DISABLED``): always. Otherwise an
        empty partition holds the task back while its lag is unknown or positive (records on
        the broker the engine has not fetched yet: ``lag_of(tp)`` is ``None`` or above 0);
        one known to be caught up holds it back until its idle deadline (``now`` +
        ``max.task.idle.ms``, set when first seen caught up and empty, cleared when it gets
        data), after which the task goes on with the partitions that have records: enforced
        processing, counted and logged as Kafka does. Without ``lag_of`` every partition is
        caught up (the test driver holds whatever was piped in).
        """
        self._enforced = None
        idle_ms = self.max_idle_ms
        if idle_ms < 0 or (idle_ms == 0 and lag_of is None):
            return True
        deadlines = self._deadlines
        queued = False
        enforced: list[tuple[str, int]] | None = None  # (made only when one is)
        for tp, queue in self.queues.items():
            if len(queue):
                deadlines.pop(tp, None)
                queued = True
                continue
            lag = 0 if lag_of is None else lag_of(tp)
            if lag is None or lag > 0:  # wait to fetch what is (or may be) on the broker
                deadlines.pop(tp, None)
                return False
            deadline = deadlines.setdefault(tp, now + idle_ms)
            if now < deadline:
                return False
            if enforced is None:
                enforced = []
            enforced.append(tp)
        if enforced is None:
            return True
        if not queued:
            return False
        self._enforced = (enforced, now)
        self._count_enforced(1)
        return True

    def _count_enforced(self, times: int) -> None:
        """Count and log ``times`` records taken without the empty partitions of the last
        ``ready_to_process`` (enforced processing, as Kafka counts it: once per record)."""
        enforced, now = self._enforced  # type: ignore[misc]
        if self._metrics is not None:
            self._metrics.enforced_processing += times
        if log.isEnabledFor(logging.INFO):
            for _ in range(times):
                log.info("continuing to process although %s had no records buffered: there "
                         "may be out-of-order processing (max.task.idle.ms=%d, wall-clock "
                         "time %d)", enforced, self.max_idle_ms, now)

    def next_record(self) -> tuple[RecordQueue, StampedRecord] | None:
        """Take the oldest head record and advance stream time; ``None`` when all are empty."""
        best = self._single
        if best is not None:
            if best.load_head() is None:
                return None
        else:
            best_ts = 0
            for queue in self._queues:
                head = queue.load_head()
                if head is not None and (best is None or head[0] < best_ts):
                    best, best_ts = queue, head[0]
            if best is None:
                return None
        record = best.poll()
        self.advance(record[0])
        self.last = best
        return best, record

    def run_after(self) -> tuple[RecordQueue, list[tuple]] | None:
        """The records the group takes next, one after another, from the partition whose
        head ``next_record`` took last, taken out of its queue as raw records (an engine
        runs them as one chunk): those at its front whose own timestamps come before every
        other partition's head (ties go to the partition registered first, as in
        ``next_record``). ``None`` when there are none or they cannot be told without
        deserializing a record (a timestamp extractor gives the timestamps; another
        partition's head is not loaded yet: ``next_record`` loads each in turn). The
        readiness the last ``ready_to_process`` decided before that head holds for each of
        them (only the head's partition shrinks, time only goes on): its enforced
        processing is counted for each, as the record path would count it before each."""
        queue = self.last
        if queue is None or queue.deserializer.timestamp_extractor is not None:
            return None
        below: int | None = None
        after = False  # (past ``queue`` in registration order: a tie goes to ``queue``)
        for other in self._queues:
            if other is queue:
                after = True
                continue
            head = other.head
            if head is None and len(other):
                return None  # (its head is still to be deserialized: the record path's)
            if head is not None:
                bound = head[0] + 1 if after else head[0]
                if below is None or bound < below:
                    below = bound
        taken = queue.take_run(below)
        if not taken:
            return None
        if self._enforced is not None:
            self._count_enforced(len(taken))
        return queue, taken

    def advance(self, timestamp: int) -> None:
        """Stream time once a record at ``timestamp`` is taken: the record's, if later;
        an earlier record is late by the difference (counted in the task's metrics)."""
        if timestamp > self.stream_time:
            self.stream_time = timestamp
        elif timestamp < self.stream_time and self._metrics is not None:
            self._metrics.late(self.stream_time - timestamp)

    def has_records(self) -> bool:
        """True when any partition holds a record (valid or not yet deserialized)."""
        single = self._single
        if single is not None:
            return len(single) != 0  # a head, or raw records behind it
        return any(len(q) for q in self._queues)

    def is_empty(self) -> bool:
        """True when no partition holds anything."""
        return not self.has_records()

    def snapshot(self) -> tuple[int, dict[tuple[str, int], tuple], dict[tuple[str, int], int]]:
        """Stream time, every queue's contents and the idling deadlines, for ``restore``."""
        queues = {tp: q.snapshot() for tp, q in self.queues.items()}
        return self.stream_time, queues, dict(self._deadlines)

    def restore(
        self, snapshot: tuple[int, dict[tuple[str, int], tuple], dict[tuple[str, int], int]]
    ) -> None:
        """Put back what ``snapshot`` saw."""
        self.stream_time, queues, deadlines = snapshot
        for tp, queue_snapshot in queues.items():
            self.queues[tp].restore(queue_snapshot)
        self._deadlines = dict(deadlines)
