"""Window stores: typed ``(key, window start) -> value`` views over a key-value byte backend.

Every entry lives in the backend under Java's ``WindowKeySchema`` binary key, ``key bytes + 8-byte
window start + 4-byte sequence number`` (big-endian), which is also the changelog key, so a
changelog replays byte for byte. Invariant: an entry whose window start is at or before
``observed stream time - retention`` is never returned (``before`` in time-ordered stores, as
Java's); expired entries are dropped from the
backend a segment at a time (one window start per segment in memory, as Java's in-memory store;
``max(retention / 2, 60 s)`` on disk, as RocksDB's segments), without changelog tombstones.

(Over 600 lines: the window store, its timestamped form and a batch run's held writes share
the segment bookkeeping, which no other module should reach into.)
"""

from __future__ import annotations

import heapq
import logging
import struct
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, repeat
from typing import Any

from kslab.errors import StoreError
from kslab.processor.batch import Encoded, Flushed
from kslab.records import ValueAndTimestamp, Window, Windowed
from kslab.state._frames import to_pandas, to_polars
from kslab.state._typed import TypedStore
from kslab.state.base import KeyValueBackend, NullStoreArgumentError, StoreContext
from kslab.state.iterators import KeyValueIterator
from kslab.state.pending import PendingWrites

__all__ = [
    "HeldWindowPuts",
    "HeldWindowWrites",
    "TimestampedWindowStore",
    "WindowRun",
    "WindowStore",
    "invalid_key_range",
    "split_window_key",
    "window_key",
]

log = logging.getLogger("kslab.state")

_TS_SEQ = struct.Struct(">qi")
_TS = struct.Struct(">q")
_SUFFIX = 12
_MAX_SEQ = 0x7FFFFFFF
_MIN_TS = -(2**63)
_MAX_TS = 2**63 - 1
_NOT_HELD = object()


def window_key(key_bytes: bytes, start: int, seq: int = 0) -> bytes:
    """Java's ``WindowKeySchema.toStoreKeyBinary``: key, window start, sequence number."""
    return key_bytes + _TS_SEQ.pack(start, seq)


def require_key(key: Any) -> None:
    """Java's ``Objects.requireNonNull(key, "key cannot be null")`` of the metered window
    store's single-key writes and reads."""
    if key is None:
        msg = "key cannot be null"
        raise NullStoreArgumentError(msg)


def invalid_key_range(lower: bytes | None, upper: bytes | None, *,
                      backward: bool = False) -> bool:
    """True, with Java's warning, for a key-range fetch whose serialized bounds are reversed
    (Java's window stores then return an empty iterator instead of throwing); ``backward``:
    the caching stores' ``backwardFetch`` wording, which names no argument order."""
    if lower is None or upper is None or lower <= upper:
        return False
    cause = "serdes" if backward else "range arguments set in the wrong order, or serdes"
    log.warning("Returning empty iterator for fetch with invalid key range: from > to. This may "
                f"be due to {cause} that don't preserve ordering when lexicographically "
                "comparing the serialized bytes. Note that the built-in numerical serdes do not "
                "follow this for negative numbers")
    return True


class LazyRows:
    """A scan's ``(binary, value)`` rows, read at the first pull, not when the scan opens (Java's
    store iterators walk the live store), so writes made in between are seen. ``min_time`` is
    the scan's lower time bound, fixed at open, which an in-memory store keeps alive until the
    rows are read (Java's ``removeExpiredSegments`` spares what open iterators still need)."""

    __slots__ = ("_read", "_rows", "min_time")

    def __init__(self, read: Callable[[], Iterator[tuple[bytes, bytes]]], min_time: int) -> None:
        self._read: Callable[[], Iterator[tuple[bytes, bytes]]] | None = read
        self._rows: Iterator[tuple[bytes, bytes]] | None = None
        self.min_time = min_time

    def __iter__(self) -> LazyRows:
        return self

    def __next__(self) -> tuple[bytes, bytes]:
        rows = self._rows
        if rows is None:
            rows = self._rows = self._read()  # type: ignore[misc]
            self._read = None
            self.min_time = _MAX_TS  # read: nothing in the store is needed any more
        return next(rows)

    def close(self) -> None:
        """Drop the rows (read or not)."""
        self._read, self._rows, self.min_time = None, iter(()), _MAX_TS


def pinned_time(iterators: Iterable[KeyValueIterator]) -> int:
    """The earliest time an open, not yet read scan of ``iterators`` still needs."""
    pinned = _MAX_TS
    for iterator in iterators:
        source = iterator.scan_source
        if source.__class__ is LazyRows and source.min_time < pinned:
            pinned = source.min_time
    return pinned


def split_window_key(binary: bytes) -> tuple[bytes, int, int]:
    """``(key bytes, window start, sequence number)`` of a window store binary key."""
    start, seq = _TS_SEQ.unpack_from(binary, len(binary) - _SUFFIX)
    return binary[:-_SUFFIX], start, seq


class WindowStore(TypedStore):
    """Java's ``WindowStore<K, V>``: values per key and window start, kept for ``retention`` ms.

    >>> from kslab.state import Stores
    >>> supplier = Stores.in_memory_window_store("w", 60_000, 10_000, False)
    >>> Stores.window_store_builder(supplier, "string", "long").build()
    <WindowStore 'w' (InMemory, not open)>
    """

    __slots__ = (
        "_dropped",
        "_has_index",
        "_interval",
        "_keep",
        "_observed",
        "_retain_duplicates",
        "_retention",
        "_segment_heap",
        "_segments",
        "_seq",
        "_time_ordered",
        "_window_size",
    )

    store_kind = "window"
    raw_changelog = True  # its changelog holds its binary window keys, not its serdes' output

    def __init__(self, name: str, backend: KeyValueBackend, key_serde: Any = None,
                 value_serde: Any = None, *, retention: int, window_size: int,
                 retain_duplicates: bool = False, segment_interval: int = 1,
                 logging_enabled: bool = True, caching_enabled: bool = False,
                 time_ordered: bool = False, has_index: bool = False) -> None:
        super().__init__(name, backend, key_serde, value_serde,
                         logging_enabled=logging_enabled, caching_enabled=caching_enabled)
        self._retention = retention
        self._window_size = window_size
        self._retain_duplicates = retain_duplicates
        self._interval = max(1, segment_interval)
        self._observed = _MIN_TS
        self._segments: dict[int, set[bytes]] = {}
        self._segment_heap: list[int] = []  # the ids of _segments, smallest first: what expires
        self._seq = 0
        # scans by window start, then key (Java's in-memory and time-ordered stores)
        self._time_ordered = time_ordered or self._interval == 1
        # windows live while start > observed - keep; Java's time-ordered store keeps one ms more
        self._keep = retention + 1 if time_ordered else retention
        self._dropped: Any = None  # the task's dropped-records counter, once open
        # Java's time-ordered store with its key-first index: key ranges go key first per segment
        self._has_index = has_index and time_ordered

    @property
    def retention_period(self) -> int:
        """How long (ms of stream time) windows are kept."""
        return self._retention

    @property
    def window_size(self) -> int:
        """The size of the windows this store holds (used to build ``Windowed`` keys)."""
        return self._window_size

    @property
    def segment_interval(self) -> int:
        """The width (ms of window start) of the segments windows are kept and expire in."""
        return self._interval

    @property
    def has_index(self) -> bool:
        """True for a time-ordered store with Java's key-first index (``hasIndex``)."""
        return self._has_index

    @property
    def retain_duplicates(self) -> bool:
        """True when every put is kept, even for the same key and window start."""
        return self._retain_duplicates

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Open the backend and rebuild the segment index from what it holds."""
        super().init(context, root)
        self._observed = _MIN_TS
        self._seq = 0
        self._dropped = getattr(context, "record_dropped", None)
        self.reindex()

    def close(self) -> None:
        """Close the store; its open iterators just end (Java's window iterators do not throw
        once their store is closed: ``has_next()`` is false)."""
        iterators = list(self._iterators)
        super().close()
        for iterator in iterators:
            iterator.end_quietly()  # ended, not failed

    # -- writes --------------------------------------------------------------------------------

    def put(self, key: Any, value: Any, window_start: int) -> None:
        """Store ``value`` for ``key`` in the window starting at ``window_start``; None deletes."""
        if key is None:
            require_key(key)
        self.put_bytes(self.serialize_key(key), self.encode_value(value), window_start)

    def put_bytes(self, key_bytes: bytes, value: tuple[bytes, bytes, int] | None,
                  start: int) -> None:
        """Write a window's encoded value (``None``: delete) under ``key_bytes`` at ``start``, with
        the store's retention, duplicates and changelog rules."""
        if self._retain_duplicates:
            if value is None:
                return
            self._seq = (self._seq + 1) & _MAX_SEQ
            binary = key_bytes + _TS_SEQ.pack(start, self._seq)
        else:
            binary = key_bytes + _TS_SEQ.pack(start, 0)
        if start > self._observed:
            self._observed = start
            self._expire()
        if start <= self._observed - self._keep:
            self._expired_put()
        elif value is None:
            self._bdelete(binary)
        else:
            self._bput(binary, value[0])
            self._segment_keys(start).add(binary)
        changelog = self._log
        if changelog is not None:  # logged even when expired, as Java's change-logging layer
            if value is None:
                changelog(self._name, binary, None)
            elif value[2] is None:
                changelog(self._name, binary, value[1])
            else:
                changelog(self._name, binary, value[1], value[2])

    def _expired_put(self) -> None:
        """A write into a window the store has expired: dropped and counted as Java's window
        stores do (their ``expiredRecordSensor`` is the task's dropped-records sensor); logged by
        the in-memory and time-ordered ones, as Java's (its key-first RocksDB store is silent)."""
        if self._time_ordered:
            log.warning("Skipping record for expired segment.")
        if self._dropped is not None:
            self._dropped()

    def drop_expired(self) -> None:
        """``_expired_put``'s warning and count, for a held put into an expired window that a
        batch run defers to its place among the run's other warnings (``HeldWindowPuts``)."""
        self._expired_put()

    def held_puts(self, batch: Any, run: Any) -> HeldWindowPuts | None:
        """Puts held for a batch run over ``batch`` (``kslab.processor.batch``) into a store
        retaining duplicates (a stream-stream join's), or ``None`` for another store."""
        if not self.is_open or not self._retain_duplicates or \
                type(self).encode_value is not WindowStore.encode_value:  # (a timestamped
            return None  # store's values)
        return HeldWindowPuts(self, batch, run)

    def fetch_keys(self, key_bytes: list[bytes], lows: list[int], highs: list[int]
                   ) -> list[tuple[list[int], list[Any]]]:
        """``fetch(key, low, high)`` of each serialized key at once: each key's window starts
        and values, in the fetch's order (a batch run's reads of a store it does not write:
        each distinct key once, over the union of its records' ranges)."""
        found = []
        decode, live, scan, unpack = (self.decode_value, self.live_from,
                                      self._backend.range, _TS.unpack_from)
        for key, low, high in zip(key_bytes, lows, highs, strict=True):
            low = live(low)
            if low > high:
                found.append(([], []))
                continue
            size = len(key)  # (every key between the bounds starts with ``key``: only a
            # longer key's entries are told apart, by their length)
            pairs = [(binary, value) for binary, value in scan(
                key + _TS_SEQ.pack(low, 0), key + _TS_SEQ.pack(high, _MAX_SEQ))
                if len(binary) == size + _SUFFIX]
            found.append(([unpack(binary, size)[0] for binary, _ in pairs],
                          list(map(decode, [value for _, value in pairs]))))
        return found

    # -- reads ---------------------------------------------------------------------------------

    def fetch(self, key: Any, time_from: Any = None, time_to: Any = None,
              *args: Any) -> Any:
        """``fetch(key, time)``: one value; ``fetch(key, from, to)``: ``(start, value)`` pairs;
        ``fetch(key_from, key_to, from, to)``: ``(Windowed, value)`` pairs."""
        if args:
            return self._fetch_range(key, time_from, time_to, args[0], backward=False)
        require_key(key)
        if time_to is None:
            return self._fetch_one(key, time_from)
        return self._fetch_key(key, time_from, time_to, backward=False)

    def backward_fetch(self, key: Any, time_from: Any, time_to: Any = None,
                       *args: Any) -> KeyValueIterator:
        """As ``fetch`` with a time range, newest first."""
        if args:
            return self._fetch_range(key, time_from, time_to, args[0], backward=True)
        require_key(key)
        return self._fetch_key(key, time_from, time_to, backward=True)

    def fetch_all(self, time_from: int, time_to: int) -> KeyValueIterator:
        """Every ``(Windowed, value)`` with a window start in ``[time_from, time_to]``."""
        return self._scan(None, None, time_from, time_to, backward=False)

    def backward_fetch_all(self, time_from: int, time_to: int) -> KeyValueIterator:
        """As ``fetch_all``, in reverse order."""
        return self._scan(None, None, time_from, time_to, backward=True)

    def all(self) -> KeyValueIterator:
        """Every live ``(Windowed, value)``."""
        return self._scan(None, None, _MIN_TS, _MAX_TS, backward=False)

    def backward_all(self) -> KeyValueIterator:
        """Every live ``(Windowed, value)``, in reverse order."""
        return self._scan(None, None, _MIN_TS, _MAX_TS, backward=True)

    def to_pandas(self) -> Any:
        """The contents as a DataFrame with columns ``key``, ``start``, ``end``, ``value``."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """The contents as a polars DataFrame (columns ``key``, ``start``, ``end``, ``value``)."""
        return to_polars(self._columns())

    def fetch_serialized(self, key_bytes: bytes, time: int) -> Any:
        """``fetch(key, time)`` for an already serialized key (the aggregations' hot path)."""
        if self._retain_duplicates:
            return self._fetch_one_bytes(key_bytes, time)
        if time <= self._observed - self._keep:
            return None
        value = self._bget(key_bytes + _TS_SEQ.pack(time, 0))
        return None if value is None else self.decode_value(value)

    def put_serialized(self, key_bytes: bytes, value: Any, window_start: int) -> None:
        """``put`` for an already serialized key."""
        self.put_bytes(key_bytes, self.encode_value(value), window_start)

    def _fetch_one_bytes(self, key_bytes: bytes, time: int) -> Any:
        for _, value in self.key_pairs(key_bytes, time, time):
            return self.decode_value(value)
        return None

    def _fetch_one(self, key: Any, time: int) -> Any:
        if time <= self._observed - self._keep:
            return None
        key_bytes = self.serialize_key(key)
        if self._retain_duplicates:
            for _, value in self.key_pairs(key_bytes, time, time):
                return self.decode_value(value)
            return None
        value = self._bget(key_bytes + _TS_SEQ.pack(time, 0))
        return None if value is None else self.decode_value(value)

    def live_from(self, time_from: int) -> int:
        """``time_from``, raised to the oldest window start the store still keeps."""
        return max(time_from, self._observed - self._keep + 1)

    def key_pairs(self, key_bytes: bytes, time_from: int,
                  time_to: int) -> list[tuple[bytes, bytes]]:
        """The stored ``(binary, value)`` pairs of one key with a live window start in ``[time_from,
        time_to]``."""
        return self._key_range(key_bytes, self.live_from(time_from), time_to)

    def _key_range(self, key_bytes: bytes, time_from: int,
                   time_to: int) -> list[tuple[bytes, bytes]]:
        """The entries of one key with a window start in ``[time_from, time_to]``."""
        if time_from > time_to:
            return []
        size = len(key_bytes) + _SUFFIX
        lower = key_bytes + _TS_SEQ.pack(time_from, 0)
        upper = key_bytes + _TS_SEQ.pack(time_to, _MAX_SEQ)
        return [(k, v) for k, v in self._backend.range(lower, upper)
                if len(k) == size and k.startswith(key_bytes)]

    def _fetch_key(self, key: Any, time_from: int, time_to: int, *,
                   backward: bool) -> KeyValueIterator:
        key_bytes = self.serialize_key(key)
        time_from = self.live_from(time_from)

        def read() -> Iterator[tuple[bytes, bytes]]:
            pairs = self._key_range(key_bytes, time_from, time_to)
            return reversed(pairs) if backward else iter(pairs)

        return self._lazy(read, time_from, self.decode_start)

    def _lazy(self, read: Callable[[], Iterator[tuple[bytes, bytes]]], min_time: int,
              decode_key: Callable[[bytes], Any]) -> KeyValueIterator:
        """An open scan whose rows ``read`` gives at the first pull."""
        iterator = KeyValueIterator(LazyRows(read, min_time), decode_key, self.decode_value,
                                    self._name)
        self._iterators.add(iterator)
        return iterator

    def _fetch_range(self, key_from: Any, key_to: Any, time_from: int, time_to: int, *,
                     backward: bool) -> KeyValueIterator:
        lower = None if key_from is None else self.serialize_key(key_from)
        upper = None if key_to is None else self.serialize_key(key_to)
        if invalid_key_range(lower, upper):
            return self._scan(lower, upper, 0, -1, backward=backward)  # an empty iterator
        return self._scan(lower, upper, time_from, time_to, backward=backward,
                          key_first=self._has_index)

    def _scan(self, key_from: bytes | None, key_to: bytes | None, time_from: int, time_to: int,
              *, backward: bool, key_first: bool = False) -> KeyValueIterator:
        time_from = self.live_from(time_from)
        order = self.index_order if key_first else self.time_order

        def read() -> Iterator[tuple[bytes, bytes]]:
            rows = []
            for binary, value in self.stored_entries(time_from, time_to):
                key_bytes, start, seq = split_window_key(binary)
                if start < time_from or start > time_to:
                    continue
                if (key_from is not None and key_bytes < key_from) or \
                        (key_to is not None and key_bytes > key_to):
                    continue
                rows.append((order(key_bytes, start, seq, binary), binary, value))
            rows.sort(key=lambda row: row[0], reverse=backward)
            return iter([(b, v) for _, b, v in rows])

        return self._lazy(read, time_from, self.decode_windowed)

    def stored_entries(self, time_from: int, time_to: int) -> Iterable[tuple[bytes, bytes]]:
        """The backend entries of the segments overlapping ``[time_from, time_to]``."""
        interval = self._interval
        first, last = time_from // interval, time_to // interval
        segments = self._segments
        if last - first >= len(segments):
            return self._backend.all()
        get = self._backend.get
        pairs = []
        for segment in range(first, last + 1):
            for binary in segments.get(segment, ()):
                value = get(binary)
                if value is not None:
                    pairs.append((binary, value))
        return pairs

    def time_order(self, key_bytes: bytes, start: int, seq: int, binary: bytes) -> tuple[Any, ...]:
        """The sort key of a stored window in this store's scan order (by window start, then key, or
        the key-first layout's)."""
        if self._time_ordered:  # in memory, or time-ordered: by window start, then key
            return (start, key_bytes, seq)
        return (start // self._interval, binary)  # RocksDB: by segment, then binary key

    def index_order(self, key_bytes: bytes, start: int, seq: int,
                    binary: bytes) -> tuple[Any, ...]:
        """Key-range order through Java's key-first index: by segment, then key, start, seq."""
        return (start // self._interval, key_bytes, start, seq)

    def decode_start(self, binary: bytes) -> int:
        """The window start a stored binary key carries."""
        return _TS_SEQ.unpack_from(binary, len(binary) - _SUFFIX)[0]

    def decode_windowed(self, binary: bytes) -> Windowed:
        """The ``Windowed`` key a stored binary key stands for."""
        key_bytes, start, _ = split_window_key(binary)
        end = min(start + self._window_size, _MAX_TS)  # Java's timeWindowForSize clamp
        return Windowed(self.decode_key(key_bytes), Window(start, end))

    def _columns(self) -> dict[str, list[Any]]:
        from kslab.state._frames import windowed_columns

        return windowed_columns(self)

    # -- value encoding (the timestamped store overrides) -------------------------------------

    def encode_value(self, value: Any) -> tuple[bytes, bytes, int | None] | None:
        """``(stored, raw value, timestamp)`` of a value to write, or ``None`` when it deletes."""
        raw = self.serialize_value(value)
        return None if raw is None else (raw, raw, None)

    # -- retention -----------------------------------------------------------------------------

    def _expire(self) -> None:
        min_live = self._observed - self._keep + 1
        segments = self._segments
        if not segments:
            return
        if self._iterators and not self._backend.persistent:  # Java's in-memory store
            min_live = min(min_live, pinned_time(self._iterators))
        interval = self._interval
        heap = self._segment_heap  # oldest first: a segment after a live one is live too
        while heap and (heap[0] + 1) * interval - 1 < min_live:
            self._backend.delete_all(segments.pop(heapq.heappop(heap)))

    def _segment_keys(self, start: int) -> set[bytes]:
        """The binary keys of the segment holding windows that start at ``start``."""
        segment = start // self._interval
        keys = self._segments.get(segment)
        if keys is None:
            keys = self._segments[segment] = set()
            heapq.heappush(self._segment_heap, segment)
        return keys

    @property
    def time_ordered(self) -> bool:
        """Whether scans come in window-start order first (in memory, or a time-ordered
        layout), rather than segment by segment."""
        return self._time_ordered

    def reindex(self) -> None:
        """Rebuild the store's time index from its backend's bytes (after the backend was
        replaced, as an engine keeping the bytes itself does)."""
        self._segments = {}
        self._segment_heap = []
        observed = _MIN_TS
        for binary, _ in self._backend.all():
            _, start, seq = split_window_key(binary)
            self._segment_keys(start).add(binary)
            observed = max(observed, start)
            self._seq = max(self._seq, seq)
        self._observed = observed

    # -- engine hooks --------------------------------------------------------------------------

    def snapshot(self) -> object:
        return (self._backend.snapshot(), self._observed, self._seq)

    def restore_snapshot(self, snapshot: object) -> None:
        data, observed, seq = snapshot  # type: ignore[misc]
        self._backend.restore_snapshot(data)
        self.reindex()
        self._observed, self._seq = observed, seq

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            binary, value = record[0], record[1]
            if value is not None:
                value = self._restored_value(record)
            _, start, seq = split_window_key(binary)
            self._seq = max(self._seq, seq)
            if start > self._observed:
                self._observed = start
                self._expire()
            if value is None:
                self._backend.delete(binary)
            elif start > self._observed - self._keep:
                self._backend.put(binary, value)
                self._segment_keys(start).add(binary)

    def _restored_value(self, record: tuple[Any, ...]) -> bytes:
        return record[1]


class TimestampedWindowStore(WindowStore):
    """Java's ``TimestampedWindowStore<K, V>``: values are ``ValueAndTimestamp``.

    The backend holds ``8-byte timestamp + value``; the changelog carries the plain value with
    the timestamp as the record's, as Java's ``ChangeLoggingTimestampedWindowBytesStore`` does.
    """

    __slots__ = ()

    store_kind = "timestamped_window"

    def encode_value(self, value: Any) -> tuple[bytes, bytes, int | None] | None:
        """``(stored, raw value, timestamp)`` of a ``ValueAndTimestamp`` to write, or ``None`` when
        it deletes."""
        if value is None:
            return None
        if not isinstance(value, ValueAndTimestamp):
            msg = (
                f"Store '{self._name}' is a timestamped window store and got {value!r}; put "
                "ValueAndTimestamp(value, timestamp)"
            )
            raise StoreError(msg)
        raw = self.serialize_value(value.value)
        if raw is None:
            return None
        return _TS.pack(value.timestamp) + raw, raw, value.timestamp

    def decode_value(self, value_bytes: bytes) -> ValueAndTimestamp:
        return ValueAndTimestamp(super().decode_value(value_bytes[8:]),
                                 _TS.unpack_from(value_bytes)[0])

    def fetch_pair(self, key_bytes: bytes, time: int) -> tuple[Any, int] | None:
        """``(value, timestamp)`` of a serialized key's window, or None (aggregation hot path)."""
        if self._retain_duplicates:
            found = self._fetch_one_bytes(key_bytes, time)
            return None if found is None else (found.value, found.timestamp)
        if time <= self._observed - self._keep:
            return None
        raw = self._bget(key_bytes + _TS_SEQ.pack(time, 0))
        if raw is None:
            return None
        try:
            return self._vdes(self._topic, raw[8:]), _TS.unpack_from(raw)[0]
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_read_failure(raw[8:], exc) from exc

    def put_pair(self, key_bytes: bytes, value: Any, timestamp: int, window_start: int) -> None:
        """``put(key, ValueAndTimestamp(value, timestamp), start)`` for a serialized key."""
        observed = self._observed  # a live window, checked inline (the aggregations'
        # hot path)
        if value is None or self._retain_duplicates or window_start > observed or \
                window_start <= observed - self._keep:
            raw = self.serialize_value(value)
            self.put_bytes(key_bytes, None if raw is None else
                           (_TS.pack(timestamp) + raw, raw, timestamp), window_start)
            return
        # the common case inlined: a live window of a store without duplicates
        try:
            raw = self._vser(self._topic, value)
        except StoreError:
            raise
        except Exception as exc:
            raise self._value_failure(value, exc) from exc
        if raw.__class__ is not bytes:
            raw = self._value_bytes(raw, value)
            if raw is None:
                self.put_bytes(key_bytes, None, window_start)
                return
        binary = key_bytes + _TS_SEQ.pack(window_start, 0)
        self._bput(binary, _TS.pack(timestamp) + raw)
        self._segment_keys(window_start).add(binary)
        log = self._log
        if log is not None:
            log(self._name, binary, raw, timestamp)

    def plain_view(self) -> WindowStoreFacade:
        """This store seen with plain values (what ``driver.get_window_store`` returns)."""
        return WindowStoreFacade(self)

    def held_writes(self, batch: Any, run: Any) -> HeldWindowWrites | None:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``), or ``None``
        when this store cannot hold them (duplicates kept, or a backend whose state depends
        on the order of writes)."""
        if not self.is_open or self._retain_duplicates or not self._backend.last_write_wins:
            return None
        return HeldWindowWrites(self, batch, run)

    def _restored_value(self, record: tuple[Any, ...]) -> bytes:
        timestamp = record[2] if len(record) > 2 and record[2] is not None else -1
        return _TS.pack(timestamp) + record[1]



class WindowStoreFacade:
    """A timestamped window store seen with plain values (Java's ``ReadOnlyWindowStoreFacade``)."""

    store_kind = "window"
    raw_changelog = True

    def __init__(self, inner: TimestampedWindowStore) -> None:
        self._inner = inner

    @property
    def wrapped(self) -> TimestampedWindowStore:
        """The timestamped window store behind the facade."""
        return self._inner

    @property
    def name(self) -> str:
        """The store name."""
        return self._inner.name

    def timestamped_store(self) -> TimestampedWindowStore:
        """The store underneath."""
        return self._inner

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Initialize the store behind the facade (with ``root`` when one is given)."""
        if root is None:
            self._inner.init(context)
        else:
            self._inner.init(context, root)

    def put(self, key: Any, value: Any, window_start: int) -> None:
        """Store ``value`` with no timestamp (-1)."""
        self._inner.put(key, None if value is None else ValueAndTimestamp(value, -1),
                        window_start)

    def fetch(self, *args: Any) -> Any:
        """As ``WindowStore.fetch``, values without timestamps."""
        result = self._inner.fetch(*args)
        if isinstance(result, KeyValueIterator):
            return _PlainIterator(result)
        return None if result is None else result.value

    def backward_fetch(self, *args: Any) -> _PlainIterator:
        """As ``WindowStore.backward_fetch``."""
        return _PlainIterator(self._inner.backward_fetch(*args))

    def fetch_all(self, time_from: int, time_to: int) -> _PlainIterator:
        """As ``WindowStore.fetch_all``."""
        return _PlainIterator(self._inner.fetch_all(time_from, time_to))

    def backward_fetch_all(self, time_from: int, time_to: int) -> _PlainIterator:
        """As ``WindowStore.backward_fetch_all``."""
        return _PlainIterator(self._inner.backward_fetch_all(time_from, time_to))

    def all(self) -> _PlainIterator:
        """Every live window, values without timestamps."""
        return _PlainIterator(self._inner.all())

    def backward_all(self) -> _PlainIterator:
        """Every live window in reverse order."""
        return _PlainIterator(self._inner.backward_all())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"<WindowStoreFacade over {self._inner!r}>"


class _PlainIterator:
    """A window iterator whose ``ValueAndTimestamp`` values are seen as plain values."""

    def __init__(self, inner: KeyValueIterator) -> None:
        self._inner = inner

    def __iter__(self) -> _PlainIterator:
        return self

    def __next__(self) -> Any:
        kv = next(self._inner)
        return type(kv)(kv.key, kv.value.value)

    def has_next(self) -> bool:
        """True when another pair follows."""
        return self._inner.has_next()

    def next(self) -> Any:
        """The next pair."""
        kv = self._inner.next()
        return type(kv)(kv.key, kv.value.value)

    def peek_next_key(self) -> Any:
        """The key ``next()`` would return."""
        return self._inner.peek_next_key()

    def close(self) -> None:
        """Release the scan."""
        self._inner.close()

    def __enter__(self) -> _PlainIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()


class WindowRun:
    """Writes of one window start in a row, held by reference to the columns they came in:
    write ``i`` puts ``values[i]`` at ``timestamps[i]`` into window ``binaries[ids[i]]``
    (``ids`` ``None``: ``binaries[i]``) for the batch record at ``positions[i]``; ``raws``:
    the value bytes, once serialized. ``last``: each window's last write, ``{id: index}``
    (``binaries[id]`` the window's key; ``None`` until asked). A run holds the lists it is
    given: they are not changed."""

    __slots__ = ("binaries", "final_stored", "ids", "last", "positions", "raws", "start",
                 "timestamps", "values")

    def __init__(self, start: int, binaries: list[bytes], ids: list[int] | None,
                 values: list[Any], timestamps: list[int], positions: list[int],
                 last: dict[int, int] | None = None) -> None:
        self.start, self.binaries, self.ids = start, binaries, ids
        self.values, self.timestamps, self.positions = values, timestamps, positions
        self.last = last
        self.raws: list[bytes] = []
        self.final_stored: list[bytes] = []  # each window's stored bytes after the run

    def __len__(self) -> int:
        return len(self.values)

    def binary(self, index: int) -> bytes:
        """Write ``index``'s binary window key."""
        ids = self.ids
        return self.binaries[index if ids is None else ids[index]]

    def written(self) -> list[bytes]:
        """Each write's binary window key."""
        ids = self.ids
        return self.binaries if ids is None else list(map(self.binaries.__getitem__, ids))

    def finals(self) -> dict[int, int]:
        """Each window's last write, ``{id: index}`` in first-written order (as pending
        writes hold them, ``PendingWrites.last_of``)."""
        last = self.last
        if last is None:
            if self.ids is None:  # (a binary per write: a window's id is its last write)
                indexes = PendingWrites.last_of(self.binaries,
                                                range(len(self.binaries))).values()
                last = dict(zip(indexes, indexes, strict=True))
            else:
                last = PendingWrites.last_of(self.ids, range(len(self.ids)))
            self.last = last
        return last

    def stored(self, index: int) -> bytes:
        """Write ``index``'s stored bytes (8-byte timestamp, then the value), once
        serialized."""
        return _TS.pack(self.timestamps[index]) + self.raws[index]


class HeldWindowWrites:
    """What a batch run writes to a ``TimestampedWindowStore`` (no duplicates), held until
    ``apply``.

    ``fetch`` sees the held writes and the store's expiry as the writes so far move its
    observed stream time (the largest window start written); ``put`` holds a window's new
    value and timestamp. ``fetch_window`` and ``put_window`` do the same for a run of
    updates of one window start (each distinct key read once, the updates held by reference
    as a ``WindowRun``), ``put_runs`` for a record cache's flushes. ``flushed`` serializes
    the values in phase one (``None``: a value written as a delete). ``apply`` replays the
    runs in order: a run's first write that moves the store's stream time (opening a newer
    window, which expires old segments), and every write of a run in an expired window
    (dropped and counted), goes through the store's own write; the rest go to the backend at
    once, each window's last bytes, so segments, expiry, drops and the changelog (every
    write, in one batch) end as the record path's puts leave them.
    """

    __slots__ = ("_batch", "_count", "_keep", "_observed", "_offsets", "_overlay", "_puts",
                 "_raws", "_run", "_runs", "_span", "_store")

    def __init__(self, store: TimestampedWindowStore, batch: Any, run: Any) -> None:
        self._store, self._batch, self._run = store, batch, run
        self._span = (0, 0)  # the window starts ``windows`` may read (``load_span``)
        self._overlay: dict[bytes, dict[int, tuple[Any, int]]] | None = None  # key bytes ->
        # its windows in the span, start -> (value, timestamp), as the writes leave them
        self._observed, self._keep = store._observed, store._keep  # as the writes move it
        self._puts: dict[bytes, tuple[Any, int]] = {}  # binary -> (value, ts), live windows
        self._runs: list[WindowRun] = []
        self._offsets: list[int] = []  # where each run's writes begin among all the writes
        self._count = 0  # writes held
        self._raws: list[bytes] = []  # every write's value bytes, in order (``flushed``)

    @property
    def key_serde(self) -> Any:
        """The serde that wrote ``key_bytes`` (the key inside each binary window key)."""
        return self._store.key_serde

    @property
    def value_serde(self) -> Any:
        """The serde that wrote the value bytes (``Flushed.value_bytes``)."""
        return self._store.value_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` (none ``None``) as the store serializes them (the key inside each binary
        window key); a key the store refuses raises its error."""
        return self._store.serialize_keys(keys)

    def fetch(self, key_bytes: bytes, start: int, position: int = -1) -> tuple[Any, int] | None:
        """``(value, timestamp)`` of the key's window at ``start``, as the store's
        ``fetch_pair`` would return it after the writes so far (``position``: the batch
        record asking, which a plain store does not need)."""
        if start <= self._observed - self._keep:
            return None
        binary = key_bytes + _TS_SEQ.pack(start, 0)
        held = self._puts.get(binary, _NOT_HELD)
        if held is not _NOT_HELD:
            return held  # type: ignore[return-value]
        raw = self._store._bget(binary)
        return None if raw is None else self._decode(raw)

    def fetch_window(self, start: int, key_bytes: list[bytes]) -> list[tuple[Any, int] | None]:
        """``fetch`` of each key's window at ``start`` (a run's reads of one window)."""
        if start <= self._observed - self._keep:
            return [None] * len(key_bytes)
        binaries = list(map(bytes.__add__, key_bytes, repeat(_TS_SEQ.pack(start, 0))))
        puts = self._puts  # (a held window is a pair, never None)
        found = list(map(puts.get, binaries)) if puts else [None] * len(binaries)
        bget, decode = self._store._bget, self._decode
        for index, binary in enumerate(binaries):
            if found[index] is None:
                raw = bget(binary)
                if raw is not None:
                    found[index] = decode(raw)
        return found

    @property
    def observed(self) -> int:
        """The store's stream time as the writes held so far move it."""
        return self._observed

    def load_span(self, time_from: int, time_to: int) -> None:
        """The window starts ``windows`` may be asked for (before any write is held)."""
        self._span = (time_from, time_to)
        self._overlay = {}

    def _key_windows(self, key_bytes: bytes) -> dict[int, tuple[Any, int]]:
        """The key's windows in the span, start -> ``(value, timestamp)``, read once."""
        overlay = self._overlay
        held = overlay.get(key_bytes)  # type: ignore[union-attr]
        if held is None:
            decode, size = self._decode, len(key_bytes)
            held = overlay[key_bytes] = {  # type: ignore[index]
                _TS_SEQ.unpack_from(binary, size)[0]: decode(raw)
                for binary, raw in self._store._key_range(key_bytes, *self._span)}
        return held

    def windows(self, key_bytes: bytes, time_from: int, time_to: int,
                observed: int | None = None, *, position: int = -1
                ) -> list[tuple[int, tuple[Any, int]]]:
        """``(start, (value, timestamp))`` of the key's windows starting in ``[time_from,
        time_to]`` (within the span), ascending, as the store's ``fetch`` would return them
        after the writes so far (``observed``: at that stream time instead, a record cache's
        store that its flushes have moved so far; ``position``: the batch record reading,
        which a record cache's held writes note)."""
        if observed is None:
            observed = self._observed
        floor = max(time_from, observed - self._keep + 1)
        return sorted(item for item in self._key_windows(key_bytes).items()
                      if floor <= item[0] <= time_to)

    def expires(self, start: int, observed: int | None = None) -> bool:
        """True when a write into the window at ``start`` now would be dropped by the store
        as expired (its stream time moved by the write first)."""
        if observed is None:
            observed = self._observed
        return start <= max(observed, start) - self._keep

    def _decode(self, raw: bytes) -> tuple[Any, int]:
        """A stored window's ``(value, timestamp)`` (the store's error for bytes it cannot
        read)."""
        store = self._store
        decode = store._vdec  # the serde's C-level codec first (serdes._base)
        if decode is not None:
            try:
                value = decode(raw[8:])
            except Exception:
                pass  # the serde's own deserialize below: the value, or its error
            else:
                return value[0] if store._vdec_indexed else value, _TS.unpack_from(raw)[0]
        try:
            return store._vdes(store._topic, raw[8:]), _TS.unpack_from(raw)[0]
        except StoreError:
            raise
        except Exception as exc:
            raise store._value_read_failure(raw[8:], exc) from exc

    def _hold(self, run: WindowRun) -> None:
        """Hold ``run``'s writes after those held so far."""
        self._runs.append(run)
        self._offsets.append(self._count)
        self._count += len(run)

    def put(self, key_bytes: bytes, start: int, value: Any, timestamp: int,
            position: int = -1) -> bool:
        """Hold ``ValueAndTimestamp(value, timestamp)`` for the key's window at ``start``;
        ``False`` (nothing held) for a ``None`` value: a delete."""
        if value is None:
            return False
        if start > self._observed:
            self._observed = start
        binary = key_bytes + _TS_SEQ.pack(start, 0)
        if start > self._observed - self._keep:  # (an expired write is dropped)
            self._puts[binary] = (value, timestamp)
            if self._overlay is not None:
                self._key_windows(key_bytes)[start] = (value, timestamp)
        runs = self._runs
        if runs and runs[-1].start == start and runs[-1].ids is None:  # the run goes on
            run = runs[-1]
            run.last = None
            self._count += 1
        else:
            run = WindowRun(start, [], None, [], [], [])
            self._hold(run)
            self._count += 1
        run.binaries.append(binary)
        run.values.append(value)
        run.timestamps.append(timestamp)
        run.positions.append(position)
        return True

    def put_window(self, start: int, key_bytes: list[bytes], ids: list[int],
                   values: list[Any], timestamps: list[int], positions: list[int]) -> None:
        """``put`` of each update in order, all to windows at ``start``: update ``i`` holds
        ``values[i]`` at ``timestamps[i]`` for key ``key_bytes[ids[i]]`` (the distinct keys:
        each one updated) for the batch record at ``positions[i]`` (the lists are held as
        they are; a ``None`` value, a delete, is not held: ``flushed`` says so)."""
        if not ids:
            return
        if start > self._observed:
            self._observed = start
        binaries = list(map(bytes.__add__, key_bytes, repeat(_TS_SEQ.pack(start, 0))))
        run = WindowRun(start, binaries, ids, values, timestamps, positions)
        last = run.finals()
        if start > self._observed - self._keep:  # what fetches see from now on
            self._puts.update(zip(map(binaries.__getitem__, last), zip(
                map(values.__getitem__, last.values()),
                map(timestamps.__getitem__, last.values()), strict=True), strict=True))
        self._hold(run)

    def encode_stored(self, values: list[Any], timestamps: list[int]) -> list[bytes] | None:
        """The stored bytes (8-byte timestamp, then the value) of each value at its
        timestamp as the store writes it, without holding a write (a record cache in front
        keeps them: ``HeldCachedWindowWrites._held_dirty``); ``None`` for a delete (a
        ``None`` value, or one the serde writes as ``None``)."""
        raws = self._store.encode_values(values)
        if raws is None:
            return None
        return list(map(bytes.__add__, map(_TS.pack, timestamps), raws))

    def put_runs(self, runs: list[WindowRun]) -> None:
        """Hold ``runs`` (a record cache's flushes, after every read of the batch run: what
        they write is not read back here); no ``None`` among their values."""
        for run in runs:
            if run.start > self._observed:
                self._observed = run.start
            self._hold(run)

    def flushed(self) -> Flushed | None:
        """Serialize what was put (phase one), and each window's last stored bytes (a
        timestamp the store cannot write raises here: a window's last is its largest); no
        forwards (the processor forwards updates of a store without a cache). ``None`` for a
        delete (a ``None`` value, or one the serde writes as ``None``)."""
        encode = self._store.encode_values
        for run in self._runs:
            raws = encode(run.values)
            if raws is None:
                return None
            run.raws = raws
            last = run.finals().values()
            run.final_stored = list(map(bytes.__add__, map(_TS.pack, map(
                run.timestamps.__getitem__, last)), map(raws.__getitem__, last)))
        self._raws = self._column("raws")  # (one list: a sink and the changelog share it)
        return Flushed(None, None, self._raws)

    def _column(self, name: str) -> list[Any]:
        """A column of every write, in order (a run's own list where there is one run)."""
        runs = self._runs
        if len(runs) == 1:
            return getattr(runs[0], name)  # type: ignore[no-any-return]
        return list(chain.from_iterable(getattr(run, name) for run in runs))

    def widest_stored(self) -> int:
        """The length of the longest write's stored bytes (timestamp and value), after
        ``flushed``."""
        from kslab.serdes._base import fixed_struct  # (state never needs kslab.serdes at
        # import time: see kslab.state._typed)

        fixed = fixed_struct(self._store.value_serde)  # (every value that wide: not measured)
        if fixed is not None and self._count:
            return 8 + fixed.size  # type: ignore[no-any-return]
        return 8 + max((max(map(len, run.raws)) for run in self._runs if len(run)), default=0)

    def stored_value(self, index: int) -> bytes:
        """Write ``index``'s stored bytes (8-byte timestamp, then the value), after
        ``flushed``."""
        k = bisect_right(self._offsets, index) - 1
        return self._runs[k].stored(index - self._offsets[k])

    def apply(self) -> None:
        """Write what was held, in order, as the record path's puts would have; the
        changelog records (a window-opening write's too) go out together, in order."""
        store = self._store
        if not self._count:
            return
        log, store._log = store._log, None  # (the store's own writes below log nothing)
        keys: list[bytes] = []  # live runs' last bytes, written together before the store's
        values: list[bytes] = []  # own next write (which may expire segments) and at the end
        try:
            observed, keep = store._observed, store._keep
            put_bytes, backend = store.put_bytes, store._backend
            for run in self._runs:
                start, stored = run.start, run.stored
                if start <= observed - keep:  # expired: each write dropped and counted
                    if keys:
                        backend.put_all(zip(keys, values, strict=True))
                        keys, values = [], []
                    for index in range(len(run)):
                        binary = run.binary(index)
                        put_bytes(binary[:-_SUFFIX], (stored(index), run.raws[index],
                                                      run.timestamps[index]), start)
                    continue
                if start > observed:  # opens a newer window: the store's own write
                    if keys:
                        backend.put_all(zip(keys, values, strict=True))
                        keys, values = [], []
                    binary = run.binary(0)
                    put_bytes(binary[:-_SUFFIX], (stored(0), run.raws[0],
                                                  run.timestamps[0]), start)
                    observed = start  # (its window's last write goes again below: the same)
                finals = list(map(run.binaries.__getitem__, run.finals()))  # the rest, live:
                keys += finals  # each window's last bytes
                values += run.final_stored
                store._segment_keys(start).update(finals)
            if keys:
                backend.put_all(zip(keys, values, strict=True))
        finally:
            store._log = log
        if log is None:
            return
        binaries = self._runs[0].written() if len(self._runs) == 1 else list(
            chain.from_iterable(run.written() for run in self._runs))
        raws, stamps = self._raws, self._column("timestamps")
        append = self._run.changelog(store._name, log)
        if append is None:
            for binary, raw, timestamp in zip(binaries, raws, stamps, strict=True):
                log(store._name, binary, raw, timestamp)
            return
        origin = self._batch.origin
        append(binaries, Encoded(store.value_serde, raws), stamps,
               lambda: list(map(origin.__getitem__, self._column("positions"))))


class HeldWindowPuts:
    """What a batch run puts into a ``WindowStore`` retaining duplicates (a stream-stream
    join's window store, which the run does not read), held until ``apply``.

    ``put_all`` serializes the puts in phase one and works out, as the record path's puts
    would move them, each put's sequence number, the store's observed stream time and which
    puts land in an expired window: those are dropped with their warning and count deferred
    to the record's place (``run.defer``), so they interleave with the run's other warnings.
    ``apply`` writes the rest in order, expiring segments where a put moves the observed
    time, and sends every put's changelog record (an expired one's too, as the record path).
    """

    __slots__ = ("_batch", "_binaries", "_expired", "_observed", "_puts", "_raws", "_run",
                 "_seq", "_starts", "_store")

    def __init__(self, store: WindowStore, batch: Any, run: Any) -> None:
        self._store, self._batch, self._run = store, batch, run
        self._observed, self._seq = store._observed, store._seq
        self._binaries: list[bytes] = []  # every put, in order
        self._raws: list[bytes] = []
        self._starts: list[int] = []
        self._puts: list[int] = []  # each put's position in the batch
        self._expired: list[bool] = []

    def put_all(self, keys: list[Any], values: list[Any], starts: list[int],
                positions: list[int]) -> None:
        """``put(keys[i], values[i], starts[i])`` for the batch record at ``positions[i]``,
        in order (no key ``None``); a ``None`` value, or one the serde writes as ``None``,
        puts nothing."""
        store = self._store
        key_bytes = store.serialize_keys(keys)
        raws = store.serialize_values(values)
        observed, keep, seq = self._observed, store._keep, self._seq
        defer, origin = self._run.defer, self._batch.origin
        binaries, kept, stamps, puts, expired = (self._binaries, self._raws, self._starts,
                                                 self._puts, self._expired)
        for key, raw, start, position in zip(key_bytes, raws, starts, positions, strict=True):
            if raw is None:
                continue
            seq = (seq + 1) & _MAX_SEQ
            binaries.append(key + _TS_SEQ.pack(start, seq))
            kept.append(raw)
            stamps.append(start)
            puts.append(position)
            if start > observed:
                observed = start
            late = start <= observed - keep
            expired.append(late)
            if late:
                defer(origin[position], store.drop_expired, position)
        self._observed, self._seq = observed, seq

    def apply(self) -> None:
        """Write what was held, as the record path's puts would have, then log every put."""
        store = self._store
        store._seq = self._seq
        if not self._binaries:
            return
        observed, keep, backend = store._observed, store._keep, store._backend
        interval = store._interval
        pending: list[tuple[bytes, bytes]] = []
        oldest = _MAX_TS  # the end of the oldest segment a pending put is in
        segment_keys = store._segment_keys
        for binary, raw, start, late in zip(self._binaries, self._raws, self._starts,
                                            self._expired, strict=True):
            if start > observed:
                observed = store._observed = start
                if oldest < observed - keep + 1:  # (the expiry may drop a pending put's
                    backend.put_all(pending)  # segment: written first, as the record path)
                    pending, oldest = [], _MAX_TS
                store._expire()
            if not late:
                pending.append((binary, raw))
                segment_keys(start).add(binary)
                end = (start // interval + 1) * interval - 1
                if end < oldest:
                    oldest = end
        if pending:
            backend.put_all(pending)
        log = store._log
        if log is None:
            return
        append = self._run.changelog(store._name, log)
        if append is None:
            for binary, raw, start in zip(self._binaries, self._raws, self._starts,
                                          strict=True):
                log(store._name, binary, raw, start)
            return
        origin, puts = self._batch.origin, self._puts
        append(self._binaries, Encoded(store.value_serde, self._raws), self._starts,
               lambda: list(map(origin.__getitem__, puts)))
