"""The grace buffer of stream-table joins with a grace period (KIP-923).

Java's ``RocksDBTimeOrderedKeyValueBuffer``: stream records wait here until stream time (the
largest timestamp buffered) passes their timestamp plus the grace period, and leave in timestamp
order (then key bytes, then arrival). Invariant: every put and every eviction is written to the
changelog at once, as Java writes it: key = 8-byte timestamp + key bytes + 4-byte sequence
number (Java's time-first window key), value = ``BufferValue`` (record context, no prior or old
value, the new value) + 8 zero bytes; an eviction is a tombstone. Restoring replays exactly that.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from typing import Any

from sortedcontainers import SortedDict

from kslab.records import Headers
from kslab.state.base import ChangelogBackedMemoryStore, StoreBuilder
from kslab.state.buffer import BufferEntry, _decode, _encode

__all__ = ["JoinBuffer", "JoinBufferBuilder", "buffer_key"]

_Q = struct.Struct(">q")
_I = struct.Struct(">i")
_MAX_SEQ = 0x7FFFFFFF
_NO_TIMESTAMP = -1


def buffer_key(key_bytes: bytes, timestamp: int, seq: int) -> bytes:
    """Java's ``TimeFirstWindowKeySchema.toStoreKeyBinary``: timestamp, key, sequence number."""
    return _Q.pack(timestamp) + key_bytes + _I.pack(seq)


class JoinBuffer(ChangelogBackedMemoryStore):
    """Stream records held for ``grace`` ms of stream time, released oldest first."""

    store_kind = "time_ordered_buffer"

    def __init__(self, name: str, grace: int, key_serde: Any = None, value_serde: Any = None,
                 *, logging_enabled: bool = True) -> None:
        super().__init__(name, key_serde, value_serde, logging_enabled=logging_enabled)
        self.grace = grace
        # (timestamp, key bytes, seq) -> [key, value, context, entry bytes or None]
        self._entries: SortedDict = SortedDict()
        self._seq = 0
        self.observed = _NO_TIMESTAMP

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
        timestamp = context[0]
        if self.observed - self.grace > timestamp:
            return False
        self._seq = (self._seq + 1) & _MAX_SEQ
        key_bytes = self.key_serde.serialize(self.topic, key)
        entry_key = (timestamp, key_bytes, self._seq)
        self._entries[entry_key] = [key, value, context]
        self.observed = max(self.observed, timestamp)
        log = self._log
        if log is not None:
            new = self.value_serde.serialize(self.topic, value)
            log(self._name, buffer_key(key_bytes, timestamp, self._seq),
                _encode(BufferEntry(0, key_bytes, None, None, new, context)), timestamp)
        return True

    def evict(self, callback: Callable[[Any, Any, tuple[Any, ...]], None]) -> None:
        """Release, oldest first, every record at or before stream time - grace."""
        limit = self.observed - self.grace
        entries = self._entries
        while entries:
            entry_key = entries.peekitem(0)[0]
            if entry_key[0] > limit:
                break
            key, value, context = entries.popitem(0)[1]
            if self._log is not None:
                self._log(self._name, buffer_key(entry_key[1], entry_key[0], entry_key[2]),
                          None, entry_key[0])
            if value is _UNREAD:  # restored: deserialize now
                key = self.key_serde.deserialize(self.topic, entry_key[1])
                value = self.value_serde.deserialize(self.topic, context[5])
                context = context[:5]
            callback(key, value, context)

    def num_records(self) -> int:
        """How many records are buffered."""
        return len(self._entries)

    # -- engine hooks --------------------------------------------------------------------------

    def _snapshot(self) -> object:
        return ({k: list(v) for k, v in self._entries.items()}, self._seq, self.observed)

    def _restore_snapshot(self, snapshot: object) -> None:
        entries, self._seq, self.observed = snapshot  # type: ignore[misc]
        self._entries = SortedDict({k: list(v) for k, v in entries.items()})

    def _restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            binary, value = record[0], record[1]
            timestamp = _Q.unpack_from(binary)[0]
            seq = _I.unpack_from(binary, len(binary) - 4)[0]
            entry_key = (timestamp, binary[8:-4], seq)
            self.observed = max(self.observed, timestamp)
            self._seq = max(self._seq, seq)
            if value is None:
                self._entries.pop(entry_key, None)
                continue
            entry = _decode(binary[8:-4], value)
            ts, offset, topic, partition, headers = entry.context
            self._entries[entry_key] = [None, _UNREAD,
                                        (ts, offset, topic, partition, headers or Headers(),
                                         entry.new)]

    def __repr__(self) -> str:
        return f"<JoinBuffer '{self._name}' ({len(self._entries)} buffered)>"


_UNREAD = object()


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

    def build(self) -> JoinBuffer:
        """A new, uninitialized buffer."""
        return JoinBuffer(self._name, self.grace, self._key_serde, self._value_serde,
                          logging_enabled=self._logging_enabled)
