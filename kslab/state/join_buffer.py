"""The grace buffer of stream-table joins with a grace period (KIP-923).

Java's ``RocksDBTimeOrderedKeyValueBuffer``: stream records wait here until stream time (the
largest timestamp buffered) passes their timestamp plus the grace period, and leave in timestamp
order of Java's store key (a ``0x00`` prefix, the 8-byte timestamp, the key bytes and a 4-byte
sequence number: ``TimeFirstWindowKeySchema.toStoreKeyBinary``). Invariant: every put and every
eviction is written to the changelog at once: the store key, prefix byte included (as Java's
``logValue`` sends it), and the value ``BufferValue`` (record context, no prior or old value, the
new value) + 8 zero bytes, with no headers; an eviction is a tombstone. Restoring replays exactly
that (Java's own restore reads the key as a non-prefixed window key, which does not round-trip
what it logs; kslab restores its logged bytes as they are). Size, count and the minimum
timestamp follow Java's bookkeeping, including its minimum after an eviction pass (stream time -
grace + 1 while records remain).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from typing import Any, Self

from sortedcontainers import SortedDict

from kslab.errors import InvalidArgumentError
from kslab.records import Headers
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder
from kslab.state.buffer import LONG_MAX, BufferEntry, context_size, decode_entry, encode_entry

__all__ = ["JoinBuffer", "JoinBufferBuilder", "buffer_key"]

_Q = struct.Struct(">q")
_I = struct.Struct(">i")
_MAX_SEQ = 0x7FFFFFFF
_NO_TIMESTAMP = -1


_TIME_FIRST_PREFIX = b"\x00"


def buffer_key(key_bytes: bytes, timestamp: int, seq: int) -> bytes:
    """Java's ``TimeFirstWindowKeySchema.toStoreKeyBinary``: prefix, timestamp, key, sequence."""
    return _TIME_FIRST_PREFIX + _Q.pack(timestamp) + key_bytes + _I.pack(seq)


def _changelog_key(store_key: bytes) -> bytes:
    """The changelog key: the whole store key, prefix byte included, as Java logs it."""
    return store_key


def _timestamp(store_key: bytes) -> int:
    return _Q.unpack_from(store_key, 1)[0]


class JoinBuffer(ChangelogBackedMemoryStore):
    """Stream records held for ``grace`` ms of stream time, released oldest first."""

    store_kind = "time_ordered_buffer"

    def __init__(self, name: str, grace: int, key_serde: Any = None, value_serde: Any = None,
                 *, logging_enabled: bool = True) -> None:
        super().__init__(name, key_serde, value_serde, logging_enabled=logging_enabled)
        self.grace = grace
        # store key -> [key, value, context, size]; a restored entry's key is None and its
        # value _UNREAD, its context carrying the value bytes as a sixth field
        self._entries: SortedDict = SortedDict()
        self._seq = 0
        self.observed = _NO_TIMESTAMP
        self._size = 0
        self._min = LONG_MAX

    def flush(self) -> None:
        """Nothing to do: every change is logged when made."""

    def close(self) -> None:
        """Drop the entries (they live on in the changelog)."""
        self._entries.clear()
        self._open = False

    # -- buffer operations ---------------------------------------------------------------------

    def put(self, key: Any, value: Any, context: tuple[int, int, str, int, Any]) -> bool:
        """Buffer a record (``context``: timestamp, offset, topic, partition, headers).

        Returns False, buffering nothing, when it is already older than stream time - grace.
        """
        if value is None or key is None or context is None:
            what = "value" if value is None else "key" if key is None else "recordContext"
            msg = f"{what} cannot be null"
            raise InvalidArgumentError(msg)
        timestamp = context[0]
        if self.observed - self.grace > timestamp:
            return False
        self._seq = (self._seq + 1) & _MAX_SEQ
        key_bytes = self.key_serde.serialize(self.topic, key)
        store_key = buffer_key(key_bytes, timestamp, self._seq)
        new = self.value_serde.serialize(self.topic, value)
        size = len(store_key) + len(new or b"") + context_size(context)
        self._entries[store_key] = [key, value, context, size]
        self.observed = max(self.observed, timestamp)
        self._size += size
        self._min = min(self._min, timestamp)
        if self._log is not None:
            self._log(self._name, _changelog_key(store_key),
                      encode_entry(BufferEntry(0, key_bytes, None, None, new, context)), timestamp)
        return True

    def evict(self, callback: Callable[[Any, Any, tuple[Any, ...]], None]) -> None:
        """Release, oldest first, every record at or before stream time - grace."""
        self.evict_while(_always, callback)

    def evict_while(self, predicate: Callable[[], bool],
                    callback: Callable[[Any, Any, tuple[Any, ...]], None]) -> None:
        """Java's ``evictWhile``: while ``predicate()``, release the oldest record at or before
        stream time - grace to ``callback(key, value, context)``, then remove and log it."""
        if not predicate():
            return
        limit = self.observed - self.grace
        entries = self._entries
        while entries and predicate():
            store_key = entries.peekitem(0)[0]
            timestamp = _timestamp(store_key)
            if timestamp > limit:
                break
            self._min = timestamp
            key, value, context, size = entries[store_key]
            if value is _UNREAD:  # restored: deserialize now
                key = self.key_serde.deserialize(self.topic, store_key[9:-4])
                value = self.value_serde.deserialize(self.topic, context[5])
                context = context[:5]
            callback(key, value, context)
            del entries[store_key]
            if self._log is not None:
                self._log(self._name, _changelog_key(store_key), None, timestamp)
            self._size -= size
        self._min = LONG_MAX if not entries else limit + 1

    def num_records(self) -> int:
        """How many records are buffered."""
        return len(self._entries)

    def buffer_size(self) -> int:
        """Java's ``bufferSize``: store key bytes, value bytes and record context estimates."""
        return self._size

    def min_timestamp(self) -> int:
        """Java's ``minTimestamp`` bookkeeping (``Long.MAX_VALUE`` when empty)."""
        return self._min

    # -- engine hooks --------------------------------------------------------------------------

    def snapshot(self) -> object:
        return ({k: list(v) for k, v in self._entries.items()}, self._seq, self.observed,
                self._size, self._min)

    def restore_snapshot(self, snapshot: object) -> None:
        entries, self._seq, self.observed, *rest = snapshot  # type: ignore[misc]
        self._size, self._min = rest
        self._entries = SortedDict({k: list(v) for k, v in entries.items()})

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            store_key, value = bytes(record[0]), record[1]
            timestamp = _timestamp(store_key)
            seq = _I.unpack_from(store_key, len(store_key) - 4)[0]
            self.observed = max(self.observed, timestamp)
            self._seq = max(self._seq, seq)
            previous = self._entries.pop(store_key, None)
            if previous is not None:
                self._size -= previous[3]
            if value is None:
                continue
            entry = decode_entry(store_key[9:-4], value)
            ts, offset, topic, partition, headers = entry.context
            context = (ts, offset, topic, partition, headers or Headers())
            size = len(store_key) + len(entry.new or b"") + context_size(context)
            self._entries[store_key] = [None, _UNREAD, (*context, entry.new), size]
            self._size += size
            self._min = min(self._min, timestamp)

    def __repr__(self) -> str:
        return f"<JoinBuffer '{self._name}' ({len(self._entries)} buffered)>"


_UNREAD = object()


def _always() -> bool:
    return True


class JoinBufferBuilder(StoreBuilder):
    """Builds ``JoinBuffer``s (Java's ``RocksDBTimeOrderedKeyValueBuffer.Builder``)."""

    def __init__(self, name: str, grace: int, key_serde: Any = None,
                 value_serde: Any = None) -> None:
        super().__init__(name, key_serde, value_serde)
        self.grace = grace

    @property
    def persistent(self) -> bool:
        """In memory, restored from its changelog."""
        return False

    def with_caching_enabled(self) -> Self:
        """A no-op, as in Java: a buffer has no record cache."""
        return self

    def build(self) -> JoinBuffer:
        """A new, uninitialized buffer."""
        return JoinBuffer(self._name, self.grace, self._key_serde, self._value_serde,
                          logging_enabled=self._logging_enabled)
