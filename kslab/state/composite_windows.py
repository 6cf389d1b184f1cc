"""Read-only window and session store views over one store's instances in several tasks (one per
partition), as ``kslab.state.composite`` is for key-value stores; the engines share them (the
runtime's interactive queries, the TopologyTestDriver's ``get_window_store`` /
``get_session_store`` with ``partitions=``).

Java's ``CompositeReadOnlyWindowStore`` / ``CompositeReadOnlySessionStore`` semantics: a key lives
in exactly one partition, so single-key queries answer from the first store that holds the key;
range and full scans merge the per-partition scans in the order a single store scans (window
start then key bytes, or RocksDB's segment then binary key; sessions by end, key bytes, start),
so the answer equals one store holding every partition. Invariant: a view never writes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Any

from kslab.errors import StoreError
from kslab.records import KeyValue
from kslab.state.iterators import MergedIterator
from kslab.state.session import SINGLE_KEY

__all__ = ["ReadOnlySessionView", "ReadOnlyWindowView"]

_MIN_TS = -(2**63)
_MAX_TS = 2**63 - 1
_WRITES = ("put", "put_serialized", "remove", "delete", "put_if_absent", "put_all")


class _View:
    """What window and session views share: the stores, key bytes, merging, refused writes."""

    def __init__(self, name: str, stores: Sequence[Any]) -> None:
        self.name = name
        self._stores = stores
        self.store_kind = getattr(stores[0], "store_kind", None)
        inner = stores[0]
        if getattr(type(inner), "wrapped", None) is not None:  # a facade's store underneath
            inner = inner.wrapped
        self._serde = inner.key_serde
        self._topic = getattr(inner, "changelog_topic", None) or name
        self._inner = inner

    def _key_bytes(self, key: Any) -> bytes:
        return self._serde.serialize(self._topic, key) if self._serde is not None else key

    def _merge(self, scans: list[Any], order: Callable[[KeyValue], Any],
               backward: bool) -> MergedIterator:
        return MergedIterator(heapq.merge(*scans, key=order, reverse=backward), scans)

    def _first_non_empty(self, scans: Callable[[Any], Any]) -> MergedIterator:
        """The scan of the first store that has any entry (a key lives in one partition)."""
        for store in self._stores:
            scan = scans(store)
            if scan.has_next():
                return MergedIterator(iter(scan), [scan])
            scan.close()
        return MergedIterator(iter(()), [])

    def __getattr__(self, name: str) -> Any:
        if name in _WRITES:
            msg = f"store '{self.name}' is read-only here; write to it from a processor"
            raise StoreError(msg)
        raise AttributeError(name)

    def _columns(self) -> dict[str, list[Any]]:
        from kslab.state._frames import windowed_columns

        return windowed_columns(self)

    def to_pandas(self) -> Any:
        """Every entry as a pandas frame (``key``, ``start``, ``end``, ``value``)."""
        from kslab.state._frames import to_pandas

        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """Every entry as a polars frame (``key``, ``start``, ``end``, ``value``)."""
        from kslab.state._frames import to_polars

        return to_polars(self._columns())


class ReadOnlyWindowView(_View):
    """Java's ``ReadOnlyWindowStore`` over every local partition of a window store."""

    def _order(self, kv: KeyValue) -> Any:
        start = kv.key.window.start
        key_bytes = self._key_bytes(kv.key.key)
        if getattr(self._inner, "time_ordered", True):
            return (start, key_bytes)
        interval = getattr(self._inner, "segment_interval", 1)
        return (start // interval, key_bytes, start)

    def fetch(self, key: Any, time_from: Any = None, time_to: Any = None, *args: Any) -> Any:
        """``fetch(key, time)``: one value; ``fetch(key, from, to)``: ``(start, value)`` pairs;
        ``fetch(key_from, key_to, from, to)``: ``(Windowed, value)`` pairs."""
        if args:
            return self._merge([s.fetch(key, time_from, time_to, args[0]) for s in self._stores],
                               self._order, False)
        if time_to is None:
            for store in self._stores:
                value = store.fetch(key, time_from)
                if value is not None:
                    return value
            return None
        return self._first_non_empty(lambda s: s.fetch(key, time_from, time_to))

    def backward_fetch(self, key: Any, time_from: Any, time_to: Any = None,
                       *args: Any) -> MergedIterator:
        """As ``fetch`` with a time range, newest first."""
        if args:
            return self._merge([s.backward_fetch(key, time_from, time_to, args[0])
                                for s in self._stores], self._order, True)
        return self._first_non_empty(lambda s: s.backward_fetch(key, time_from, time_to))

    def fetch_all(self, time_from: int, time_to: int) -> MergedIterator:
        """Every ``(Windowed, value)`` with a window start in ``[time_from, time_to]``."""
        return self._merge([s.fetch_all(time_from, time_to) for s in self._stores], self._order,
                           False)

    def backward_fetch_all(self, time_from: int, time_to: int) -> MergedIterator:
        """As ``fetch_all``, in reverse order."""
        return self._merge([s.backward_fetch_all(time_from, time_to) for s in self._stores],
                           self._order, True)

    def all(self) -> MergedIterator:
        """Every live ``(Windowed, value)``."""
        return self._merge([s.all() for s in self._stores], self._order, False)

    def backward_all(self) -> MergedIterator:
        """Every live ``(Windowed, value)``, in reverse order."""
        return self._merge([s.backward_all() for s in self._stores], self._order, True)


class ReadOnlySessionView(_View):
    """Java's ``ReadOnlySessionStore`` over every local partition of a session store."""

    def _order(self, kv: KeyValue) -> Any:
        window = kv.key.window
        return (window.end, self._key_bytes(kv.key.key), window.start)

    def _order_by_end(self, kv: KeyValue) -> Any:
        window = kv.key.window
        if getattr(self._inner, "time_ordered", False):
            return (window.end, window.start, self._key_bytes(kv.key.key))
        return self._order(kv)

    def fetch_session(self, key: Any, session_start: int, session_end: int) -> Any:
        """The value of ``key``'s session with exactly these bounds, or ``None``."""
        for store in self._stores:
            value = store.fetch_session(key, session_start, session_end)
            if value is not None:
                return value
        return None

    def find_sessions(self, key: Any, earliest_session_end_time: int,
                      latest_session_start_time: int | None = None, *args: Any) -> MergedIterator:
        """As ``SessionStore.find_sessions``: one key, a key range (four arguments), or every
        session ending in ``[earliest_end, latest_end]`` (two arguments)."""
        if latest_session_start_time is None:
            return self._ending_in(key, earliest_session_end_time)
        if args:
            return self._merge([s.find_sessions(key, earliest_session_end_time,
                                                latest_session_start_time, args[0])
                                for s in self._stores], self._order, False)
        return self._first_non_empty(lambda s: s.find_sessions(
            key, earliest_session_end_time, latest_session_start_time))

    def _ending_in(self, earliest_end: int, latest_end: int) -> MergedIterator:
        """Every session ending in ``[earliest_end, latest_end]``, through the all-keys range
        form every session store supports (a plain RocksDB one refuses the two-argument
        ``find_sessions``, as Java's); a time-ordered store keeps its own scan and order."""
        if getattr(self._inner, "time_ordered", False):
            return self._merge([s.find_sessions(earliest_end, latest_end)
                                for s in self._stores], self._order_by_end, False)
        scans = [s.find_sessions(None, None, earliest_end, latest_end) for s in self._stores]
        merged = heapq.merge(*scans, key=self._order)
        return MergedIterator((kv for kv in merged if kv.key.window.end <= latest_end), scans)

    def backward_find_sessions(self, key: Any, earliest_session_end_time: int,
                               latest_session_start_time: int, *args: Any) -> MergedIterator:
        """As ``find_sessions``, newest first."""
        if args:
            return self._merge([s.backward_find_sessions(key, earliest_session_end_time,
                                                         latest_session_start_time, args[0])
                                for s in self._stores], self._order, True)
        return self._first_non_empty(lambda s: s.backward_find_sessions(
            key, earliest_session_end_time, latest_session_start_time))

    def fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> MergedIterator:
        """Every session of ``key_from`` (or of the keys in ``[key_from, key_to]``, either bound
        ``None`` for open, as the session store's two-argument ``fetch``)."""
        if key_to is SINGLE_KEY:
            return self._first_non_empty(lambda s: s.fetch(key_from))
        return self._merge([s.fetch(key_from, key_to) for s in self._stores], self._order, False)

    def backward_fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> MergedIterator:
        """As ``fetch``, newest first."""
        if key_to is SINGLE_KEY:
            return self._first_non_empty(lambda s: s.backward_fetch(key_from))
        return self._merge([s.backward_fetch(key_from, key_to) for s in self._stores],
                           self._order, True)

    def all(self) -> MergedIterator:
        """Every live session."""
        return self._merge([s.all() for s in self._stores], self._order, False)
