"""The driver's producer: every record a task sends lands in that topic's log.

Records for topics some task (or the global task) reads are also queued in ``pending`` for the
driver to loop back, as Kafka's driver does with internal topics. Invariant: a record is in its
topic's log before it is looped back, so outputs read in the order they were produced.
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

    def send(self, topic, key, value, headers, timestamp, partition, sink) -> None:
        """Store the record and queue it for loop-back when a task reads ``topic``."""
        if partition is None and self.single_partition:
            self.outputs[topic].append(key, value, headers, timestamp, 0)
            if topic in self.loopback:
                self.pending.append((topic, 0, key, value, headers, timestamp))
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
            msg = (
                f"sink '{sink}' chose partition {partition} of topic '{topic}', which has "
                f"{count} partition(s); return a partition in range from the partitioner"
            )
            raise KslabError(msg)
        self.outputs[topic].append(key, value, headers, timestamp, partition)
        if topic in self.loopback:
            self.pending.append((topic, partition, key, value, headers, timestamp))

    def partitions_for(self, topic: str) -> int:
        """The partition count of ``topic`` in this driver."""
        return self._layout.partition_count(topic)

    def writer(self, topic: str) -> Any:
        """``topic``'s log append, when nothing reads the topic back and it has one partition."""
        if not self.single_partition or topic in self.loopback:
            return None
        return self.outputs[topic].append
