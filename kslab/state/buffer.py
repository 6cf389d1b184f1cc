"""The suppression buffer: Java's ``InMemoryTimeOrderedKeyValueChangeBuffer`` as a durable store.

It holds at most one entry per serialized key, ordered by ``(buffer time, key bytes)``; a key
keeps the buffer time of its first change until evicted (Java's non-resetting semantics); each
entry keeps the value before the first buffered change (``prior``), the latest change's old and
new values and the record context of the latest change. Invariant: keys touched since the last
``flush`` are written to the changelog on ``flush`` (the task's commit) with Java's byte layout —
``ProcessorRecordContext`` + ``BufferValue`` + 8-byte buffer time, with the header ``v`` =
``0x03`` (Java's changelog format version 3) — or as a tombstone (no header) once evicted, so
restoring the changelog rebuilds exactly the entries that were still buffered. Restore reads
version 3, the only format Kafka 4.0 writes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from sortedcontainers import SortedList

from kslab.records import Headers
from kslab.sensors import AvgMaxSensor
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder, StoreContext

__all__ = ["BufferEntry", "SuppressionBuffer", "SuppressionBufferBuilder"]

_I = struct.Struct(">i")
_Q = struct.Struct(">q")


class BufferEntry(NamedTuple):
    """One buffered key: its time, serialized values and the latest record context."""

    time: int
    key: bytes
    prior: bytes | None
    old: bytes | None
    new: bytes | None
    context: tuple[int, int, str, int, Any]  # timestamp, offset, topic, partition, headers

    def size(self) -> int:
        """Java's ``computeRecordSize``: key, time, values and the record context estimate."""
        values = sum(len(v) for v in (self.prior, self.new) if v is not None)
        if self.old is not None and self.old != self.prior:
            values += len(self.old)
        topic, headers = self.context[2], self.context[4]
        header_bytes = 0
        for key, value in headers or ():
            header_bytes += len(key) + (len(value) if value is not None else 0)
        return len(self.key) + 8 + values + 8 + 8 + 4 + len(topic or "") + header_bytes


class SuppressionBuffer(ChangelogBackedMemoryStore):
    """Buffered table changes per key, evicted in time order by the suppress processor."""

    store_kind = "suppression_buffer"

    def __init__(self, name: str, key_serde: Any, value_serde: Any, *,
                 logging_enabled: bool = True) -> None:
        super().__init__(name, key_serde, value_serde, logging_enabled=logging_enabled)
        self._entries: dict[bytes, BufferEntry] = {}
        self._order: SortedList = SortedList()
        self._dirty: set[bytes] = set()
        self._objects: dict[bytes, tuple[Any, Any, Any]] = {}
        self._size = 0
        self._sensors: tuple[AvgMaxSensor, AvgMaxSensor] | None = None

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Bind serdes and the changelog; Kafka's buffer size and count sensors, sampled now
        and after every put, eviction and restore."""
        super().init(context, root)
        node_metrics = getattr(context, "node_metrics", None)
        if node_metrics is not None:
            metrics = node_metrics(self._name)
            clock = context.current_system_time_ms
            self._sensors = (AvgMaxSensor(metrics, "suppression-buffer-size", clock),
                             AvgMaxSensor(metrics, "suppression-buffer-count", clock))
        self._sample()

    def _sample(self) -> None:
        if self._sensors is not None:
            self._sensors[0].record(self._size)
            self._sensors[1].record(len(self._entries))

    def flush_cache(self) -> None:
        """The task's commit: log the changed keys (Java logs the buffer on commit)."""
        self.flush()

    def flush(self) -> None:
        """Write every key changed since the last flush to the changelog."""
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, set()
        log = self._log
        if log is None:
            return
        for key in sorted(dirty):
            entry = self._entries.get(key)
            if entry is None:
                log(self._name, key, None)
            else:
                log(self._name, key, _encode(entry), entry.context[0], _v3_headers())

    def close(self) -> None:
        """Drop the entries (they live on in the changelog)."""
        self._entries.clear()
        self._objects.clear()
        self._order.clear()
        self._size = 0
        self._sample()
        self._open = False

    # -- buffer operations ---------------------------------------------------------------------

    def put(self, time: int, key: Any, new: Any, old: Any,
            context: tuple[int, int, str, int, Any]) -> None:
        """Buffer the change ``old -> new`` of ``key`` at ``time``, replacing its entry."""
        topic = self.topic
        key_bytes = self.key_serde.serialize(topic, key)
        new_bytes = None if new is None else self.value_serde.serialize(topic, new)
        old_bytes = None if old is None else self.value_serde.serialize(topic, old)
        previous = self._entries.get(key_bytes)
        prior = old_bytes if previous is None else previous.prior
        prior_obj = old if previous is None else self._objects.get(key_bytes, (0, 0, None))[2]
        if previous is not None:  # non-resetting: a key keeps its place (and time) in the queue
            time = previous.time
            if key_bytes not in self._objects and prior is not None:
                prior_obj = self.value_serde.deserialize(topic, prior)
        self._put(BufferEntry(time, key_bytes, prior, old_bytes, new_bytes, context))
        self._objects[key_bytes] = (key, new, prior_obj)
        self._sample()

    def _put(self, entry: BufferEntry) -> None:
        previous = self._entries.pop(entry.key, None)
        if previous is not None:
            self._order.remove((previous.time, previous.key))
            self._size -= previous.size()
        self._entries[entry.key] = entry
        self._order.add((entry.time, entry.key))
        self._size += entry.size()
        self._dirty.add(entry.key)

    def prior_value_for_buffered(self, key: Any) -> tuple[bool, Any]:
        """Java's ``priorValueForBuffered``: ``(True, value before the buffered changes)`` for
        a buffered key (the value may be ``None``), ``(False, None)`` for one not buffered."""
        key_bytes = self.key_serde.serialize(self.topic, key)
        entry = self._entries.get(key_bytes)
        if entry is None:
            return False, None
        objects = self._objects.get(key_bytes)
        if objects is not None:
            return True, objects[2]
        prior = entry.prior
        return True, None if prior is None else self.value_serde.deserialize(self.topic, prior)

    def min_timestamp(self) -> int | None:
        """The smallest buffer time, or ``None`` when empty."""
        return self._order[0][0] if self._order else None

    def num_records(self) -> int:
        """How many keys are buffered."""
        return len(self._entries)

    def buffer_size(self) -> int:
        """The estimated bytes buffered (Java's ``bufferSize``)."""
        return self._size

    def evict_while(self, predicate: Callable[[], bool],
                    callback: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """Evict entries in time order while ``predicate()``; ``callback(key, new, prior, ctx)``."""
        topic = self.topic
        evicted = 0
        try:
            while self._order and predicate():
                evicted += 1
                self._evict_next(topic, callback)
        finally:
            if evicted:
                self._sample()

    def _evict_next(self, topic: str,
                    callback: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """Take the oldest entry out and hand it to ``callback``."""
        _, key_bytes = self._order.pop(0)
        entry = self._entries.pop(key_bytes)
        self._size -= entry.size()
        self._dirty.add(key_bytes)
        objects = self._objects.pop(key_bytes, None)
        if objects is not None:  # skip a serde round trip for entries put in this run
            callback(objects[0], objects[1], objects[2], entry.context)
            return
        des = self.value_serde.deserialize
        callback(self.key_serde.deserialize(topic, key_bytes),
                 None if entry.new is None else des(topic, entry.new),
                 None if entry.prior is None else des(topic, entry.prior), entry.context)

    def entries(self) -> list[BufferEntry]:
        """The buffered entries in eviction order."""
        return [self._entries[key] for _, key in self._order]

    # -- engine hooks --------------------------------------------------------------------------

    def _snapshot(self) -> object:
        return dict(self._entries)

    def _restore_snapshot(self, snapshot: object) -> None:
        self._objects.clear()
        self._entries.clear()
        self._order.clear()
        self._size = 0
        for entry in snapshot.values():  # type: ignore[attr-defined]
            self._put(entry)
        self._dirty.clear()

    def _restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            key, value = record[0], record[1]
            if value is None:
                entry = self._entries.pop(key, None)
                self._objects.pop(key, None)
                if entry is not None:
                    self._order.remove((entry.time, entry.key))
                    self._size -= entry.size()
            else:
                self._put(_decode(key, value))
        self._dirty.clear()
        self._sample()

    def __repr__(self) -> str:
        return f"<SuppressionBuffer '{self._name}' ({len(self._entries)} buffered)>"


class SuppressionBufferBuilder(StoreBuilder):
    """Builds ``SuppressionBuffer``s; the changelog is a plain compacted topic."""

    @property
    def persistent(self) -> bool:
        """In memory."""
        return False

    def build(self) -> SuppressionBuffer:
        """A new, uninitialized buffer."""
        return SuppressionBuffer(self._name, self._key_serde, self._value_serde,
                                 logging_enabled=self._logging_enabled)


def _v3_headers() -> Headers:
    """Java's ``CHANGELOG_HEADERS``: ``v`` = 3."""
    return Headers().add("v", b"\x03")


def _value(data: bytes | None) -> bytes:
    return _I.pack(-1) if data is None else _I.pack(len(data)) + data


def _encode(entry: BufferEntry) -> bytes:
    timestamp, offset, topic, partition, headers = entry.context
    topic_bytes = (topic or "").encode()
    parts = [_Q.pack(timestamp), _Q.pack(offset if offset is not None else -1),
             _I.pack(len(topic_bytes)), topic_bytes, _I.pack(partition or 0)]
    pairs = list(headers or ())
    parts.append(_I.pack(len(pairs)))
    for key, value in pairs:
        key_bytes = key.encode()
        parts += [_I.pack(len(key_bytes)), key_bytes, _value(value)]
    parts.append(_value(entry.prior))
    if entry.old is not None and entry.old == entry.prior:
        parts.append(_I.pack(-2))
    else:
        parts.append(_value(entry.old))
    parts += [_value(entry.new), _Q.pack(entry.time)]
    return b"".join(parts)


def _decode(key: bytes, data: bytes) -> BufferEntry:
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        chunk = data[pos:pos + n]
        pos += n
        return chunk

    def read_value() -> bytes | None:
        size = _I.unpack(take(4))[0]
        return None if size < 0 else take(size)

    timestamp = _Q.unpack(take(8))[0]
    offset = _Q.unpack(take(8))[0]
    topic = take(_I.unpack(take(4))[0]).decode()
    partition = _I.unpack(take(4))[0]
    headers = Headers()
    for _ in range(_I.unpack(take(4))[0]):
        name = take(_I.unpack(take(4))[0]).decode()
        headers.add(name, read_value())
    prior = read_value()
    size = _I.unpack(take(4))[0]
    old = prior if size == -2 else (None if size < 0 else take(size))
    new = read_value()
    time = _Q.unpack(take(8))[0]
    return BufferEntry(time, key, prior, old, new, (timestamp, offset, topic, partition, headers))
