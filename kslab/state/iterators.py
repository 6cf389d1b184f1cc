"""The iterator a store scan returns: typed ``KeyValue`` pairs over a backend's byte pairs.

Invariant: once closed (by ``close``, by ``with``, or by closing its store) an iterator never
yields again and never holds the backend's scan, so a persistent store can always be closed and
reopened. Exhausting an iterator releases the scan too. Which keys a scan visits is fixed when
it starts (in-memory stores copy the key range, RocksDB reads a snapshot), so writing to the store
while iterating is safe; in-memory scans read each value when they reach it and skip keys deleted
meanwhile, as Java's do, even a key already peeked at by ``has_next`` or ``peek_next_key`` (such a
scan carries a ``recheck`` lookup, Java's ``map.containsKey(currentKey)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from kslab.errors import NoSuchElementError, StoreError
from kslab.records import KeyValue

__all__ = ["KeyValueIterator", "MergedIterator"]


class KeyValueIterator:
    """An open scan of a store yielding ``KeyValue(key, value)``; use it in ``with`` or close it.

    Python iteration is primary (``for kv in it``); Java's ``has_next()``, ``next()`` and
    ``peek_next_key()`` are there too.
    """

    __slots__ = (
        "__weakref__",
        "_closed_because",
        "_decode_key",
        "_decode_value",
        "_pending",
        "_recheck",
        "_source",
        "_store_name",
    )

    def __init__(
        self,
        source: Iterator[tuple[bytes, bytes]],
        decode_key: Callable[[bytes], Any],
        decode_value: Callable[[bytes], Any],
        store_name: str,
    ) -> None:
        self._source: Iterator[tuple[bytes, bytes]] | None = source
        self._decode_key = decode_key
        self._decode_value = decode_value
        self._store_name = store_name
        self._pending: tuple[bytes, bytes] | None = None
        self._closed_because: str | None = None
        self._recheck: Callable[[bytes], bytes | None] | None = getattr(source, "recheck", None)

    def __iter__(self) -> KeyValueIterator:
        return self

    def __next__(self) -> KeyValue:
        entry = self._pending
        if entry is not None:
            self._pending = None
            if self._recheck is not None:
                entry = self._current(entry)
        if entry is None:
            entry = self._pull()
            if entry is None:
                raise StopIteration
        return KeyValue(self._decode_key(entry[0]), self._decode_value(entry[1]))

    def has_next(self) -> bool:
        """True when another pair follows (a peeked key deleted since no longer counts)."""
        pending = self._pending
        if pending is not None and self._recheck is not None:
            pending = self._pending = self._current(pending)
        if pending is None:
            self._pending = self._pull()
        return self._pending is not None

    def next(self) -> KeyValue:
        """The next pair; ``NoSuchElementError`` at the end (Java's ``next()``)."""
        if not self.has_next():
            msg = f"iterator over store '{self._store_name}' has no more entries; check has_next()"
            raise NoSuchElementError(msg)
        return self.__next__()

    def peek_next_key(self) -> Any:
        """The key ``next()`` would return, without moving; ``NoSuchElementError`` at the end."""
        if not self.has_next():
            msg = f"iterator over store '{self._store_name}' has no more entries; check has_next()"
            raise NoSuchElementError(msg)
        return self._decode_key(self._pending[0])  # type: ignore[index]

    def close(self) -> None:
        """Release the scan; later reads raise ``StoreError``. Closing twice is harmless."""
        self._invalidate("it was closed")

    def __enter__(self) -> KeyValueIterator:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed_because else "open"
        return f"<KeyValueIterator over store '{self._store_name}' ({state})>"

    @property
    def scan_source(self) -> Iterator[tuple[bytes, bytes]] | None:
        """The backend scan the iterator still reads; ``None`` once it is exhausted or
        closed."""
        return self._source

    def end_quietly(self) -> None:
        """Mark the iterator as ended rather than failed: once its store closes it just has no
        more entries (Java's window and session iterators), instead of raising on a read."""
        self._closed_because = None

    def _invalidate(self, reason: str) -> None:
        if self._closed_because is None:
            self._closed_because = reason
        self._pending = None
        source, self._source = self._source, None
        close = getattr(source, "close", None)
        if close is not None:
            close()

    def _current(self, entry: tuple[bytes, bytes]) -> tuple[bytes, bytes] | None:
        """``entry`` with the value its key holds now; ``None`` if the key was deleted."""
        value = self._recheck(entry[0])  # type: ignore[misc]
        return None if value is None else (entry[0], value)

    def _pull(self) -> tuple[bytes, bytes] | None:
        source = self._source
        if source is None:
            if self._closed_because is not None:
                msg = (
                    f"iterator over store '{self._store_name}' is closed because "
                    f"{self._closed_because}; open a new one with range(), all() or prefix_scan()"
                )
                raise StoreError(msg)
            return None
        entry = next(source, None)
        if entry is None:
            self._source = None  # exhausted: let go of the backend's scan
        return entry


class MergedIterator:
    """Pairs already decoded by per-partition scans (merged or chained across the partitions of
    a store), with Java's ``has_next``/``next``/``peek_next_key`` beside Python's protocol; a
    context manager that closes every scan it was given."""

    def __init__(self, entries: Iterator[KeyValue], parts: list[Any]) -> None:
        self._entries = entries
        self._parts = parts
        self._pending: KeyValue | None = None

    def __iter__(self) -> MergedIterator:
        return self

    def __next__(self) -> KeyValue:
        if self._pending is not None:
            entry, self._pending = self._pending, None
            return entry
        return next(self._entries)

    def has_next(self) -> bool:
        """True when another pair follows."""
        if self._pending is None:
            self._pending = next(self._entries, None)
        return self._pending is not None

    def next(self) -> KeyValue:
        """The next pair; ``NoSuchElementError`` at the end (Java's ``next()``)."""
        if not self.has_next():
            msg = "store view iterator has no more entries; check has_next()"
            raise NoSuchElementError(msg)
        return self.__next__()

    def peek_next_key(self) -> Any:
        """The key ``next()`` would return, without moving."""
        if not self.has_next():
            msg = "store view iterator has no more entries; check has_next()"
            raise NoSuchElementError(msg)
        return self._pending.key  # type: ignore[union-attr]

    def close(self) -> None:
        """Close every per-partition scan."""
        for part in self._parts:
            close = getattr(part, "close", None)
            if close is not None:
                close()
        self._parts = []

    def __enter__(self) -> MergedIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
