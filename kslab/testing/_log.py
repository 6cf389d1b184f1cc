"""Compact, append-only logs of serialized records: the driver's topics and its history.

Keys and values live back to back in one ``bytearray`` and the other fields in typed arrays, so
a record costs its bytes plus a few machine words instead of a tuple and two ``bytes`` objects.
On these machines memory growth, not computation, dominates a driver that keeps everything
(bench/README.md). Invariant: records are only appended; reading moves a cursor, and
``truncate`` (for ``restore``) is the only way records disappear.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

__all__ = ["RecordLog"]

_NULL = -1


class RecordLog:
    """Serialized records ``(key, value, headers, timestamp, partition[, topic])`` in order."""

    __slots__ = ("_bounds", "_data", "_headers", "_partitions", "_start", "_timestamps",
                 "_topic_ids", "_topics", "_topics_by_name")

    def __init__(self, *, with_topics: bool = False) -> None:
        self._data = bytearray()
        self._bounds = array("q")  # per record: start offset, key length, value length
        self._timestamps = array("q")
        self._partitions = array("i")
        self._headers: dict[int, Any] = {}
        self._start = 0
        self._topics: list[str] | None = [] if with_topics else None
        self._topics_by_name: dict[str, int] = {}
        self._topic_ids = array("i")

    def append(self, key: bytes | None, value: bytes | None, headers: Any, timestamp: int,
               partition: int, topic: str | None = None) -> None:
        """Add one record at the end."""
        data = self._data
        position = len(data)
        if key is None:
            key_length = _NULL
        else:
            key_length = len(key)
            data += key
        if value is None:
            value_length = _NULL
        else:
            value_length = len(value)
            data += value
        self._bounds.extend((position, key_length, value_length))
        index = len(self._timestamps)
        self._timestamps.append(timestamp)
        self._partitions.append(partition)
        if headers:
            self._headers[index] = headers
        if self._topics is not None:
            topic_id = self._topics_by_name.get(topic)  # type: ignore[arg-type]
            if topic_id is None:
                topic_id = self._topics_by_name[topic] = len(self._topics)  # type: ignore[index]
                self._topics.append(topic)  # type: ignore[arg-type]
            self._topic_ids.append(topic_id)

    def record(self, index: int) -> tuple[Any, ...]:
        """Record ``index`` (absolute) as ``(key, value, headers, timestamp, partition)``."""
        position, key_length, value_length = self._bounds[3 * index: 3 * index + 3]
        data = self._data
        if key_length == _NULL:
            key = None
            key_length = 0
        else:
            key = bytes(data[position:position + key_length])
        if value_length == _NULL:
            value = None
        else:
            start = position + key_length
            value = bytes(data[start:start + value_length])
        return (key, value, self._headers.get(index), self._timestamps[index],
                self._partitions[index])

    def topic(self, index: int) -> str | None:
        """The topic of record ``index`` (logs made ``with_topics`` only)."""
        if self._topics is None:
            return None
        return self._topics[self._topic_ids[index]]

    # -- a queue for readers ----------------------------------------------------------------

    def popleft(self) -> tuple[Any, ...]:
        """Take the oldest unread record."""
        if self._start >= len(self._timestamps):
            msg = "pop from an empty record log"
            raise IndexError(msg)
        record = self.record(self._start)
        self._start += 1
        return record

    def clear(self) -> None:
        """Mark every record read."""
        self._start = len(self._timestamps)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The unread records, oldest first."""
        for index in range(self._start, len(self._timestamps)):
            yield self.record(index)

    def __len__(self) -> int:
        return len(self._timestamps) - self._start

    def __bool__(self) -> bool:
        return len(self._timestamps) > self._start

    # -- snapshots ----------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Records ever appended (read ones included)."""
        return len(self._timestamps)

    def mark(self) -> tuple[int, int]:
        """A position to ``truncate`` back to: (records appended, records read)."""
        return len(self._timestamps), self._start

    def truncate(self, mark: tuple[int, int]) -> None:
        """Drop what was appended after ``mark`` and unread what was read since."""
        total, start = mark
        if total < len(self._timestamps):
            position = self._bounds[3 * total] if total else 0
            del self._data[position:]
            del self._bounds[3 * total:]
            del self._timestamps[total:]
            del self._partitions[total:]
            if self._topics is not None:
                del self._topic_ids[total:]
            for index in [i for i in self._headers if i >= total]:
                del self._headers[index]
        self._start = start
