"""The suppression buffer: Java's ``InMemoryTimeOrderedKeyValueChangeBuffer`` as a durable store.

It holds at most one entry per serialized key, ordered by ``(buffer time, key bytes)``; a key
keeps the buffer time of its first change until evicted (Java's non-resetting semantics); each
entry keeps the value before the first buffered change (``prior``), the latest change's old and
new values and the record context of the latest change; an eviction hands out the latest change
(new and old value, as Java's ``Eviction`` does), the prior value only answers
``prior_value_for_buffered``. Invariant: keys touched since the last ``flush`` are written to
the changelog on ``flush`` (the task's commit, in Java's ``HashSet`` order) with Java's layout —
``ProcessorRecordContext`` + ``BufferValue`` + 8-byte buffer time, with the header ``v`` =
``0x03`` (Java's changelog format version 3) — or as a tombstone (no header) once evicted, so
restoring the changelog rebuilds exactly the entries that were still buffered. Restore reads
every format Java's buffer reads, chosen by the record's ``v`` header: none (2.1's buffer time +
old + new), 1 (buffer time + ``ContextualRecord``), 2 (context + old + new + prior + time, or
version 3 bytes under a ``v`` = 2 header as 2.4.0-2.5.0 wrote them) and 3. A restore record
without headers (a bare ``(key, value[, timestamp])``) is read as version 3, which is all kslab
writes; a ``ChangelogRecord`` carries the headers, topic, partition and offset Java's
``ConsumerRecord`` does, and is what the test driver and the runtime restore from.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Self

from sortedcontainers import SortedList

from kslab.errors import InvalidArgumentError, StoreError
from kslab.records import Headers
from kslab.sensors import AvgMaxSensor
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder, StoreContext

__all__ = ["BufferEntry", "BufferValue", "ChangelogRecord", "SuppressionBuffer",
           "SuppressionBufferBuilder"]

_I = struct.Struct(">i")
_Q = struct.Struct(">q")
LONG_MAX = 0x7FFFFFFFFFFFFFFF  # Java's Long.MAX_VALUE: minTimestamp() of an empty buffer
_NULL, _DUPLICATE = -1, -2  # BufferValue's size sentinels: null, old value == prior value


class BufferEntry(NamedTuple):
    """One buffered key: its time, serialized values and the latest record context."""

    time: int
    key: bytes
    prior: bytes | None
    old: bytes | None
    new: bytes | None
    context: tuple[int, int, str, int, Any]  # timestamp, offset, topic, partition, headers

    def size(self) -> int:
        """Java's ``computeRecordSize``: buffer time, key and the value's size estimate."""
        values = sum(len(v) for v in (self.prior, self.new) if v is not None)
        if self.old is not None and self.old != self.prior:
            values += len(self.old)
        return 8 + len(self.key) + values + context_size(self.context)


def context_size(context: tuple[Any, ...]) -> int:
    """Java's ``ProcessorRecordContext.residentMemorySizeEstimate``: timestamp, offset, topic
    chars, partition, header keys and values."""
    topic, headers = context[2], context[4]
    size = 8 + 8 + 4 + (_java_chars(topic) if topic is not None else 0)
    for key, value in headers or ():
        size += _java_chars(key) + (len(value) if value is not None else 0)
    return size


def _java_chars(text: str) -> int:
    """``String.toCharArray().length``: UTF-16 code units (topics and header keys repeat, so
    each text's count is kept: an entry's size is computed at every buffered change)."""
    count = _JAVA_CHARS.get(text)
    if count is None:
        count = len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
        if len(_JAVA_CHARS) >= _JAVA_CHARS_MEMO:
            _JAVA_CHARS.clear()
        _JAVA_CHARS[text] = count
    return count


_JAVA_CHARS: dict[str, int] = {}
_JAVA_CHARS_MEMO = 1024


class BufferValue(NamedTuple):
    """Java's ``BufferValue``: the prior, old and new value bytes and the record context
    (timestamp, offset, topic, partition, headers); build it with ``of`` to share equal
    prior and old values as Java does."""

    prior: bytes | None
    old: bytes | None
    new: bytes | None
    context: tuple[int, int, str, int, Any] | None

    @classmethod
    def of(cls, prior: bytes | None, old: bytes | None, new: bytes | None,
           context: tuple[int, int, str, int, Any] | None) -> BufferValue:
        """Java's constructor: a prior value equal to the old value becomes the same object."""
        return cls(old if prior == old else prior, old, new, context)

    def resident_memory_size_estimate(self) -> int:
        """Value bytes (old only when it differs from prior) plus the context estimate."""
        size = sum(len(v) for v in (self.prior, self.new) if v is not None)
        if self.old is not None and self.old is not self.prior:
            size += len(self.old)
        return size + (context_size(self.context) if self.context is not None else 0)

    def serialize(self, end_padding: int = 0) -> bytes:
        """Context, prior, old (``-2`` when equal to prior) and new value, then
        ``end_padding`` zero bytes (Java leaves room there for the buffer time)."""
        parts = [serialize_context(self.context), _value(self.prior)]
        if self.old is None:
            parts.append(_I.pack(_NULL))
        elif self.old == self.prior:
            parts.append(_I.pack(_DUPLICATE))
        else:
            parts.append(_value(self.old))
        parts += [_value(self.new), bytes(end_padding)]
        return b"".join(parts)

    @classmethod
    def deserialize(cls, data: bytes, pos: int = 0) -> tuple[BufferValue, int]:
        """Read one at ``pos``; the value and the position after it."""
        reader = _Reader(data, pos)
        context = reader.context()
        prior = reader.nullable()
        size = reader.int()
        old = prior if size == _DUPLICATE else reader.array(size)
        new = reader.nullable()
        return cls.of(prior, old, new, context), reader.pos


class SuppressionBuffer(ChangelogBackedMemoryStore):
    """Buffered table changes per key, evicted in time order by the suppress processor."""

    store_kind = "suppression_buffer"

    def __init__(self, name: str, key_serde: Any, value_serde: Any, *,
                 logging_enabled: bool = True) -> None:
        super().__init__(name, key_serde, value_serde, logging_enabled=logging_enabled)
        self._entries: dict[bytes, BufferEntry] = {}
        self._order: SortedList = SortedList()
        self._dirty: dict[bytes, None] = {}  # insertion-ordered, as Java's HashSet buckets are
        self._dirty_capacity = 16
        self._partition = 0
        self._objects: dict[bytes, tuple[Any, Any, Any, Any]] = {}  # key, new, old, prior
        self._size = 0
        self._sensors: tuple[AvgMaxSensor, AvgMaxSensor] | None = None

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Bind serdes and the changelog; Kafka's buffer size and count sensors, sampled now
        and after every put, eviction and restore."""
        super().init(context, root)
        task_id = getattr(context, "task_id", None)
        self._partition = task_id.partition if task_id is not None else 0
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

    def flush_is_noop(self) -> bool:
        """True when ``flush_cache`` would do nothing (no key changed since the last)."""
        return not self._dirty

    def count_noop_flushes(self, times: int) -> None:
        """``flush_cache()`` ``times`` times while ``flush_is_noop``: nothing to do."""

    def flush(self) -> None:
        """Write every key changed since the last flush to the changelog, in the order Java's
        ``HashSet<Bytes>`` of dirty keys iterates them."""
        if not self._dirty:
            return
        dirty = self._dirty
        self._dirty_capacity = _hash_set_capacity(len(dirty), self._dirty_capacity)
        self._dirty = {}
        log = self._log
        if log is None:
            return
        for key in _hash_set_order(dirty, self._dirty_capacity):
            entry = self._entries.get(key)
            if entry is None:
                log(self._name, key, None)
            else:
                log(self._name, key, encode_entry(entry), entry.context[0], _v3_headers())

    def close(self) -> None:
        """Drop the entries (they live on in the changelog)."""
        self._entries.clear()
        self._objects.clear()
        self._order.clear()
        self._dirty.clear()
        self._size = 0
        self._sample()
        self._open = False

    # -- buffer operations ---------------------------------------------------------------------

    def put(self, time: int, key: Any, new: Any, old: Any,
            context: tuple[int, int, str, int, Any]) -> None:
        """Buffer the change ``old -> new`` of ``key`` at ``time``, replacing its entry."""
        if context is None:
            msg = "recordContext cannot be null"
            raise InvalidArgumentError(msg)
        topic = self.topic
        key_bytes = self.key_serde.serialize(topic, key)
        new_bytes = None if new is None else self.value_serde.serialize(topic, new)
        old_bytes = None if old is None else self.value_serde.serialize(topic, old)
        previous = self._entries.get(key_bytes)
        if previous is None:
            prior, prior_obj = old_bytes, old
        else:  # non-resetting: a key keeps its place (and time) in the queue
            time, prior = previous.time, previous.prior
            cached = self._objects.get(key_bytes)
            if cached is not None:
                prior_obj = cached[3]
            else:
                prior_obj = None if prior is None else self.value_serde.deserialize(topic, prior)
        self._put(BufferEntry(time, key_bytes, prior, old_bytes, new_bytes, context))
        self._objects[key_bytes] = (key, new, old, prior_obj)
        self._sample()

    def _put(self, entry: BufferEntry) -> None:
        previous = self._entries.pop(entry.key, None)
        if previous is not None:
            self._order.remove((previous.time, previous.key))
            self._size -= previous.size()
        self._entries[entry.key] = entry
        self._order.add((entry.time, entry.key))
        self._size += entry.size()
        self._dirty[entry.key] = None

    def prior_value_for_buffered(self, key: Any) -> tuple[bool, Any]:
        """Java's ``priorValueForBuffered``: ``(True, value before the buffered changes)`` for
        a buffered key (the value may be ``None``), ``(False, None)`` for one not buffered."""
        key_bytes = self.key_serde.serialize(self.topic, key)
        entry = self._entries.get(key_bytes)
        if entry is None:
            return False, None
        objects = self._objects.get(key_bytes)
        if objects is not None:
            return True, objects[3]
        prior = entry.prior
        return True, None if prior is None else self.value_serde.deserialize(self.topic, prior)

    def min_timestamp(self) -> int:
        """The smallest buffer time; Java's ``Long.MAX_VALUE`` when empty."""
        return self._order[0][0] if self._order else LONG_MAX

    def num_records(self) -> int:
        """How many keys are buffered."""
        return len(self._entries)

    def buffer_size(self) -> int:
        """The estimated bytes buffered (Java's ``bufferSize``)."""
        return self._size

    def evict_while(self, predicate: Callable[[], bool],
                    callback: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """Evict entries in time order while ``predicate()``: ``callback(key, new, old, ctx)``
        (Java's ``Eviction``: the latest change and its record context) sees the entry still
        buffered, which is removed after the callback returns."""
        evicted = 0
        try:
            while self._order and predicate():
                self._evict_next(callback)
                evicted += 1
        finally:
            if evicted:
                self._sample()

    def _evict_next(self, callback: Callable[[Any, Any, Any, tuple[Any, ...]], None]) -> None:
        """Hand the oldest entry to ``callback``, then take it out."""
        key_bytes = self._order[0][1]
        callback(*self.eviction(key_bytes))
        self._drop_oldest()

    def eviction(self, key_bytes: bytes) -> tuple[Any, Any, Any, tuple[Any, ...]]:
        """What evicting buffered ``key_bytes`` hands out: key, new and old value objects
        (kept since put, else deserialized) and the record context."""
        entry = self._entries[key_bytes]
        objects = self._objects.get(key_bytes)
        if objects is not None:  # skip a serde round trip for entries put in this run
            return objects[0], objects[1], objects[2], entry.context
        topic, des = self.topic, self.value_serde.deserialize
        return (self.key_serde.deserialize(topic, key_bytes),
                None if entry.new is None else des(topic, entry.new),
                None if entry.old is None else des(topic, entry.old), entry.context)

    def _drop_oldest(self) -> None:
        key_bytes = self._order[0][1]
        entry = self._entries[key_bytes]
        del self._order[0]
        del self._entries[key_bytes]
        self._objects.pop(key_bytes, None)
        self._size -= entry.size()
        self._dirty[key_bytes] = None

    def held_writes(self, run: Any) -> Any:
        """A run's puts and evictions held for phase two (``HeldBufferWrites``)."""
        from kslab.state.held_buffer import HeldBufferWrites

        return HeldBufferWrites(self, run, self._entries, self._objects, self._order)

    def put_entry(self, entry: BufferEntry, objects: tuple[Any, Any, Any, Any]) -> None:
        """``put``'s write of an entry a run's held writes built: ``objects`` its key, new,
        old and prior value objects."""
        self._put(entry)
        self._objects[entry.key] = objects
        self._sample()

    def drop_oldest(self, count: int) -> None:
        """``evict_while`` of the ``count`` oldest entries, handed out already."""
        for _ in range(count):
            self._drop_oldest()
        self._sample()

    def entries(self) -> list[BufferEntry]:
        """The buffered entries in eviction order."""
        return [self._entries[key] for _, key in self._order]

    # -- engine hooks --------------------------------------------------------------------------

    def snapshot(self) -> object:
        return dict(self._entries)

    def restore_snapshot(self, snapshot: object) -> None:
        self._objects.clear()
        self._entries.clear()
        self._order.clear()
        self._size = 0
        for entry in snapshot.values():  # type: ignore[attr-defined]
            self._put(entry)
        self._dirty.clear()

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        """Replay changelog records; a tombstone drops its key (see the module docstring for
        the formats)."""
        for record in records:
            if isinstance(record, ChangelogRecord) and record.partition != self._partition:
                msg = (f"record partition [{record.partition}] is being restored by the wrong "
                       f"suppress partition [{self._partition}]")
                raise StoreError(msg)
            key, value = record[0], record[1]
            if value is None:
                self._remove(key)
            else:
                self._objects.pop(key, None)
                entry, previous = self._read(record), self._entries.get(key)
                if previous is not None:  # Java's cleanPut: a key keeps its place in the queue
                    entry = entry._replace(time=previous.time)
                self._put(entry)
        self._dirty.clear()
        self._sample()

    def _remove(self, key: bytes) -> None:
        entry = self._entries.pop(key, None)
        self._objects.pop(key, None)
        if entry is not None:
            self._order.remove((entry.time, entry.key))
            self._size -= entry.size()

    def _read(self, record: tuple[Any, ...]) -> BufferEntry:
        """Decode one changelog value by its ``v`` header (none given: version 3)."""
        key, value, _, headers, *_ = _fields(record)
        if headers is None:
            return decode_entry(key, value)
        version = headers.last_header("v")
        if version is None or version.value == b"\x01":
            previous = self._entries.get(key)
            prior = None if previous is None else previous.prior
            if version is None:
                return _decode_v0(record, prior, previous is not None)
            return _decode_v1(key, value, prior, previous is not None)
        if version.value == b"\x03":
            return decode_entry(key, value)
        if version.value == b"\x02":
            return _duck_type_v2(key, value)
        msg = f"Restoring apparently invalid changelog record: {record!r}"
        raise InvalidArgumentError(msg)

    def __repr__(self) -> str:
        return f"<SuppressionBuffer '{self._name}' ({len(self._entries)} buffered)>"


class SuppressionBufferBuilder(StoreBuilder):
    """Builds ``SuppressionBuffer``s; the changelog is a plain compacted topic."""

    @property
    def persistent(self) -> bool:
        """In memory."""
        return False

    def with_caching_enabled(self) -> Self:
        """A no-op, as in Java: a buffer has no record cache."""
        return self

    def build(self) -> SuppressionBuffer:
        """A new, uninitialized buffer."""
        return SuppressionBuffer(self._name, self._key_serde, self._value_serde,
                                 logging_enabled=self._logging_enabled)


class ChangelogRecord(NamedTuple):
    """A changelog record to restore, with what Java's ``ConsumerRecord`` gives the buffer:
    the ``v`` header picks the format, and version 0 takes its record context from the rest."""

    key: bytes
    value: bytes | None
    timestamp: int = -1
    headers: Any = ()
    topic: str = ""
    partition: int = 0
    offset: int = -1


def _java_hash(data: bytes) -> int:
    """``Bytes.hashCode``: ``Arrays.hashCode`` of the signed bytes, spread as ``HashMap``
    spreads it."""
    h = 1
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _hash_set_capacity(size: int, capacity: int) -> int:
    """The table size of a ``HashSet`` that grew to ``size`` keys (it never shrinks)."""
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def _hash_set_order(keys: dict[bytes, None], capacity: int) -> list[bytes]:
    """Java's ``HashSet`` iteration: by bucket, then insertion order within a bucket."""
    if len(keys) < 2:
        return list(keys)
    mask = capacity - 1
    return sorted(keys, key=lambda key: _java_hash(key) & mask)


def _v3_headers() -> Headers:
    """Java's ``CHANGELOG_HEADERS``: ``v`` = 3."""
    return Headers().add("v", b"\x03")


def _value(data: bytes | None) -> bytes:
    return _I.pack(_NULL) if data is None else _I.pack(len(data)) + data


def serialize_context(context: tuple[int, int, str, int, Any] | None) -> bytes:
    """Java's ``ProcessorRecordContext.serialize``: timestamp, offset, topic, partition and
    the headers (count, then each key and nullable value, all size-prefixed)."""
    timestamp, offset, topic, partition, headers = context or (0, 0, "", 0, None)
    topic_bytes = (topic or "").encode()
    pairs = list(headers or ())
    parts = [_Q.pack(timestamp), _Q.pack(offset if offset is not None else -1),
             _I.pack(len(topic_bytes)), topic_bytes, _I.pack(partition or 0),
             _I.pack(len(pairs))]
    for key, value in pairs:
        key_bytes = key.encode()
        parts += [_I.pack(len(key_bytes)), key_bytes, _value(value)]
    return b"".join(parts)


class _Reader:
    """Java's ``ByteBuffer`` reads over changelog bytes, failing as Java does on short data
    (``BufferUnderflowException``) or a negative size (``NegativeArraySizeException``)."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        if n < 0 or n > len(self.data) - self.pos:
            msg = f"cannot read {n} bytes at {self.pos} of {len(self.data)}"
            raise ValueError(msg)
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def int(self) -> int:
        return _I.unpack(self.take(4))[0]

    def long(self) -> int:
        return _Q.unpack(self.take(8))[0]

    def array(self, size: int) -> bytes | None:
        return None if size == _NULL else self.take(size)

    def nullable(self) -> bytes | None:
        return self.array(self.int())

    def context(self) -> tuple[int, int, str, int, Headers]:
        """``ProcessorRecordContext.deserialize`` (a header count of -1 reads as none)."""
        timestamp, offset = self.long(), self.long()
        topic = self.take(self.int()).decode()
        partition = self.int()
        headers = Headers()
        count = self.int()
        for _ in range(max(count, 0)):
            name = self.take(self.int()).decode()
            headers.add(name, self.nullable())
        return timestamp, offset, topic, partition, headers

    def legacy_change(self) -> tuple[bytes | None, bytes | None]:
        """``FullChangeSerde.decomposeLegacyFormattedArrayIntoChangeArrays`` of a nullable
        array: ``(old, new)``; a null array fails as Java's ``requireNonNull``."""
        inner = self.nullable()
        if inner is None:
            msg = "null change"
            raise ValueError(msg)
        change = _Reader(inner)
        old = change.nullable()
        return old, change.nullable()


def encode_entry(entry: BufferEntry) -> bytes:
    """Version 3: ``BufferValue`` then the 8-byte buffer time."""
    value = BufferValue.of(entry.prior, entry.old, entry.new, entry.context)
    return value.serialize() + _Q.pack(entry.time)


def decode_entry(key: bytes, data: bytes) -> BufferEntry:
    """Version 3 (``deserializeV3``)."""
    value, pos = BufferValue.deserialize(data)
    return _entry(_Reader(data, pos).long(), key, value)


def _entry(time: int, key: bytes, value: BufferValue) -> BufferEntry:
    return BufferEntry(time, key, value.prior, value.old, value.new, value.context)


def _decode_v2(key: bytes, data: bytes) -> BufferEntry:
    """Version 2: ``ContextualRecord`` (context + legacy change), prior value, buffer time."""
    reader = _Reader(data)
    context = reader.context()
    old, new = reader.legacy_change()
    prior = reader.nullable()
    return _entry(reader.long(), key, BufferValue.of(prior, old, new, context))


def _duck_type_v2(key: bytes, data: bytes) -> BufferEntry:
    """A ``v`` = 2 record: version 2 bytes, or version 3 bytes (2.4.0, 2.4.1 and 2.5.0 wrote
    those under the version 2 header)."""
    try:
        return _decode_v2(key, data)
    except ValueError as v2_error:
        try:
            return decode_entry(key, data)
        except ValueError as v3_error:
            msg = f"Couldn't deserialize record as v2 or v3: key={key!r} ({v2_error}; {v3_error})"
            raise StoreError(msg) from v3_error


def _decode_v1(key: bytes, data: bytes, prior: bytes | None, buffered: bool) -> BufferEntry:
    """Version 1: buffer time, then ``ContextualRecord``; the prior value is the buffered
    one when the key is already buffered, else the change's old value."""
    reader = _Reader(data)
    time = reader.long()
    context = reader.context()
    old, new = reader.legacy_change()
    return _entry(time, key, BufferValue.of(prior if buffered else old, old, new, context))


def _decode_v0(record: tuple[Any, ...], prior: bytes | None, buffered: bool) -> BufferEntry:
    """Version 0 (no header): buffer time, old and new value; the record context is the
    changelog record's own (its topic, offset, partition, timestamp and headers)."""
    key, data, timestamp, headers, topic, partition, offset = _fields(record)
    reader = _Reader(data)
    time = reader.long()
    old = reader.nullable()
    new = reader.nullable()
    context = (timestamp, offset, topic, partition, headers)
    return _entry(time, key, BufferValue.of(prior if buffered else old, old, new, context))


def _fields(record: tuple[Any, ...]) -> tuple[Any, ...]:
    """A restore record as ``ChangelogRecord`` fields (engines' tuples lack the tail)."""
    if isinstance(record, ChangelogRecord):
        headers = record.headers
        return (record.key, record.value, record.timestamp,
                headers if isinstance(headers, Headers) else Headers(headers or ()),
                record.topic, record.partition, record.offset)
    timestamp = record[2] if len(record) > 2 else -1
    return record[0], record[1], timestamp, None, "", 0, -1
