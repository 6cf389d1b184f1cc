"""The driver's producer: every record a task sends lands in that topic's log.

Records for topics some task (or the global task) reads are also queued in ``pending`` for the
driver to loop back, as Kafka's driver does with internal topics. Invariant: a record is in its
topic's log before it is looped back, so outputs read in the order they were produced; ``mixed``
is False while every pending record goes to the same topic partition.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any

from kslab.errors import KslabError
from kslab.testing._log import RecordLog

if TYPE_CHECKING:
    from kslab.testing._layout import TaskLayout

__all__ = ["DriverCollector"]


class DriverCollector:
    """Keeps every output in a ``RecordLog`` per topic and queues records for loop-back."""

    def __init__(self, layout: TaskLayout) -> None:
        self._layout = layout
        self.outputs: dict[str, RecordLog] = defaultdict(RecordLog)
        self.pending: deque[tuple[str, int, Any, Any, Any, int]] = deque()
        self.single_partition = layout.java_mode
        self.loopback: set[str] = set()
        self.mixed = False  # pending holds records of more than one topic partition

    def _queue(self, record: tuple[str, int, Any, Any, Any, int]) -> None:
        pending = self.pending
        if not pending:
            self.mixed = False
        elif not self.mixed:
            first = pending[0]
            self.mixed = first[0] != record[0] or first[1] != record[1]
        pending.append(record)

    def send(self, topic, key, value, headers, timestamp, partition, sink) -> None:
        """Store the record and queue it for loop-back when a task reads ``topic``."""
        if partition is None and self.single_partition:
            self.outputs[topic].append(key, value, headers, timestamp, 0)
            if topic in self.loopback:
                self._queue((topic, 0, key, value, headers, timestamp))
            return
        layout = self._layout
        count = layout.partition_count(topic)
        if partition is None:
            partition = layout.default_partition(topic, key, count)
        elif isinstance(partition, set | frozenset | list | tuple):
            for p in sorted(partition):
                self.send(topic, key, value, headers, timestamp, p, sink)
            return
        if not 0 <= partition < count:
            if self.single_partition and partition > 0:
                # Kafka's driver: one partition per topic, whatever the partitioner chose
                self.send(topic, key, value, headers, timestamp, 0, sink)
                return
            msg = (
                f"sink '{sink}' chose partition {partition} of topic '{topic}', which has "
                f"{count} partition(s); return a partition in range from the partitioner"
            )
            raise KslabError(msg)
        self.outputs[topic].append(key, value, headers, timestamp, partition)
        if topic in self.loopback:
            self._queue((topic, partition, key, value, headers, timestamp))

    def partitions_for(self, topic: str) -> int:
        """The partition count of ``topic`` in this driver."""
        return self._layout.partition_count(topic)

    def writer(self, topic: str) -> Any:
        """A direct ``write(key, value, headers, timestamp, 0)`` for ``topic`` when it has one
        partition (every topic does in Java's mode; else the layout's counts are fixed, but a
        pattern source may still make a topic one a task reads, so none then): its log's
        append, plus the loop-back queue when a task reads it. What ``send`` does for such a
        topic, without its routing: the default partitioner picks 0 on one partition."""
        layout = self._layout
        if not self.single_partition and (layout.partition_count(topic) != 1
                                          or layout.pattern_sources):
            return None
        append = self.outputs[topic].append
        if topic not in self.loopback:
            return append
        pending = self.pending

        def write(key: Any, value: Any, headers: Any, timestamp: int, partition: int) -> None:
            append(key, value, headers, timestamp, 0)
            if not pending:  # _queue, inlined: one call less per looped-back record
                self.mixed = False
            elif not self.mixed:
                first = pending[0]
                self.mixed = first[0] != topic or first[1] != 0
            pending.append((topic, 0, key, value, headers, timestamp))

        return write
