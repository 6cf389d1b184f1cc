"""Append-only logs of serialized records: the driver's topics and its history.

Keys and values are kept as the ``bytes`` objects the serializers made, in two lists (no copy
and no per-record tuple), timestamps and partitions in typed arrays. ``bytes`` are not tracked
by the cyclic GC, so a driver that keeps every output pays for the bytes and two list slots per
record, and a bulk read is a slice of each column (bench/README.md). Invariant: records are only
appended; reading moves a cursor, and ``truncate`` (for ``restore``) is the only way records
disappear.
"""

from __future__ import annotations

import contextlib
import gc
from array import array
from collections.abc import Iterator
from typing import Any

__all__ = ["RecordLog", "gc_paused"]


class RecordLog:
    """Serialized records ``(key, value, headers, timestamp, partition[, topic])`` in order.

    Headers are rare and kept aside by index; a log made ``with_topics`` keeps a topic id per
    record (the history, which holds every input topic).
    """

    __slots__ = ("_headers", "_keys", "_partitions", "_start", "_timestamps", "_topic_ids",
                 "_topics", "_topics_by_name", "_values")

    def __init__(self, *, with_topics: bool = False) -> None:
        self._keys: list[bytes | None] = []
        self._values: list[bytes | None] = []
        self._timestamps = array("q")
        self._partitions = array("i")
        self._headers: dict[int, Any] = {}
        self._start = 0
        self._topic_ids: array | None = array("i") if with_topics else None
        self._topics: list[str | None] = []
        self._topics_by_name: dict[str | None, int] = {}

    def append(self, key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
               partition: int, topic: str | None = None) -> None:
        """Add one record at the end (a ``bytearray`` or ``memoryview`` is copied to bytes)."""
        keys = self._keys
        if headers:
            self._headers[len(keys)] = headers
        if key.__class__ is not bytes and key is not None:
            key = bytes(key)
        if value.__class__ is not bytes and value is not None:
            value = bytes(value)
        keys.append(key)
        self._values.append(value)
        self._timestamps.append(timestamp)
        self._partitions.append(partition)
        if self._topic_ids is not None:
            self._topic_ids.append(self._topic_id(topic))

    def _topic_id(self, topic: str | None) -> int:
        topic_id = self._topics_by_name.get(topic, -1)
        if topic_id < 0:
            topic_id = self._topics_by_name[topic] = len(self._topics)
            self._topics.append(topic)
        return topic_id

    def extend(self, rows: list[tuple[Any, ...]], topic: str | None = None) -> None:
        """Append ``(key, value, headers, timestamp, partition)`` rows, all of ``topic``."""
        keys, values = self._keys, self._values
        timestamps, partitions = self._timestamps, self._partitions
        index = len(keys)
        for key, value, headers, timestamp, partition in rows:
            if headers:
                self._headers[index] = headers
            index += 1
            if key.__class__ is not bytes and key is not None:
                key = bytes(key)
            if value.__class__ is not bytes and value is not None:
                value = bytes(value)
            keys.append(key)
            values.append(value)
            timestamps.append(timestamp)
            partitions.append(partition or 0)
        if self._topic_ids is not None:
            self._topic_ids.extend([self._topic_id(topic)] * len(rows))

    def record(self, index: int) -> tuple[Any, ...]:
        """Record ``index`` (absolute) as ``(key, value, headers, timestamp, partition)``."""
        if not 0 <= index < len(self._keys):
            msg = f"record {index} is not in this log of {len(self._keys)} records"
            raise IndexError(msg)
        return (self._keys[index], self._values[index], self._headers.get(index),
                self._timestamps[index], self._partitions[index])

    def topic(self, index: int) -> str | None:
        """The topic of record ``index`` (logs made ``with_topics`` only)."""
        if self._topic_ids is None:
            return None
        return self._topics[self._topic_ids[index]]

    # -- a queue for readers ----------------------------------------------------------------

    def popleft(self) -> tuple[Any, ...]:
        """Take the oldest unread record."""
        if self._start >= len(self._keys):
            msg = "pop from an empty record log"
            raise IndexError(msg)
        record = self.record(self._start)
        self._start += 1
        return record

    def clear(self) -> None:
        """Mark every record read."""
        self._start = len(self._keys)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The unread records, oldest first."""
        headers = self._headers
        start = self._start
        for index, row in enumerate(zip(self._keys[start:], self._values[start:],
                                        self._timestamps[start:], self._partitions[start:],
                                        strict=True), start):
            key, value, timestamp, partition = row
            yield key, value, headers.get(index) if headers else None, timestamp, partition

    def drain_columns(self) -> tuple[list[Any], list[Any], list[Any], list[int], list[int]]:
        """Unread records as columns ``(keys, values, headers, timestamps, partitions)``.

        The bulk read behind ``read_*_to_list`` and frames: a slice of each column.
        """
        start, end = self._start, len(self._keys)
        all_headers = self._headers
        keys = self._keys[start:end]
        headers = ([all_headers.get(i) for i in range(start, end)]
                   if all_headers else [None] * len(keys))
        columns = (keys, self._values[start:end], headers,
                   self._timestamps[start:end].tolist(), self._partitions[start:end].tolist())
        self._start = end
        return columns

    def __len__(self) -> int:
        return len(self._keys) - self._start

    def __bool__(self) -> bool:
        return len(self._keys) > self._start

    # -- snapshots ----------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Records ever appended (read ones included)."""
        return len(self._keys)

    def mark(self) -> tuple[int, int]:
        """A position to ``truncate`` back to: (records appended, records read)."""
        return len(self._keys), self._start

    def truncate(self, mark: tuple[int, int]) -> None:
        """Drop what was appended after ``mark`` and unread what was read since."""
        total, start = mark
        if total < len(self._keys):
            for column in (self._keys, self._values, self._timestamps, self._partitions,
                           self._topic_ids):
                if column is not None:
                    del column[total:]
            for index in [i for i in self._headers if i >= total]:
                del self._headers[index]
        self._start = start


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC around a bulk pipe or read.

    Records die by reference counting; what the collector does in a batch is walk the growing
    heap of retained outputs again and again, which cost more than building them (bench/).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
