"""The bounded in-memory backend: an LRU map that evicts its least recently used key when full.

Invariant: after every write the map holds at most ``max_cache_size`` keys, ordered from least to
most recently used, where ``get`` and ``put`` count as uses (Java's access-ordered
``LinkedHashMap`` in ``MemoryLRUCache``). Each eviction made by a write is reported to
``on_evict`` so the store can log a tombstone for it; evictions during a restore are not.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path

from kslab.state.backends._keys import increment, is_inverted
from kslab.state.base import KeyValueBackend

__all__ = ["LRUKeyValueBackend"]


class LRUKeyValueBackend(KeyValueBackend):
    """Java's ``MemoryNavigableLRUCache`` over bytes; scans read a sorted copy and touch nothing."""

    persistent = False

    def __init__(self, name: str, max_cache_size: int) -> None:
        super().__init__(name)
        self.max_cache_size = max_cache_size
        self._map: OrderedDict[bytes, bytes] = OrderedDict()

    def open(self, directory: Path | None) -> None:
        """Nothing to open."""

    def close(self) -> None:
        """Drop every entry."""
        self._map.clear()

    def flush(self) -> None:
        """Nothing to flush."""

    def get(self, key: bytes) -> bytes | None:
        """The value at ``key`` (now the most recently used), or ``None``."""
        entries = self._map
        value = entries.get(key)
        if value is not None:
            entries.move_to_end(key)
        return value

    def put(self, key: bytes, value: bytes) -> None:
        """Write ``value`` at ``key``; a new key may evict the least recently used one."""
        entries = self._map
        entries[key] = value
        entries.move_to_end(key)
        if len(entries) > self.max_cache_size:
            self._evict(self.on_evict)

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent; return the value that was there."""
        old = self.get(key)
        if old is None:
            self.put(key, value)
        return old

    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write every pair in order; a ``None`` value deletes."""
        for key, value in entries:
            if value is None:
                self.delete(key)
            else:
                self.put(key, value)

    def restore_batch(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write changelog pairs; evictions still happen but are not reported."""
        listener, self.on_evict = self.on_evict, None
        try:
            self.put_all(entries)
        finally:
            self.on_evict = listener

    def delete(self, key: bytes) -> bytes | None:
        """Remove ``key``; return the value that was there."""
        return self._map.pop(key, None)

    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, ascending, as of now."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        return iter(self._sorted(from_key, to_key, inclusive_end=True))

    def reverse_range(
        self, from_key: bytes | None, to_key: bytes | None
    ) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, descending, as of now."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        return reversed(self._sorted(from_key, to_key, inclusive_end=True))

    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Pairs whose key starts with ``prefix``, ascending, as of now."""
        return iter(self._sorted(prefix, increment(prefix), inclusive_end=False))

    def approximate_num_entries(self) -> int:
        """The exact number of keys."""
        return len(self._map)

    def snapshot(self) -> OrderedDict[bytes, bytes]:
        """A copy that keeps the recency order."""
        return OrderedDict(self._map)

    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the contents and recency order with ``snapshot``."""
        if not isinstance(snapshot, dict):
            msg = f"snapshot for LRU store '{self.name}' must be a dict, got {snapshot!r}"
            raise TypeError(msg)
        self._map.clear()
        self._map.update(snapshot)

    def _evict(self, listener: object) -> None:
        entries = self._map
        while len(entries) > self.max_cache_size:
            key, value = entries.popitem(last=False)
            if listener is not None:
                listener(key, value)  # type: ignore[operator]

    def _sorted(
        self, lower: bytes | None, upper: bytes | None, *, inclusive_end: bool
    ) -> list[tuple[bytes, bytes]]:
        items = sorted(self._map.items())
        return [
            (key, value)
            for key, value in items
            if (lower is None or key >= lower)
            and (upper is None or key < upper or (inclusive_end and key == upper))
        ]
