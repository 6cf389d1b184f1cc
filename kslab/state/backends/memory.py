"""The in-memory sorted key-value backend: a dict for point operations, a sorted key list for scans.

Invariant: ``_keys`` holds the keys of ``_map`` sorted as unsigned bytes, except the keys added
since the last scan: those are the last ``len(_map) - len(_keys)`` keys of ``_map`` in its
insertion order (a delete syncs first, so the two only differ by additions), and ``_sync`` adds
them before anything reads ``_keys``. So the per-record hot path (get and put) is the dict's own
C methods with no Python frame, and the sorted list changes only when a scan needs it. ``_map``
is never replaced, because ``get`` and ``put`` are bound straight to its methods.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import compress, islice, repeat
from operator import is_not
from pathlib import Path

from sortedcontainers import SortedList

from kslab.state.backends._keys import increment, is_inverted
from kslab.state.base import KeyValueBackend

__all__ = ["InMemoryKeyValueBackend"]


class _LiveScan(compress):  # type: ignore[type-arg]
    """A scan of the live map (``compress`` in C) that tells its ``KeyValueIterator`` how to
    recheck a key it peeked at: Java's in-memory iterator rechecks ``map.containsKey``."""

    __slots__ = ("recheck",)


class InMemoryKeyValueBackend(KeyValueBackend):
    """Java's ``InMemoryKeyValueStore`` over bytes: sorted, unbounded, gone when closed."""

    persistent = False
    last_write_wins = True

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._map: dict[bytes, bytes] = {}
        self._keys: SortedList = SortedList()
        # The typed view calls backend.get and put once per record: skip a Python frame
        # (a subclass with a put of its own keeps it).
        self.get = self._map.get  # type: ignore[method-assign]
        if type(self).put is InMemoryKeyValueBackend.put:
            self.put = self._map.__setitem__  # type: ignore[method-assign]

    def _sync(self) -> SortedList:
        """The sorted keys, with the keys added since the last scan (see the invariant)."""
        keys = self._keys
        added = len(self._map) - len(keys)
        if added:
            keys.update(islice(reversed(self._map), added))
        return keys

    def open(self, directory: Path | None) -> None:
        """Nothing to open: memory is ready."""

    def close(self) -> None:
        """Drop every entry, as Java's in-memory store does on close."""
        self._map.clear()
        self._keys.clear()

    def flush(self) -> None:
        """Nothing to flush."""

    def get(self, key: bytes) -> bytes | None:  # replaced per instance by _map.get
        """The value at ``key``, or ``None``."""
        return self._map.get(key)

    def put(self, key: bytes, value: bytes) -> None:  # replaced per instance by _map's setitem
        """Write ``value`` at ``key``; only a new key touches the sorted list."""
        entries = self._map
        known = key in entries
        entries[key] = value
        if not known:
            self._sync()

    def put_if_absent(self, key: bytes, value: bytes) -> bytes | None:
        """Write only when ``key`` is absent; return the value that was there."""
        old = self._map.get(key)
        if old is None:
            self.put(key, value)
        return old

    def put_all(self, entries: Iterable[tuple[bytes, bytes | None]]) -> None:
        """Write every pair in order; a ``None`` value deletes. Without deletes (and with
        this class's ``put``) one ``dict.update``: new keys are added in order, as the sorted
        keys' catch-up expects (see the invariant)."""
        entries = list(entries)
        if self.put == self._map.__setitem__ and all(value is not None for _, value in entries):
            self._map.update(entries)
            return
        for key, value in entries:
            if value is None:
                self.delete(key)
            else:
                self.put(key, value)

    def delete(self, key: bytes) -> bytes | None:
        """Remove ``key``; return the value that was there."""
        keys = self._sync()
        old = self._map.pop(key, None)
        if old is not None:
            keys.remove(key)
        return old

    def delete_all(self, keys: Iterable[bytes]) -> None:
        """Remove every key; a quarter or more of the sorted keys at once leaves the sorted
        list to be rebuilt from the map by the next scan (see the invariant) instead of
        removing each from it."""
        keys = list(keys)
        if len(keys) * 4 < len(self._keys):
            for key in keys:
                self.delete(key)
            return
        deque(map(self._map.pop, keys, repeat(None)), maxlen=0)
        self._keys.clear()  # every key of the map is now "added since the last scan"

    def range(self, from_key: bytes | None, to_key: bytes | None) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, ascending."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        return self._scan(list(self._sync().irange(from_key, to_key)))

    def reverse_range(
        self, from_key: bytes | None, to_key: bytes | None
    ) -> Iterator[tuple[bytes, bytes]]:
        """Pairs with ``from_key <= key <= to_key``, descending."""
        if is_inverted(self.name, from_key, to_key):
            return iter(())
        return self._scan(list(self._sync().irange(from_key, to_key, reverse=True)))

    def prefix_scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Pairs whose key starts with ``prefix``, ascending."""
        end = increment(prefix)
        return self._scan(list(self._sync().irange(prefix, end, inclusive=(True, False))))

    def approximate_num_entries(self) -> int:
        """The exact number of keys."""
        return len(self._map)

    def snapshot(self) -> dict[bytes, bytes]:
        """A shallow copy of the dict (bytes are immutable, so it is a full copy)."""
        return dict(self._map)

    def restore_snapshot(self, snapshot: object) -> None:
        """Replace the contents with a dict from ``snapshot``."""
        if not isinstance(snapshot, dict):
            msg = f"snapshot for in-memory store '{self.name}' must be a dict, got {snapshot!r}"
            raise TypeError(msg)
        self._map.clear()
        self._map.update(snapshot)
        self._keys.clear()
        self._keys.update(snapshot)

    def _scan(self, keys: list[bytes]) -> Iterator[tuple[bytes, bytes]]:
        # Keys are fixed when the scan starts; values are read as it goes, and keys deleted
        # meanwhile are skipped, as Java's InMemoryKeyValueIterator does. All in C: each step
        # pairs a key with its value and, at the same moment, checks the value is still there.
        get = self._map.get
        pairs = zip(keys, map(get, keys), strict=True)
        scan = _LiveScan(pairs, map(is_not, map(get, keys), repeat(None)))
        scan.recheck = get
        return scan
