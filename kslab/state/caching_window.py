"""Java's ``CachingWindowStore`` and ``CachingSessionStore``: window and session stores behind
the thread's record cache.

A write stays in the store's ``NamedCache`` under Java's segmented cache key (8-byte segment id,
then the store's binary key) until the task commits or the cache evicts a dirty entry; then it
goes to the store and, for DSL aggregations, to the flush listener as ``(Windowed key, new,
old, record)`` with the old value read from the store. A time-ordered store with Java's
key-first index (``has_index``) caches an empty index entry beside each window, as
``TimeOrderedCachingWindowStore`` does; its cache keys then carry Java's schema prefix byte (0:
the window, 1: its index entry). Invariant: every read (point fetches and scans) sees the latest
write, cached or stored; a window or session is forwarded at most once per flush.

Over 600 lines because the two caches share one cache-key layout (segment, then binary key),
its one-key ranges and the merged iterator: split, each half would import the other's helpers.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterable
from itertools import compress
from operator import methodcaller
from typing import Any

from kslab.records import KeyValue, ValueAndTimestamp, Window, Windowed
from kslab.state.cache import LRUCacheEntry
from kslab.state.caching import CachingStore
from kslab.state.fresh import fresh_value
from kslab.state.held_sessions import HeldCachedSessionWrites
from kslab.state.held_window_cache import HeldCachedWindowWrites
from kslab.state.iterators import KeyValueIterator
from kslab.state.session import SINGLE_KEY, session_key, split_session_key
from kslab.state.window import (
    WindowStoreFacade,
    invalid_key_range,
    require_key,
    split_window_key,
    window_key,
)

__all__ = ["CachingSessionStore", "CachingWindowStore"]

_SEGMENT = struct.Struct(">q")
_TS = struct.Struct(">q")
_MIN_TS = -(2**63)
_MAX_TS = 2**63 - 1
_IMMUTABLE = (str, int, bytes, float)
_KEY_MEMO = 4096  # decoded keys remembered by the window flush
_BASE, _INDEX = b"\x00", b"\x01"  # Java's TimeFirst / KeyFirst schema prefixes
_LAST_SUFFIX = b"\xff" * 12  # above every window start and sequence number of a binary key
_KEY_SEGMENTS = 16  # a one-key fetch over more segments scans them whole
_SESSION_SUFFIX = b"\xff" * 16  # above every end and start of a binary session key


class CachingWindowStore(CachingStore):
    """Java's ``CachingWindowStore`` over a (timestamped) window store without duplicates."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self._timestamped = inner.store_kind == "timestamped_window"
        self._keys: dict[bytes, Any] = {}
        self._interval = max(1, getattr(inner, "segment_interval", 1))
        self._index = bool(getattr(inner, "has_index", False))
        self._skip = 9 if self._index else 8  # cache key bytes before the window's binary key

    def init(self, context: Any, root: Any = None) -> None:
        """Open the store; a store keeping duplicates is never cached (as in Java)."""
        super().init(context, root)
        if self._inner.retain_duplicates and self._cache is not None:
            self._cache.close(self._namespace)
            self._cache = self._named = None
            self.enabled = False

    @property
    def store_kind(self) -> str:  # type: ignore[override]
        """The wrapped store's kind."""
        return self._inner.store_kind  # type: ignore[no-any-return]

    def _cache_key(self, binary: bytes, start: int) -> bytes:
        if self._index:
            return _SEGMENT.pack(start // self._interval) + _BASE + binary
        return _SEGMENT.pack(start // self._interval) + binary

    def _put_index(self, binary: bytes, start: int) -> None:
        """Cache the window's empty index entry (Java's ``TimeOrderedCachingWindowStore.put``
        with ``hasIndex``: after the window, so the window is never evicted first)."""
        c = self._context
        entry = LRUCacheEntry(b"", None, True, c.offset, c.record.timestamp, c.partition, "")
        self._cache.put(self._namespace,  # type: ignore[union-attr]
                        _SEGMENT.pack(start // self._interval) + _INDEX + binary, entry)

    def held_writes(self, batch: Any, run: Any) -> Any:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``): the wrapped
        store's while the record cache is off; with it on, ``HeldCachedWindowWrites`` where
        the cache is this thread's and, when the run commits after every record, clean (not
        for a key-first index's entries); else ``None``."""
        held = getattr(self._inner, "held_writes", None)
        if self._cache is None:
            return None if held is None else held(batch, run)
        if held is None or not self._timestamped or self._index \
                or not run.holds_cache(self._namespace) or threading.get_ident() != self._thread \
                or (run.commit_each and not self._cache.is_clean(self._namespace)):
            return None
        inner = held(batch, run)
        if inner is None:
            return None
        return HeldCachedWindowWrites(self._cache, self._namespace, inner, batch, run,
                                      cache_key=self._cache_key, decode=self._object,
                                      send_old_values=self._send_old_values,
                                      cached=self._held_cached, windowed=self._windowed)

    def _held_cached(self, key_bytes: bytes, time_from: int, time_to: int
                     ) -> list[tuple[int, Any]]:
        """The window starts and entries of ``key_bytes``' cached windows starting in
        ``[time_from, time_to]`` (a batch run's range reads, ``HeldCachedWindowWrites``)."""
        named = self._named
        if named is None or named.is_empty():
            return []
        size, skip = len(key_bytes) + 12, self._skip
        found = []
        for cache_key in self._cached_keys(time_from, time_to, key_bytes):
            binary = cache_key[skip:]
            if len(binary) == size and binary.startswith(key_bytes):
                start = split_window_key(binary)[1]
                if time_from <= start <= time_to:
                    found.append((start, named.peek(cache_key)))
        return found

    def plain_view(self) -> WindowStoreFacade:
        """This store seen with plain values, reads and writes still going through the cache
        (``driver.get_window_store`` on a cached timestamped store; Java's facade wraps the
        caching layer, so it sees the clean entries of windows the store has expired)."""
        return WindowStoreFacade(self)

    # -- writes --------------------------------------------------------------------------------

    def put(self, key: Any, value: Any, window_start: int) -> None:
        """Cache ``value`` for ``key`` in the window starting at ``window_start``."""
        require_key(key)
        self.put_serialized(self._inner.serialize_key(key), value, window_start)

    def put_serialized(self, key_bytes: bytes, value: Any, window_start: int) -> None:
        """``put`` for an already serialized key."""
        cache = self._cache
        if cache is None:
            self._inner.put_serialized(key_bytes, value, window_start)
            return
        encoded = self._inner.encode_value(value)
        entry = self._dirty_entry(None if encoded is None else encoded[0], value)
        binary = window_key(key_bytes, window_start)
        cache.put(self._namespace, self._cache_key(binary, window_start), entry)
        if self._index:
            self._put_index(binary, window_start)

    def put_pair(self, key_bytes: bytes, value: Any, timestamp: int, window_start: int) -> None:
        """``put_serialized`` of ``ValueAndTimestamp(value, timestamp)`` (timestamped stores)."""
        self.put_serialized(key_bytes, ValueAndTimestamp(value, timestamp), window_start)

    # -- reads ---------------------------------------------------------------------------------

    def fetch_pair(self, key_bytes: bytes, time: int) -> tuple[Any, int] | None:
        """``(value, timestamp)`` of a window, cached or stored (timestamped stores)."""
        found = self.fetch_serialized(key_bytes, time)
        return None if found is None else (found.value, found.timestamp)

    def fetch_serialized(self, key_bytes: bytes, time: int) -> Any:
        """The value of one window, cached or stored."""
        cache = self._cache
        if cache is not None:
            entry = cache.get(self._namespace,
                              self._cache_key(window_key(key_bytes, time), time))
            if entry is not None:
                return self._object(entry)
        return self._inner.fetch_serialized(key_bytes, time)

    def fetch(self, key: Any, time_from: Any = None, time_to: Any = None, *args: Any) -> Any:
        """As the window store's ``fetch``, with cached writes laid over the store."""
        if not args:
            require_key(key)
        if not args and time_to is None:
            return self.fetch_serialized(self._inner.serialize_key(key), time_from)
        if not self._has_dirty():
            return self._inner.fetch(key, time_from, time_to, *args)
        if args:
            return self._range(key, time_from, time_to, args[0], backward=False)
        return self._key(key, time_from, time_to, backward=False)

    def backward_fetch(self, key: Any, time_from: Any, time_to: Any = None, *args: Any) -> Any:
        """As ``fetch`` with a time range, newest first; a reversed key range logs Java's
        backward wording and is empty without asking the store (as Java's caching stores)."""
        if not args:
            require_key(key)
        if args and self._reversed(key, time_from):
            return self._iterator([], self._inner.decode_windowed)
        if not self._has_dirty():
            return self._inner.backward_fetch(key, time_from, time_to, *args)
        if args:
            return self._range(key, time_from, time_to, args[0], backward=True)
        return self._key(key, time_from, time_to, backward=True)

    def _reversed(self, key_from: Any, key_to: Any) -> bool:
        """True, with Java's backward warning, when both keys are set and serialize reversed."""
        if key_from is None or key_to is None:
            return False
        serialize = self._inner.serialize_key
        return invalid_key_range(serialize(key_from), serialize(key_to), backward=True)

    def fetch_all(self, time_from: int, time_to: int) -> Any:
        """Every window starting in ``[time_from, time_to]``, cached writes included."""
        if not self._has_dirty():
            return self._inner.fetch_all(time_from, time_to)
        return self._scan(None, None, time_from, time_to, backward=False)

    def backward_fetch_all(self, time_from: int, time_to: int) -> Any:
        """As ``fetch_all``, in reverse order."""
        if not self._has_dirty():
            return self._inner.backward_fetch_all(time_from, time_to)
        return self._scan(None, None, time_from, time_to, backward=True)

    def all(self) -> Any:
        """Every live window, cached writes included."""
        if not self._has_dirty():
            return self._inner.all()
        return self._scan(None, None, _MIN_TS, _MAX_TS, backward=False)

    def backward_all(self) -> Any:
        """``all`` in reverse order."""
        if not self._has_dirty():
            return self._inner.backward_all()
        return self._scan(None, None, _MIN_TS, _MAX_TS, backward=True)

    def _segment_bound(self, time: int, *, upper: bool) -> bytes | None:
        segment = time // self._interval + (1 if upper else 0)
        if segment < 0:
            return None if not upper else _SEGMENT.pack(0)
        return None if segment > _MAX_TS else _SEGMENT.pack(segment)

    def _cached_keys(self, time_from: int, time_to: int, key_bytes: bytes | None) -> list[bytes]:
        """The cache keys of the segments of ``[time_from, time_to]``, ascending; with
        ``key_bytes``, only those of that key's windows (the caller's ``keep`` filters either
        list the same way): in a few segments one sorted range per segment (its cache keys
        being segment, schema byte, key, start, sequence number), in more a filtered scan."""
        named = self._named
        first, last = max(time_from, 0) // self._interval, time_to // self._interval
        if key_bytes is None or not 0 <= last - first < _KEY_SEGMENTS:
            lower = self._segment_bound(max(time_from, 0), upper=False)
            upper = self._segment_bound(time_to, upper=True)
            scan = named.key_range(lower, upper, to_inclusive=False)  # type: ignore[union-attr]
            return scan if key_bytes is None else _starting(scan, key_bytes, self._skip)
        schema = _BASE if self._index else b""
        keys: list[bytes] = []
        for segment in range(first, last + 1):
            prefix = _SEGMENT.pack(segment) + schema + key_bytes
            keys += named.key_range(prefix, prefix + _LAST_SUFFIX)  # type: ignore[union-attr]
        return keys

    def _overlay(self, pairs: Iterable[tuple[bytes, bytes]], time_from: int, time_to: int,
                 keep: Any, key_bytes: bytes | None = None) -> list[tuple[bytes, bytes]]:
        """Stored ``(binary, value)`` pairs with the cached entries of the segments of
        ``[time_from, time_to]`` that ``keep`` accepts laid over them; deletes drop out.
        ``key_bytes``: ``keep`` accepts only that key's windows (see ``_cached_keys``)."""
        merged = dict(pairs)
        named, skip, index = self._named, self._skip, self._index
        for cache_key in self._cached_keys(time_from, time_to, key_bytes):
            if index and cache_key[8:9] == _INDEX:
                continue
            binary = cache_key[skip:]
            if keep(binary):
                value = named.peek(cache_key).value
                if value is None:
                    merged.pop(binary, None)
                else:
                    merged[binary] = value
        return list(merged.items())

    def _key(self, key: Any, time_from: int, time_to: int, *, backward: bool) -> Any:
        inner = self._inner
        key_bytes = inner.serialize_key(key)
        size = len(key_bytes) + 12

        def keep(binary: bytes) -> bool:
            if len(binary) != size or not binary.startswith(key_bytes):
                return False
            return time_from <= split_window_key(binary)[1] <= time_to

        stored = inner.key_pairs(key_bytes, time_from, time_to)
        pairs = sorted(self._overlay(stored, time_from, time_to, keep, key_bytes),
                       reverse=backward)
        return self._iterator(pairs, inner.decode_start)

    def _range(self, key_from: Any, key_to: Any, time_from: int, time_to: int, *,
               backward: bool) -> Any:
        inner = self._inner
        lower = None if key_from is None else inner.serialize_key(key_from)
        upper = None if key_to is None else inner.serialize_key(key_to)
        if invalid_key_range(lower, upper):
            return self._iterator([], inner.decode_windowed)
        return self._scan(lower, upper, time_from, time_to, backward=backward,
                          key_first=self._index)

    def _scan(self, lower: bytes | None, upper: bytes | None, time_from: int, time_to: int, *,
              backward: bool, key_first: bool = False) -> Any:
        inner = self._inner
        order = inner.index_order if key_first else inner.time_order

        def keep(binary: bytes) -> bool:
            key_bytes, start, _ = split_window_key(binary)
            if start < time_from or start > time_to:
                return False
            return (lower is None or key_bytes >= lower) and (upper is None or key_bytes <= upper)

        live = inner.live_from(time_from)
        stored = [(b, v) for b, v in inner.stored_entries(live, time_to)
                  if split_window_key(b)[1] >= live]
        rows = []
        for binary, value in self._overlay(stored, time_from, time_to, keep):
            if keep(binary):
                key_bytes, start, seq = split_window_key(binary)
                rows.append((order(key_bytes, start, seq, binary), binary, value))
        rows.sort(key=lambda row: row[0], reverse=backward)
        return self._iterator([(b, v) for _, b, v in rows], inner.decode_windowed)

    def _iterator(self, pairs: list[tuple[bytes, bytes]], decode_key: Any) -> KeyValueIterator:
        inner = self._inner
        iterator = KeyValueIterator(iter(pairs), decode_key, inner.decode_value, inner.name)
        inner.register_iterator(iterator)
        return iterator

    # -- flushing ------------------------------------------------------------------------------

    def _flushed(self, entries: list[Any]) -> None:
        """Write flushed windows to the store, then forward them (Java's
        ``putAndMaybeForward``): skipped when neither the cache nor the store has a value."""
        inner, listener, send_old = self._inner, self._listener, self._send_old_values
        done: set[bytes] | None = set() if self._index else None
        for dirty in entries:
            if done is None:
                entry, binary, raw = dirty.entry, dirty.key[8:], dirty.new_value
            else:
                found = self._indexed_flush(dirty, done)
                if found is None:
                    continue
                entry, binary, raw = found
            key_bytes = binary[:-12]
            start = _TS.unpack_from(binary, len(binary) - 12)[0]
            old = None
            if listener is not None:
                if raw is None or send_old:
                    old = inner.fetch_serialized(key_bytes, start)
                if raw is None and old is None:
                    continue
            saved = self._enter(entry)
            try:
                inner.put_bytes(key_bytes, None if raw is None else self._encoded(raw), start)
                if listener is not None:  # (a copy of the cached object: kslab.state.fresh)
                    listener(self._windowed(key_bytes, start), fresh_value(self._object(entry)),
                             old if send_old else None, entry.record)
            finally:
                self._leave(saved)

    def _indexed_flush(self, dirty: Any, done: set[bytes]) -> tuple[Any, bytes, Any] | None:
        """``(entry, binary key, new value)`` to flush for a dirty entry of an indexed store, or
        ``None`` when its window is already flushed (Java's ``putAndMaybeForward``: an index
        entry flushes its window's cached value, or nothing once the window left the cache)."""
        binary = dirty.key[9:]
        if binary in done:
            return None
        done.add(binary)
        if dirty.key[8:9] == _BASE:
            return dirty.entry, binary, dirty.new_value
        base = self._named.get(dirty.key[:8] + _BASE + binary)
        if base is None:
            return None
        return base, binary, base.value

    def _windowed(self, key_bytes: bytes, start: int) -> Windowed:
        """The ``Windowed`` key of a flushed window; immutable keys are decoded once."""
        key = self._keys.get(key_bytes)
        if key is None:
            key = self._inner.decode_key(key_bytes)
            if key.__class__ in _IMMUTABLE:
                if len(self._keys) >= _KEY_MEMO:
                    self._keys.clear()
                self._keys[key_bytes] = key
        end = start + self._inner.window_size
        return Windowed(key, Window(start, end if end <= _MAX_TS else _MAX_TS))

    def _encoded(self, stored: bytes) -> tuple[bytes, bytes, int | None]:
        if self._timestamped:
            return stored, stored[8:], _TS.unpack_from(stored)[0]
        return stored, stored, None


class CachingSessionStore(CachingStore):
    """Java's ``CachingSessionStore`` over a session store. As Java's ``SegmentedCacheFunction``
    its cache keys are the session end's segment (the store's segment interval) and the binary
    session key, so one key's sessions lie in one sorted range per segment."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self._interval = max(1, getattr(inner, "segment_interval", 1))

    def _cache_key(self, binary: bytes, end: int) -> bytes:
        return _SEGMENT.pack(end // self._interval) + binary

    @property
    def store_kind(self) -> str:  # type: ignore[override]
        """The wrapped store's kind."""
        return self._inner.store_kind  # type: ignore[no-any-return]

    def held_writes(self, batch: Any, run: Any) -> Any:
        """Writes held for a batch run over ``batch`` (``kslab.processor.batch``): with the
        record cache off the wrapped store's; with it on, ``HeldCachedSessionWrites`` where
        the cache is this thread's and clean, forwards its flushes, and the engine commits
        after every record; else ``None``."""
        held = getattr(self._inner, "held_writes", None)
        if held is None:
            return None
        if self._cache is None:
            return held(batch, run)
        if not run.holds_cache(self._namespace) or not run.commit_each \
                or self._listener is None \
                or threading.get_ident() != self._thread \
                or not self._cache.is_clean(self._namespace):
            return None
        inner = held(batch, run)
        if inner is None:
            return None
        named = self._named
        return HeldCachedSessionWrites(self._cache, self._namespace, inner, batch, run,
                                       cache_key=self._cache_key, cached=self._held_cached,
                                       decode=self._object,
                                       size=0 if named is None else len(named),
                                       send_old_values=self._send_old_values)

    def _held_cached(self, key_bytes: bytes, first_end: int) -> list[tuple[bytes, Any]]:
        """The binary session keys and entries of ``key_bytes``' cached sessions from
        ``first_end``'s segment on (a batch run's reads, ``HeldCachedSessionWrites``)."""
        named = self._named
        if named is None or named.is_empty():
            return []
        found = []
        for cache_key in self._cached_keys(first_end, key_bytes):
            binary = cache_key[8:]
            if split_session_key(binary)[0] == key_bytes:
                found.append((binary, named.peek(cache_key)))
        return found

    # -- writes --------------------------------------------------------------------------------

    def put(self, session: Windowed, value: Any) -> None:
        """Cache ``value`` for the session; ``None`` removes it."""
        cache = self._cache
        if cache is None:
            self._inner.put(session, value)
            return
        inner = self._inner
        key_bytes, start, end = inner.session_key_parts(session)
        raw = None if value is None else inner.serialize_value(value)
        entry = self._dirty_entry(raw, value)
        entry.key_obj = session
        binary = session_key(key_bytes, start, end)
        cache.put(self._namespace, self._cache_key(binary, end), entry)

    def remove(self, session: Windowed) -> None:
        """Remove the session (a cached delete until flushed)."""
        self.put(session, None)

    # -- reads ---------------------------------------------------------------------------------

    def fetch_session(self, key: Any, session_start: int, session_end: int) -> Any:
        """The session's value, cached or stored."""
        require_key(key)
        cache = self._cache
        if cache is not None:
            binary = session_key(self._inner.serialize_key(key), session_start, session_end)
            entry = cache.get(self._namespace, self._cache_key(binary, session_end))
            if entry is not None:
                return self._object(entry)
        return self._inner.fetch_session(key, session_start, session_end)

    def find_sessions(self, key: Any, earliest_session_end_time: int,
                      latest_session_start_time: int | None = None, *args: Any) -> Any:
        """As the session store's ``find_sessions``, with cached writes laid over the store."""
        found = self._inner.find_sessions(key, earliest_session_end_time,
                                          latest_session_start_time, *args)
        if not self._has_dirty():
            return found
        if latest_session_start_time is None:  # find_sessions(earliest_end, latest_end)
            return self._merge(found, None, None, _MIN_TS, _MAX_TS, key,
                               earliest_session_end_time, backward=False)
        return self._merge(found, *_find_arguments(key, earliest_session_end_time,
                                                   latest_session_start_time, args),
                           None, None, backward=False)

    def backward_find_sessions(self, key: Any, earliest_session_end_time: int,
                               latest_session_start_time: int, *args: Any) -> Any:
        """As ``find_sessions``, newest first."""
        found = self._inner.backward_find_sessions(key, earliest_session_end_time,
                                                   latest_session_start_time, *args)
        if not self._has_dirty():
            return found
        return self._merge(found, *_find_arguments(key, earliest_session_end_time,
                                                   latest_session_start_time, args),
                           None, None, backward=True)

    def fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> Any:
        """Every session of ``key_from``, or of the keys in ``[key_from, key_to]`` (``None``:
        no bound on that side)."""
        found = self._inner.fetch(key_from, key_to)
        if not self._has_dirty():
            return found
        upper = key_from if key_to is SINGLE_KEY else key_to
        return self._merge(found, key_from, upper, _MIN_TS, _MAX_TS, None, None,
                           backward=False)

    def backward_fetch(self, key_from: Any, key_to: Any = SINGLE_KEY) -> Any:
        """As ``fetch``, newest first."""
        found = self._inner.backward_fetch(key_from, key_to)
        if not self._has_dirty():
            return found
        upper = key_from if key_to is SINGLE_KEY else key_to
        return self._merge(found, key_from, upper, _MIN_TS, _MAX_TS, None, None,
                           backward=True)

    def _merge(self, found: Any, key_from: Any, key_to: Any, earliest_end: int,
               latest_start: int, end_from: Any, end_to: Any, *, backward: bool) -> Any:
        """``found`` (a store scan) with the cached sessions in range laid over it, in
        (end, key, start) order (one key: the store's own order)."""
        inner = self._inner
        lower = None if key_from is None else inner.serialize_key(key_from)
        upper = None if key_to is None else inner.serialize_key(key_to)
        with found:
            merged = {session_key(inner.serialize_key(kv.key.key), kv.key.window.start,
                                  kv.key.window.end): (kv.key, kv.value) for kv in found}
        named = self._named
        first_end = max(earliest_end, end_from if end_from is not None else _MIN_TS)
        cache_keys = self._cached_keys(first_end, lower if lower == upper else None)
        for cache_key in cache_keys:
            binary = cache_key[8:]
            key_bytes, start, end = split_session_key(binary)
            if (lower is not None and key_bytes < lower) or \
                    (upper is not None and key_bytes > upper):
                continue
            if end_from is not None and not end_from <= end <= end_to:
                continue
            if end < earliest_end or start > latest_start:
                continue
            entry = named.peek(cache_key)
            if entry.value is None:
                merged.pop(binary, None)
            else:
                merged[binary] = (inner.decode_key(binary), self._object(entry))
        rows = sorted(merged.items(), key=lambda item: _session_order(item[0]),
                      reverse=backward)
        return _ListIterator([value for _, value in rows])

    def _cached_keys(self, first_end: int, key_bytes: bytes | None) -> list[bytes]:
        """The cache keys of the segments from ``first_end``'s on, ascending; with
        ``key_bytes``, only those starting with that key's bytes (the caller checks each
        one's key, end and start): one sorted range per segment up to the last cached one
        when they are few, else a filtered scan."""
        named = self._named
        lower_key = _SEGMENT.pack(first_end // self._interval) if first_end >= 0 else None
        if key_bytes is None:
            return named.key_range(lower_key, None)  # type: ignore[union-attr,no-any-return]
        last_key = named.last_key()  # type: ignore[union-attr]
        if last_key is None:
            return []
        first, last = first_end // self._interval, _SEGMENT.unpack_from(last_key)[0]
        if lower_key is None or not 0 <= last - first < _KEY_SEGMENTS:
            return _starting(named.key_range(lower_key, None), key_bytes, 8)  # type: ignore[union-attr]
        keys: list[bytes] = []
        for segment in range(first, last + 1):
            prefix = _SEGMENT.pack(segment) + key_bytes
            keys += named.key_range(prefix, prefix + _SESSION_SUFFIX)  # type: ignore[union-attr]
        return keys

    # -- flushing ------------------------------------------------------------------------------

    def _flushed(self, entries: list[Any]) -> None:
        """Write flushed sessions to the store, then forward them (old value from the store)."""
        inner, listener, send_old = self._inner, self._listener, self._send_old_values
        for dirty in entries:
            entry = dirty.entry
            binary = dirty.key[8:]
            session = entry.key_obj
            if session is None:
                session = inner.decode_key(binary)
            new = self._object(entry)
            old = None
            if listener is not None:
                if new is None or send_old:
                    old = inner.fetch_session(session.key, session.window.start,
                                              session.window.end)
                if new is None and old is None:
                    continue
            saved = self._enter(entry)
            try:
                inner.put(session, new)
                if listener is not None:  # (a copy of the cached object: kslab.state.fresh)
                    listener(session, fresh_value(new), old if send_old else None,
                             entry.record)
            finally:
                self._leave(saved)


def _starting(cache_keys: list[bytes], key_bytes: bytes, offset: int) -> list[bytes]:
    """The cache keys holding ``key_bytes`` at ``offset`` (a prefilter in C, no Python frame
    per key: the caller still checks each key's layout)."""
    return list(compress(cache_keys, map(methodcaller("startswith", key_bytes, offset),
                                         cache_keys)))


def _find_arguments(key: Any, second: Any, third: Any,
                    args: tuple[Any, ...]) -> tuple[Any, Any, Any, Any]:
    """``(key_from, key_to, earliest_end, latest_start)`` of ``find_sessions(key, earliest_end,
    latest_start)`` or of its key-range form ``find_sessions(key_from, key_to, earliest_end,
    latest_start)``."""
    if args:
        return key, second, third, args[0]
    return key, key, second, third


def _session_order(binary: bytes) -> tuple[int, bytes, int]:
    key_bytes, start, end = split_session_key(binary)
    return (end, key_bytes, start)


class _ListIterator:
    """A finished scan as an iterator of ``KeyValue``s (context manager, ``has_next``/``next``)."""

    def __init__(self, pairs: list[tuple[Any, Any]]) -> None:
        self._items = [KeyValue(k, v) for k, v in pairs]
        self._pos = 0

    def __iter__(self) -> _ListIterator:
        return self

    def __next__(self) -> Any:
        if self._pos >= len(self._items):
            raise StopIteration
        self._pos += 1
        return self._items[self._pos - 1]

    def has_next(self) -> bool:
        """True while items remain."""
        return self._pos < len(self._items)

    def next(self) -> Any:
        """The next item (Java's ``next()``)."""
        return self.__next__()

    def peek_next_key(self) -> Any:
        """The next item's key."""
        return self._items[self._pos].key

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> _ListIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
