"""The live runtime's side of batch execution: a polled run of one partition as one chunk.

The stream thread hands each run of consecutive polled records of one partition, for an idle
one-input task, to the core's ``BulkExecutor`` (``kslab.core.bulk``), which runs the DSL
operators' batch forms over it or declines (then the thread processes the run record by
record, as before; a chunk whose record cache would flush mid-run is split there:
``kslab.core.bulk.split``). A task reading several partitions (a join's) queues its records;
each run of them its partition group takes one after another from one partition is a chunk
too (``PartitionGroup.run_after``, ``kslab.core.bulk.split.run_queued``). What the engine
supplies is I/O: the records' offsets (the thread tracks them itself: ``commits_each_record``
is false, since it commits on ``commit.interval.ms``), and a log per topic whose appends go
to the thread's ``KafkaCollector``, which picks partitions and sends exactly as the record
path's sinks do. Changelog topics are not append-only here (the collector holds their writes
until the commit), so held store writes log through the task's context, record by record, as
on the record path.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.port import CollectorPort
from kslab.core.bulk.split import run_split
from kslab.runtime._collector import KafkaCollector

__all__ = ["RuntimePort", "run_polled"]

_second = itemgetter(1)  # a message's timestamp() is (type, timestamp)


class RuntimePort(CollectorPort):
    """What the bulk executor sees of a stream thread (``kslab.core.bulk.EnginePort``): sink
    records go out through ``KafkaCollector.send_columns``."""

    commits_each_record = False  # the thread commits on its interval

    def __init__(self, collector: KafkaCollector) -> None:
        super().__init__(collector.send_columns)
        self._collector = collector

    def appends_only(self, topic: str) -> bool:
        """True for every topic but a changelog (the collector holds those until the commit)."""
        return topic not in self._collector.changelogs

    def writable(self, topic: str) -> bool:
        """True when the broker knows ``topic`` (its partition count, looked up once as the
        record path's send looks it up): a topic extractor naming another declines the
        chunk, so that the record path raises the collector's error for it."""
        try:
            self._collector.partitions_for(topic)
        except Exception:
            return False
        return True

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """``None`` per record: the collector applies the default partitioner as it sends."""
        return [None] * len(keys)  # type: ignore[list-item]


def run_polled(executor: BulkExecutor, task: Any, topic: str, partition: int,
               messages: list[Any], record: Callable[[list[Any]], None]) -> int:
    """Run ``messages`` (consecutive polled records of one partition, no errors among them)
    as one chunk of ``task``, split where a record cache's put would flush mid-run
    (``kslab.core.bulk.split``); ``record(part)`` processes a run of them on the record
    path (where the executor declines). How many ran in batch."""
    if executor.plan(task, topic) is None:
        record(messages)
        return 0
    kind = type(messages[0])  # confluent_kafka.Message: its methods mapped in C
    keys = list(map(kind.key, messages))
    values = list(map(kind.value, messages))
    headers = list(map(kind.headers, messages))
    timestamps = list(map(_second, map(kind.timestamp, messages)))
    offsets = _offsets(messages)
    return run_split(executor, task, topic, (keys, values, headers, timestamps, None),
                     lambda start, end: record(messages[start:end]), offsets, partition)


def _offsets(messages: list[Any]) -> Any:
    """Each message's offset: a ``range`` where they leave no gap (the usual poll; a
    partition's offsets only rise, so a span as long as the run has each one once, in
    order), else a list (gaps: compacted records, transaction markers)."""
    first, last = messages[0].offset(), messages[-1].offset()
    if last - first + 1 == len(messages):
        return range(first, last + 1)
    return list(map(type(messages[0]).offset, messages))
