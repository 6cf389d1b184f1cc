"""What a task and its engine agree on, beside the task itself: the collector a task sends
its records through (``RecordCollector``: each engine implements it), what it asks of an error
policy's guard (``StepGuard``), and its counters (``TaskMetrics``, read by every engine's
``metrics()``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from kslab.core.punctuation import Schedule

__all__ = ["RecordCollector", "StepGuard", "TaskMetrics"]



class StepGuard(Protocol):
    """What a task asks of an error policy's guard (``ErrorPolicy.install`` sets
    ``StreamTask.guard``): ``raw`` is the raw record the current step started from (``None``
    between steps), and each punctuation runs through ``punctuate``."""

    raw: tuple | None

    def punctuate(self, fire: Callable[[Schedule, int], None], schedule: Schedule,
                  now: int) -> None:
        """``fire(schedule, now)``, with what the punctuator raises handed to the handler."""


class RecordCollector(Protocol):
    """Where a task's output goes: the engine's producer (or the driver's in-memory topics)."""

    def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        headers: Any,
        timestamp: int,
        partition: Any,
        sink: str | None,
    ) -> None:
        """Write one serialized record; ``partition`` ``None`` means the default partitioner."""

    def partitions_for(self, topic: str) -> int:
        """How many partitions ``topic`` has."""

    # Optional, asked for with getattr (an engine without one gets the general path):
    # - ``writer(topic)``: ``append(key, value, headers, timestamp, 0)`` for a topic that
    #   always takes partition 0 and needs nothing else on send (the driver's logs, the
    #   runtime's one-partition topics), or ``None``; sinks call it once (``SinkRuntime``).
    # - ``changelog_batch(topic, partition)``: the ``list`` where an engine that sends a
    #   changelog's writes at the commit holds every one of them in order, as ``(key, value,
    #   headers, ts)``, or ``None`` for a topic it sends record by record
    #   (``TaskContext.log_change``).
    # - ``pending``: the records sent to topics the engine's tasks read back, not yet
    #   delivered (the driver's loop-back queue); ``process_rows(on_sent=...)`` is told
    #   after each record when it is not empty.


class TaskMetrics:
    """Counters of one task, read by ``metrics()`` in every engine.

    Beside the task's own counters it keeps Kafka's task-level record lateness (stream time
    minus the timestamp of each record taken for processing, 0 for one that advances stream
    time) and the node-level metrics processors and stores record under their names
    (``TaskContext.node_metrics``).
    """

    __slots__ = ("dropped_records", "enforced_processing", "lateness_max", "lateness_sum",
                 "nodes", "processed", "punctuated")

    def __init__(self) -> None:
        self.processed = 0
        self.dropped_records = 0
        self.punctuated = 0
        # records taken although an input partition was empty, after max.task.idle.ms
        self.enforced_processing = 0
        self.lateness_sum = 0  # over the processed records; the samples are the processed ones
        self.lateness_max = 0
        self.nodes: dict[str, dict[str, float]] = {}

    def late(self, lateness: int) -> None:
        """Record a record taken ``lateness`` ms behind stream time (on time: nothing to add)."""
        self.lateness_sum += lateness
        if lateness > self.lateness_max:
            self.lateness_max = lateness

    def as_dict(self) -> dict[str, Any]:
        """The counters by Kafka's metric names, then each node's metrics under its name."""
        processed = self.processed
        out: dict[str, Any] = {
            "process-total": processed,
            "dropped-records-total": self.dropped_records,
            "punctuate-total": self.punctuated,
            "enforced-processing-total": self.enforced_processing,
            # Kafka's avg and max of no samples are NaN
            "record-lateness-avg": self.lateness_sum / processed if processed else math.nan,
            "record-lateness-max": float(self.lateness_max) if processed else math.nan,
        }
        for name, values in self.nodes.items():
            out[name] = dict(values)
        return out

    def snapshot(self) -> tuple[Any, ...]:
        """Everything, for ``restore``."""
        return (self.processed, self.dropped_records, self.punctuated, self.enforced_processing,
                self.lateness_sum, self.lateness_max,
                {name: dict(v) for name, v in self.nodes.items()})

    def restore(self, saved: tuple[Any, ...]) -> None:
        """Put back what ``snapshot`` saw (node dicts are updated in place: processors keep
        references to theirs)."""
        (self.processed, self.dropped_records, self.punctuated, self.enforced_processing,
         self.lateness_sum, self.lateness_max, nodes) = saved
        for name, values in self.nodes.items():
            values.clear()
            values.update(nodes.get(name, {}))
