"""The engine port of an engine whose sinks write through a collector (the live runtime's
``KafkaCollector``, Spark's ``RowCollector``): a topic's log hands the executor's columns
to one ``extend`` call of the collector.

The test driver keeps logs of its own; the other engines only say how a batch of a topic's
records reaches their collector, and this module owns the rest of the port (the log per
topic, the unused offsets: each chunk brings its records' own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["CollectorLog", "CollectorPort", "Extend"]

Extend = Callable[[str, list[Any], list[Any], "list[Any] | None", list[int],
                   "list[int | None] | None"], None]
"""``extend(topic, keys, values, headers, timestamps, partitions)``: a collector taking a
batch of a topic's serialized records in order (``partitions``: each record's, ``None`` in
it for the default partitioner; ``None``: partition 0)."""


class CollectorLog:
    """A topic's log for the bulk executor: ``extend_columns`` hands the records to the
    collector's ``extend``."""

    __slots__ = ("_extend", "_topic")

    def __init__(self, extend: Extend, topic: str) -> None:
        self._extend = extend
        self._topic = topic

    def extend_columns(self, keys: Any, values: Any, headers: list[Any] | None,
                       timestamps: list[int], partitions: list[int | None] | None = None
                       ) -> None:
        """Hand over the records, in order (keys and values: a ``ByteColumn`` or a list)."""
        self._extend(self._topic, getattr(keys, "fields", keys),
                     getattr(values, "fields", values), headers, timestamps, partitions)


class CollectorPort:
    """Base of an ``EnginePort`` (``kslab.core.bulk.EnginePort``) whose logs write through a
    collector's ``extend``; a subclass says which topics only append (``appends_only``),
    how the default partitioner places a key column (``partitions``), which topics a topic
    extractor may name (``writable``: every one, unless it says) and whether the engine
    commits after every record (``commits_each_record``)."""

    commits_each_record = True

    def __init__(self, extend: Extend) -> None:
        self.offsets: dict[tuple[str, int], int] = {}  # unused: each chunk brings its own
        self._extend = extend
        self._logs: dict[str, CollectorLog] = {}

    def writable(self, topic: str) -> bool:
        """True: the collector takes records for any topic as its ``send`` does (Spark's
        keeps those of its sink topics and drops the others, on both paths)."""
        return True

    def log(self, topic: str) -> CollectorLog:
        """The collector-backed log of ``topic``."""
        log = self._logs.get(topic)
        if log is None:
            log = self._logs[topic] = CollectorLog(self._extend, topic)
        return log
