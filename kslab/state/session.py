"""Session stores: typed ``Windowed(key, [start, end]) -> value`` views over a byte backend.

Entries live under Java's ``SessionKeySchema`` binary key, ``key bytes + 8-byte end + 8-byte
start`` (big-endian), which is also the changelog key. Invariant: a session whose end is at or
before ``observed stream time - retention`` is never returned and is dropped from the backend
(without a changelog tombstone) once stream time passes it, as Java's session stores do.
"""

from __future__ import annotations

import heapq
import logging
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from kslab.errors import StoreError
from kslab.records import Window, Windowed
from kslab.state._frames import to_pandas, to_polars
from kslab.state._typed import TypedStore
from kslab.state.base import KeyValueBackend, NullStoreArgumentError, StoreContext
from kslab.state.iterators import KeyValueIterator
from kslab.state.window import LazyRows, pinned_time

__all__ = ["SINGLE_KEY", "HeldSessionWrites", "SessionStore", "session_key", "split_session_key"]

log = logging.getLogger("kslab.state")

# ``fetch(key)`` means one key; an explicit ``fetch(key_from, None)`` is an open upper bound
SINGLE_KEY: Any = object()


def _require_key(key: Any) -> None:
    """Java's ``Objects.requireNonNull(key, "key cannot be null")`` of single-key reads."""
    if key is None:
        msg = "key cannot be null"
        raise NullStoreArgumentError(msg)

def _require_session(session: Any) -> None:
    """Java's ``requireNonNull`` checks of a session key on ``put`` and ``remove``."""
    if session is None:
        msg = "sessionKey can't be null"
    elif session.key is None:
        msg = "sessionKey.key() can't be null"
    else:
        msg = "sessionKey.window() can't be null"
    raise NullStoreArgumentError(msg)


_END_START = struct.Struct(">qq")
_SUFFIX = 16
_MIN_TS = -(2**63)
_MAX_TS = 2**63 - 1


def session_key(key_bytes: bytes, start: int, end: int) -> bytes:
    """Java's ``SessionKeySchema.toBinary``: key, session end, session start."""
    return key_bytes + _END_START.pack(end, start)


def split_session_key(binary: bytes) -> tuple[bytes, int, int]:
    """``(key bytes, start, end)`` of a session store binary key."""
    end, start = _END_START.unpack_from(binary, len(binary) - _SUFFIX)
    return binary[:-_SUFFIX], start, end


class SessionStore(TypedStore):
    """Java's ``SessionStore<K, V>``: aggregates per key and session, kept for ``retention`` ms.

    >>> from kslab.state import Stores
    >>> supplier = Stores.in_memory_session_store("s", 60_000)
    >>> Stores.session_store_builder(supplier, "string", "long").build()
    <SessionStore 's' (InMemory, not open)>
    """

    __slots__ = ("_dropped", "_end_heap", "_ends", "_interval", "_observed", "_retention",
                 "_time_ordered")

    store_kind = "session"
    raw_changelog = True  # its changelog holds its binary session keys, not its serdes' output

    def __init__(self, name: str, backend: KeyValueBackend, key_serde: Any = None,
                 value_serde: Any = None, *, retention: int, logging_enabled: bool = True,
                 caching_enabled: bool = False, time_ordered: bool = False,
                 segment_interval: int | None = None) -> None:
        super().__init__(name, backend, key_serde, value_serde,
                         logging_enabled=logging_enabled, caching_enabled=caching_enabled)
        self._retention = retention
        self._observed = _MIN_TS
        self._ends: dict[int, set[bytes]] = {}
        self._end_heap: list[int] = []  # the ends of _ends, smallest first: what expires next
        self._time_ordered = time_ordered
        self._dropped: Any = None  # the task's dropped-records counter, once open
        # RocksDB's segment interval (used by time-ordered stores), as Java's default
        self._interval = max(retention // 2, 60_000) if segment_interval is None else \
            max(1, segment_interval)

    @property
    def retention_period(self) -> int:
        """How long (ms of stream time after a session's end) sessions are kept."""
        return self._retention

    @property
    def segment_interval(self) -> int:
        """The width (ms of session end) of the segments sessions are kept and expire in."""
        return self._interval

    def init(self, context: StoreContext, root: Any = None) -> None:
        """Open the backend and rebuild the expiry index from what it holds."""
        super().init(context, root)
        self._dropped = getattr(context, "record_dropped", None)
        self.reindex()

    def close(self) -> None:
        """Close the store; its open iterators just end (Java's session iterators do not throw
        once their store is closed: ``has_next()`` is false)."""
        iterators = list(self._iterators)
        super().close()
        for iterator in iterators:
            iterator.end_quietly()  # ended, not failed

    # -- writes --------------------------------------------------------------------------------

    def put(self, session: Windowed, value: Any) -> None:
        """Store ``value`` for the session ``Windowed(key, Window(start, end))``; None removes."""
        key_bytes, start, end = self.session_key_parts(session)
        binary = key_bytes + _END_START.pack(end, start)
        raw = self.serialize_value(value)
        self._write(binary, end, raw)
        changelog = self._log
        if changelog is not None:  # logged even when expired, as Java's change-logging layer
            changelog(self._name, binary, raw)

    def _write(self, binary: bytes, end: int, raw: bytes | None) -> None:
        """Write ``raw`` (``None``: delete) under the binary session key of a session ending
        at ``end``: stream time and expiry first, a session no longer kept dropped (``put``,
        and a batch run's held writes, ``HeldSessionWrites.apply``)."""
        if end > self._observed:
            self._observed = end
            self._expire()
        if not self._live(end):
            self._expired_put()
        elif raw is None:
            self._bdelete(binary)
        else:
            self._bput(binary, raw)
            self._index_end(end, binary)

    def _expired_put(self) -> None:
        """A write into an expired session: dropped and counted (Java's ``expiredRecordSensor``
        is the task's dropped-records sensor); logged by the in-memory and time-ordered stores,
        as Java's (its key-first RocksDB store is silent)."""
        if self._time_ordered or not self._backend.persistent:
            log.warning("Skipping record for expired segment.")
        if self._dropped is not None:
            self._dropped()

    def remove(self, session: Windowed) -> None:
        """Remove the session (a tombstone goes to the changelog)."""
        self.put(session, None)

    def held_writes(self, batch: Any, run: Any) -> HeldSessionWrites | None:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``), or ``None``
        when the store is not open."""
        if not self.is_open:
            return None
        return HeldSessionWrites(self, batch, run)

    # -- reads ---------------------------------------------------------------------------------

    def fetch_session(self, key: Any, session_start: int, session_end: int) -> Any:
        """The value of the session of ``key`` with exactly these bounds, or ``None``."""
        _require_key(key)
        if session_end <= self._observed - self._retention:
            return None
        raw = self._bget(self.serialize_key(key) + _END_START.pack(session_end, session_start))
        return None if raw is None else self.decode_value(raw)

    def find_sessions(self, key: Any, earliest_session_end_time: int,
                      latest_session_start_time: int | None = None,
                      *args: Any) -> KeyValueIterator:
        """Sessions of ``key`` ending at or after ``earliest_session_end_time`` and starting at or
        before ``latest_session_start_time``; with four arguments, of keys in a range; with two,
        ``find_sessions(earliest_end, latest_end)``: every session ending in that range."""
        if latest_session_start_time is None:
            return self._find_by_end(key, earliest_session_end_time)
        if args:
            return self._find(key, earliest_session_end_time, latest_session_start_time, args[0],
                              backward=False)
        _require_key(key)
        return self._find(key, key, earliest_session_end_time, latest_session_start_time,
                          backward=False)

    def backward_find_sessions(self, key: Any, earliest_session_end_time: int,
                               latest_session_start_time: int, *args: Any) -> KeyValueIterator:
        """As ``find_sessions``, newest first."""
        if args:
            return self._find(key, earliest_session_end_time, latest_session_start_time, args[0],
                              backward=True)
        _require_key(key)
        return self._find(key, key, earliest_session_end_time, latest_session_start_time,
                          backward=True)

    def fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> KeyValueIterator:
        """Every session of ``key_from``, or of the keys in ``[key_from, key_to]`` (``None``:
        no bound on that side, as Java's)."""
        if key_to is SINGLE_KEY:
            _require_key(key_from)
            key_to = key_from
        return self._find(key_from, key_to, 0, _MAX_TS, backward=False)

    def backward_fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> KeyValueIterator:
        """As ``fetch``, newest first."""
        if key_to is SINGLE_KEY:
            _require_key(key_from)
            key_to = key_from
        return self._find(key_from, key_to, 0, _MAX_TS, backward=True)

    def all(self) -> KeyValueIterator:
        """Every live session."""
        return self._find(None, None, _MIN_TS, _MAX_TS, backward=False)

    def to_pandas(self) -> Any:
        """The contents as a DataFrame with columns ``key``, ``start``, ``end``, ``value``."""
        return to_pandas(self._columns())

    def to_polars(self) -> Any:
        """The contents as a polars DataFrame (columns ``key``, ``start``, ``end``, ``value``)."""
        return to_polars(self._columns())

    def _find(self, key_from: Any, key_to: Any, earliest_end: int, latest_start: int, *,
              backward: bool) -> KeyValueIterator:
        lower = None if key_from is None else self.serialize_key(key_from)
        upper = None if key_to is None else self.serialize_key(key_to)
        if lower is not None and upper is not None and lower > upper:
            log.warning("Returning empty iterator for fetch with invalid key range: from > to. "
                        "This may be due to range arguments set in the wrong order, or serdes "
                        "that don't preserve ordering when lexicographically comparing the "
                        "serialized bytes. Note that the built-in numerical serdes do not follow "
                        "this for negative numbers")
            return self.bytes_iterator(iter(()))
        earliest_end = max(earliest_end, self._observed - self._retention + 1)

        def read() -> Iterator[tuple[bytes, bytes]]:
            return self._rows(lower, upper, earliest_end, latest_start, backward=backward)

        return self.bytes_iterator(LazyRows(read, earliest_end))

    def _rows(self, lower: bytes | None, upper: bytes | None, earliest_end: int,
              latest_start: int, *, backward: bool) -> Iterator[tuple[bytes, bytes]]:
        """The sessions of keys in ``[lower, upper]`` ending at or after ``earliest_end`` and
        starting at or before ``latest_start``, in the store's scan order."""
        single = lower is not None and lower == upper
        source = self._backend.prefix_scan(lower) if single else self._backend.all()
        rows = []
        for binary, value in source:
            key_bytes, start, end = split_session_key(binary)
            if end < earliest_end or start > latest_start:
                continue
            if single:
                if key_bytes != lower:
                    continue
            elif (lower is not None and key_bytes < lower) or \
                    (upper is not None and key_bytes > upper):
                continue
            rows.append(((end, key_bytes, start), binary, value))
        if not single:  # Java's in-memory store: by end time, then key, then start time
            rows.sort(key=lambda row: row[0])
        if backward:
            rows.reverse()
        return iter([(b, v) for _, b, v in rows])

    def _find_by_end(self, earliest_end: int, latest_end: int) -> KeyValueIterator:
        """Sessions of every key ending in ``[earliest_end, latest_end]``, by end time, then key
        and start (Java's in-memory store) or start and key (its time-ordered store, which
        filters by live segments only, not by retention). Java's plain RocksDB store has no
        such scan: it refuses the call, as ``SessionStore.findSessions``' default does."""
        if not self._time_ordered and self._backend.persistent:
            msg = "This API is not supported by this implementation of SessionStore."
            raise StoreError(msg)
        if not self._time_ordered:
            earliest_end = max(earliest_end, self._observed - self._retention + 1)

        def read() -> Iterator[tuple[bytes, bytes]]:
            return self._rows_by_end(earliest_end, latest_end)

        return self.bytes_iterator(LazyRows(read, earliest_end))

    def _rows_by_end(self, earliest_end: int, latest_end: int) -> Iterator[tuple[bytes, bytes]]:
        """The sessions of every key ending in ``[earliest_end, latest_end]``, in scan order."""
        get = self._backend.get
        rows = []
        for end in [e for e in self._ends if earliest_end <= e <= latest_end]:
            for binary in self._ends[end]:
                value = get(binary)
                if value is not None:
                    key_bytes, start, _ = split_session_key(binary)
                    order = (end, start, key_bytes) if self._time_ordered else \
                        (end, key_bytes, start)
                    rows.append((order, binary, value))
        rows.sort(key=lambda row: row[0])
        return iter([(b, v) for _, b, v in rows])

    def decode_key(self, key_bytes: bytes) -> Any:
        inner, start, end = split_session_key(key_bytes)
        return Windowed(super().decode_key(inner), Window(start, end))

    def session_key_parts(self, session: Any) -> tuple[bytes, int, int]:
        """``(key bytes, start, end)`` of a ``Windowed`` session key (checked as the store's writes
        check it)."""
        if session is None or (isinstance(session, Windowed) and (
                session.key is None or session.window is None)):
            _require_session(session)
        if not isinstance(session, Windowed) or not isinstance(session.window, Window | tuple):
            msg = (
                f"Session store '{self._name}' got {session!r}; pass "
                "Windowed(key, Window(start, end))"
            )
            raise StoreError(msg)
        start, end = session.window[0], session.window[1]
        return self.serialize_key(session.key), start, end

    def _columns(self) -> dict[str, list[Any]]:
        from kslab.state._frames import windowed_columns

        return windowed_columns(self)

    # -- retention -----------------------------------------------------------------------------

    def _live(self, end: int, observed: int | None = None) -> bool:
        """Whether a session ending at ``end`` is still kept (at stream time ``observed``,
        else the store's): by end time, or in a time-ordered store (Java's RocksDB one) by
        segment of ``max(retention / 2, 60 s)``."""
        if observed is None:
            observed = self._observed
        if self._time_ordered:
            interval = self._interval
            return end // interval >= (observed - self._retention) // interval
        return end > observed - self._retention

    def _index_end(self, end: int, binary: bytes) -> None:
        """Note ``binary`` under its session ``end`` in the expiry index."""
        ends = self._ends.get(end)
        if ends is None:
            ends = self._ends[end] = set()
            heapq.heappush(self._end_heap, end)
        ends.add(binary)

    def _expire(self) -> None:
        """Delete the sessions no longer kept, oldest end first (whether an end is kept is
        monotonic in it, so the ends past the first kept one are kept too)."""
        heap, ends = self._end_heap, self._ends
        if self._time_ordered:
            live = self._live
            while heap and not live(heap[0]):
                for binary in ends.pop(heapq.heappop(heap)):
                    self._bdelete(binary)
            return
        min_live = self._observed - self._retention + 1
        if self._iterators and not self._backend.persistent:  # Java's in-memory store
            min_live = min(min_live, pinned_time(self._iterators))
        while heap and heap[0] < min_live:
            for binary in ends.pop(heapq.heappop(heap)):
                self._bdelete(binary)

    @property
    def time_ordered(self) -> bool:
        """Whether scans come in session-end order first, rather than key by key."""
        return self._time_ordered

    def reindex(self) -> None:
        """Rebuild the store's time index from its backend's bytes (after the backend was
        replaced, as an engine keeping the bytes itself does)."""
        self._ends = {}
        self._end_heap = []
        observed = _MIN_TS
        for binary, _ in self._backend.all():
            _, _, end = split_session_key(binary)
            self._index_end(end, binary)
            observed = max(observed, end)
        self._observed = observed

    # -- engine hooks --------------------------------------------------------------------------

    def snapshot(self) -> object:
        return (self._backend.snapshot(), self._observed)

    def restore_snapshot(self, snapshot: object) -> None:
        data, observed = snapshot  # type: ignore[misc]
        self._backend.restore_snapshot(data)
        self.reindex()
        self._observed = observed

    def restore_batch(self, records: Iterable[tuple[Any, ...]]) -> None:
        for record in records:
            binary, value = record[0], record[1]
            _, _, end = split_session_key(binary)
            if end > self._observed:
                self._observed = end
                self._expire()
            if value is None:
                self._backend.delete(binary)
            elif self._live(end):
                self._backend.put(binary, value)
                self._index_end(end, binary)


class HeldSessionWrites:
    """What a batch run writes to a ``SessionStore``, held until ``apply``.

    Each key's sessions in the run's span (``load_span``: the earliest end and latest start
    any record of the run asks for) are read from the backend once, when the key is first
    asked for, and held as an overlay the run's writes change. ``sessions`` and ``fetch``
    answer as ``find_sessions`` and ``fetch_session`` would after the writes so far (the
    retention filter at the stream time the writes move); ``write`` holds a put (``None``: a
    remove), refusing one into a session the store no longer keeps (the record path drops and
    counts it: the run goes record by record). ``flushed`` serializes the values (phase one);
    ``apply`` writes each in order through the store's own write (``SessionStore._write``:
    stream time, expiry, segments) and appends the changelog records, stamped with their
    consumed record's time, as ``put`` logs them.
    """

    __slots__ = ("_batch", "_binaries", "_decoded", "_ends", "_keys", "_observed",
                 "_positions", "_raws", "_run", "_span", "_store", "_values")

    def __init__(self, store: SessionStore, batch: Any, run: Any) -> None:
        self._store, self._batch, self._run = store, batch, run
        self._observed = store._observed  # as the writes move it
        self._span = (_MIN_TS, _MAX_TS)
        self._keys: dict[bytes, dict[bytes, tuple[int, int, Any]]] = {}  # key bytes ->
        # binary session key -> (start, end, value): the store's, as the writes leave them
        self._decoded: dict[bytes, Any] = {}
        self._binaries: list[bytes] = []
        self._ends: list[int] = []
        self._values: list[Any] = []
        self._positions: list[int] = []
        self._raws: list[bytes | None] = []

    @property
    def key_serde(self) -> Any:
        """The serde that wrote the key inside each binary session key."""
        return self._store.key_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` (none ``None``) as the store serializes them; a key the store refuses
        raises its error."""
        return self._store.serialize_keys(keys)

    def key_object(self, key_bytes: bytes) -> Any:
        """The key the store reads back from ``key_bytes`` (what its scans return)."""
        key = self._decoded.get(key_bytes, _MISSING)
        if key is _MISSING:
            key = self._decoded[key_bytes] = TypedStore.decode_key(self._store, key_bytes)
        return key

    def load_span(self, earliest_end: int, latest_start: int) -> None:
        """The sessions the run may read: ending at or after ``earliest_end``, starting at or
        before ``latest_start`` (before any key is read)."""
        self._span = (earliest_end, latest_start)

    def _held(self, key_bytes: bytes) -> dict[bytes, tuple[int, int, Any]]:
        held = self._keys.get(key_bytes)
        if held is None:
            store = self._store
            earliest_end, latest_start = self._span
            decode = store.decode_value
            held = self._keys[key_bytes] = {}
            for binary, raw in store._rows(key_bytes, key_bytes, earliest_end, latest_start,
                                           backward=False):
                _, start, end = split_session_key(binary)
                held[binary] = (start, end, decode(raw))
        return held

    def sessions(self, key_bytes: bytes, earliest_end: int, latest_start: int, *,
                 position: int = -1) -> list[tuple[bytes, int, int, Any]]:
        """``(binary, start, end, value)`` of each of the key's sessions ``find_sessions``
        returns now, in its order (``position``: the batch record reading, which a record
        cache's held writes note)."""
        held = self._held(key_bytes)
        if not held:
            return []
        floor = max(earliest_end, self._observed - self._store._retention + 1)
        return [(binary, start, end, value)
                for binary, (start, end, value) in sorted(held.items())
                if end >= floor and start <= latest_start]

    def fetch(self, key_bytes: bytes, binary: bytes, end: int) -> Any:
        """The value ``fetch_session`` returns now for the session at ``binary`` (ending at
        ``end``), or ``None``."""
        if end <= self._observed - self._store._retention:
            return None
        held = self._held(key_bytes).get(binary)
        return None if held is None else held[2]

    def write(self, key_bytes: bytes, binary: bytes, start: int, end: int, value: Any,
              position: int) -> bool:
        """Hold the put of ``value`` (``None``: a remove) for the session at ``binary``, by
        the batch record at ``position``; ``False`` (nothing held) for a session the store no
        longer keeps."""
        observed = self._observed
        if end > observed:
            observed = self._observed = end
        if not self._store._live(end, observed):
            return False
        held = self._held(key_bytes)
        if value is None:
            held.pop(binary, None)
        else:
            held[binary] = (start, end, value)
        self._binaries.append(binary)
        self._ends.append(end)
        self._values.append(value)
        self._positions.append(position)
        return True

    def update(self, position: int, key_bytes: bytes,
               removed: list[tuple[bytes, int, int, Any]], binary: bytes, start: int,
               end: int, session: Any, value: Any) -> bool:
        """A session aggregation's writes for the batch record at ``position``: each of the
        ``removed`` sessions (as ``sessions`` gave them) removed, then ``value`` put for the
        session at ``binary`` (``session``: its ``Windowed`` key); ``False`` when the store
        would drop one (see ``write``)."""
        write = self.write
        for removed_binary, removed_start, removed_end, _ in removed:
            if not write(key_bytes, removed_binary, removed_start, removed_end, None, position):
                return False
        return write(key_bytes, binary, start, end, value, position)

    def flushed(self) -> bool:
        """Serialize the values put (phase one); ``False`` when the serde writes one as
        ``None`` (a delete)."""
        values = self._values
        puts = [value for value in values if value is not None]
        raws = self._store.encode_values(puts) if puts else []
        if raws is None:
            return False
        found = iter(raws)
        self._raws = [None if value is None else next(found) for value in values]
        return True

    def raw(self, index: int) -> bytes | None:
        """Write ``index``'s value bytes (after ``flushed``)."""
        return self._raws[index]

    def value_of(self, index: int) -> Any:
        """Write ``index``'s value."""
        return self._values[index]

    def __len__(self) -> int:
        return len(self._binaries)

    def apply(self) -> None:
        """Write what was held, in order, as the record path's puts would have, then its
        changelog records."""
        store, binaries, raws = self._store, self._binaries, self._raws
        write = store._write
        for binary, end, raw in zip(binaries, self._ends, raws, strict=True):
            write(binary, end, raw)
        log = store._log
        if log is None or not binaries:
            return
        batch, positions = self._batch, self._positions
        stamps = list(map(self._run.timestamps(batch).__getitem__, positions))
        append = self._run.changelog(store._name, log)
        if append is None:
            for binary, raw, timestamp in zip(binaries, raws, stamps, strict=True):
                log(store._name, binary, raw, timestamp)
            return
        origin = batch.origin
        append(binaries, raws, stamps, lambda: list(map(origin.__getitem__, positions)))


_MISSING: Any = object()
