"""Compact, append-only logs of serialized records: the driver's topics and its history.

Keys and values live back to back in one ``bytearray`` and the other fields in typed arrays, so
a record costs its bytes plus a few machine words instead of a tuple and two ``bytes`` objects.
On these machines memory growth, not computation, dominates a driver that keeps everything
(bench/README.md). Invariant: records are only appended; reading moves a cursor, and
``truncate`` (for ``restore``) is the only way records disappear.
"""

from __future__ import annotations

import contextlib
import gc
import struct
from array import array
from collections.abc import Iterator
from typing import Any

__all__ = ["RecordLog", "gc_paused"]

_NULL = -1


_HEADER = struct.Struct("<iiqii")  # key length, value length, timestamp, partition, topic id


class RecordLog:
    """Serialized records ``(key, value, headers, timestamp, partition[, topic])`` in order.

    Each record is one packed header followed by its key and value bytes in ``_data``;
    ``_positions`` holds where each record starts. Headers are rare and kept aside by index.
    """

    __slots__ = ("_data", "_headers", "_positions", "_start", "_topics", "_topics_by_name")

    def __init__(self, *, with_topics: bool = False) -> None:
        self._data = bytearray()
        self._positions = array("q")
        self._headers: dict[int, Any] = {}
        self._start = 0
        self._topics: list[str] | None = [] if with_topics else None
        self._topics_by_name: dict[str | None, int] = {}

    def append(self, key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
               partition: int, topic: str | None = None) -> None:
        """Add one record at the end."""
        data = self._data
        positions = self._positions
        if headers:
            self._headers[len(positions)] = headers
        positions.append(len(data))
        topic_id = 0
        if self._topics is not None:
            topic_id = self._topics_by_name.get(topic, -1)
            if topic_id < 0:
                topic_id = self._topics_by_name[topic] = len(self._topics)
                self._topics.append(topic)  # type: ignore[arg-type]
        data += _pack(_NULL if key is None else len(key), _NULL if value is None else len(value),
                      timestamp, partition, topic_id)
        if key:
            data += key
        if value:
            data += value

    def extend(self, rows: list[tuple[Any, ...]], topic: str | None = None) -> None:
        """Append ``(key, value, headers, timestamp, partition)`` rows, all of ``topic``."""
        data = self._data
        positions = self._positions
        topic_id = 0
        if self._topics is not None:
            topic_id = self._topics_by_name.get(topic, -1)
            if topic_id < 0:
                topic_id = self._topics_by_name[topic] = len(self._topics)
                self._topics.append(topic)  # type: ignore[arg-type]
        index = len(positions)
        for key, value, headers, timestamp, partition in rows:
            positions.append(len(data))
            if headers:
                self._headers[index] = headers
            index += 1
            data += _pack(_NULL if key is None else len(key),
                          _NULL if value is None else len(value), timestamp, partition or 0,
                          topic_id)
            if key:
                data += key
            if value:
                data += value

    def _fields(self, index: int) -> tuple[Any, ...]:
        position = self._positions[index]
        data = self._data
        key_length, value_length, timestamp, partition, topic_id = _unpack(data, position)
        start = position + _HEADER_SIZE
        if key_length == _NULL:
            key = None
        else:
            key = bytes(data[start:start + key_length])
            start += key_length
        value = None if value_length == _NULL else bytes(data[start:start + value_length])
        return key, value, self._headers.get(index), timestamp, partition, topic_id

    def record(self, index: int) -> tuple[Any, ...]:
        """Record ``index`` (absolute) as ``(key, value, headers, timestamp, partition)``."""
        return self._fields(index)[:5]

    def topic(self, index: int) -> str | None:
        """The topic of record ``index`` (logs made ``with_topics`` only)."""
        if self._topics is None:
            return None
        return self._topics[self._fields(index)[5]]

    # -- a queue for readers ----------------------------------------------------------------

    def popleft(self) -> tuple[Any, ...]:
        """Take the oldest unread record."""
        if self._start >= len(self._positions):
            msg = "pop from an empty record log"
            raise IndexError(msg)
        record = self.record(self._start)
        self._start += 1
        return record

    def clear(self) -> None:
        """Mark every record read."""
        self._start = len(self._positions)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The unread records, oldest first (the decoding of ``record``, inlined for speed)."""
        data, positions, headers = self._data, self._positions, self._headers
        for index in range(self._start, len(positions)):
            position = positions[index]
            key_length, value_length, timestamp, partition, _ = _unpack(data, position)
            start = position + _HEADER_SIZE
            if key_length == _NULL:
                key = None
            else:
                key = bytes(data[start:start + key_length])
                start += key_length
            value = None if value_length == _NULL else bytes(data[start:start + value_length])
            yield key, value, headers.get(index) if headers else None, timestamp, partition

    def drain_columns(self) -> tuple[list[Any], list[Any], list[Any], list[int], list[int]]:
        """Unread records as columns ``(keys, values, headers, timestamps, partitions)``.

        The bulk read behind ``read_*_to_list`` and frames: one tight loop, no per-record tuples.
        """
        data, positions, all_headers = self._data, self._positions, self._headers
        keys: list[Any] = []
        values: list[Any] = []
        timestamps: list[int] = []
        partitions: list[int] = []
        key_append, value_append, ts_append = keys.append, values.append, timestamps.append
        partition_append = partitions.append
        first = self._start
        buffer = bytes(data[positions[first]:]) if first < len(positions) else b""
        base = positions[first] if first < len(positions) else 0
        for index in range(first, len(positions)):
            position = positions[index] - base
            key_length, value_length, timestamp, partition, _ = _unpack(buffer, position)
            start = position + _HEADER_SIZE
            partition_append(partition)
            if key_length == _NULL:
                key_append(None)
            else:
                key_append(buffer[start:start + key_length])
                start += key_length
            value_append(None if value_length == _NULL else buffer[start:start + value_length])
            ts_append(timestamp)
        headers = ([all_headers.get(i) for i in range(self._start, len(positions))]
                   if all_headers else [None] * len(keys))
        self._start = len(positions)
        return keys, values, headers, timestamps, partitions

    def __len__(self) -> int:
        return len(self._positions) - self._start

    def __bool__(self) -> bool:
        return len(self._positions) > self._start

    # -- snapshots ----------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Records ever appended (read ones included)."""
        return len(self._positions)

    def mark(self) -> tuple[int, int]:
        """A position to ``truncate`` back to: (records appended, records read)."""
        return len(self._positions), self._start

    def truncate(self, mark: tuple[int, int]) -> None:
        """Drop what was appended after ``mark`` and unread what was read since."""
        total, start = mark
        if total < len(self._positions):
            del self._data[self._positions[total]:]
            del self._positions[total:]
            for index in [i for i in self._headers if i >= total]:
                del self._headers[index]
        self._start = start


_pack = _HEADER.pack
_unpack = _HEADER.unpack_from
_HEADER_SIZE = _HEADER.size


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
