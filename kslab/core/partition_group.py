"""The input partitions of one task and the stream time they define.

Invariant (Kafka's ``PartitionGroup``): the next record is the head with the smallest timestamp
across the task's partitions, and stream time — the largest timestamp the task has taken — never
decreases. Ties go to the partition registered first, so runs are deterministic.
"""

from __future__ import annotations

from typing import Any

from kslab.core.record_queue import UNKNOWN, RecordQueue, StampedRecord

__all__ = ["UNKNOWN", "PartitionGroup"]


class PartitionGroup:
    """Chooses the next record for a task from its partition queues."""

    __slots__ = ("_deadlines", "_metrics", "_queues", "_single", "max_idle_ms", "queues",
                 "stream_time")

    def __init__(self, queues: dict[tuple[str, int], RecordQueue], max_idle_ms: int = 0,
                 metrics: Any = None) -> None:
        self.queues = queues
        self._metrics = metrics  # records each taken record's lateness (``late(ms)``)
        self._queues = list(queues.values())
        self._single = self._queues[0] if len(self._queues) == 1 else None
        self.stream_time = UNKNOWN
        self.max_idle_ms = max_idle_ms
        self._deadlines: dict[tuple[str, int], int] = {}

    def ready_to_process(self, now: int) -> bool:
        """Kafka's ``readyToProcess`` for partitions known to be caught up (no lag).

        With ``max.task.idle.ms`` > 0 an empty partition holds the task back until ``now``
        reaches its deadline (set when it was first seen empty, cleared when it gets data);
        then the task goes on with the partitions that have records.
        """
        if self.max_idle_ms <= 0:
            return True
        deadlines = self._deadlines
        queued = enforced = False
        for tp, queue in self.queues.items():
            if len(queue):
                deadlines.pop(tp, None)
                queued = True
                continue
            deadline = deadlines.setdefault(tp, now + self.max_idle_ms)
            if now < deadline:
                return False
            enforced = True
        return queued or not enforced

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
        return best, record

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
