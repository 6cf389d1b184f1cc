"""A batch run's writes through a record cache, replayed at once (``kslab.processor.batch``).

What ``CachingKeyValueStore.held_writes`` and ``CachingWindowStore.held_writes`` hand a
stateful batch form where the engine commits after every consumed record: the cache's
bookkeeping of the run's gets, puts and commit flushes worked out over the whole run, with
the wrapped store's held writes (``HeldTimestampedWrites``, ``HeldWindowWrites``) taking what
the flushes write. Invariant: after ``apply`` the cache (entries, LRU order,
counters, sizes), the store and its changelog are what the record path's calls leave.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice, repeat
from operator import lt
from typing import Any

from kslab.records import Record, ValueAndTimestamp
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size
from kslab.state.window import window_key

__all__ = ["HeldCachedWindowWrites", "HeldCachedWrites", "flush_order"]

_new_tuple = tuple.__new__
_UNREAD = object()  # a key the run has not met yet


def flush_order(origins: list[int], keys: list[bytes]) -> list[int]:
    """The indexes of the puts (``origins[i]``: the consumed record put ``i`` belongs to,
    ``keys[i]``: its cache key) that the commit after each consumed record flushes, in flush
    order: per record its dirty keys in the order of their last write (``NamedCache``'s dirty
    order), so all of them when no record writes a key twice."""
    if all(map(lt, origins, islice(origins, 1, None))):  # one put per consumed record
        return list(range(len(origins)))
    order: list[int] = []
    dirty: dict[bytes, int] = {}
    for index, key in enumerate(keys):
        if index and origins[index] != origins[index - 1]:
            order += dirty.values()
            dirty.clear()
        dirty.pop(key, None)
        dirty[key] = index
    order += dirty.values()
    return order


class HeldCachedWrites:
    """What a batch run writes through a ``CachingKeyValueStore``: the record cache's gets,
    puts and, where the engine commits after every consumed record (the test driver), each
    commit's flush, replayed at once. Where the engine commits on an interval (the live
    runtime: ``run.commit_each`` false) no flush falls inside the run, and the puts stay in
    the cache as dirty entries for the commit to flush (``_held_dirty``).

    Phase one: ``read`` finds each key's value (its cached entry, else the store's) without
    counting; ``update_all`` takes, per position, the record path's ``get`` then ``put`` of
    that record's key and works out what the cache counts for them; ``flushed`` works out each
    commit's flush: the keys a consumed record dirtied, in the order of their last write, each
    written once to the wrapped store's held writes (as the flush writes it) and forwarded
    ``(position of the last write, new, old)``; it returns those forwards, or ``None`` when a
    put of the run might have evicted (only the cache's own put knows what: the run then goes
    record by record). Phase two (``apply``) puts each touched key's final clean entry in the
    order of its last use, with the counters and sizes the gets, puts and flushes leave, and
    applies the wrapped store's held writes.
    """

    def __init__(self, cache: ThreadCache, namespace: str, inner: Any, batch: Any, run: Any,
                 *, decode: Callable[[LRUCacheEntry], Any], send_old_values: bool,
                 remember: Callable[[Any, bytes], None]) -> None:
        self._cache, self._namespace = cache, namespace
        self._inner, self._batch, self._run = inner, batch, run
        self._decode, self._send_old, self._remember = decode, send_old_values, remember
        self._before: dict[bytes, Any] = {}  # keys cached before the run: their entry, or
        # None for one read back from the store (``read``)
        self._stored: dict[bytes, Any] = {}  # what the store holds for each key read
        # positions, key bytes and ValueAndTimestamps of the updates
        self._updates: tuple[list[int], list[bytes], list[Any]] = ([], [], [])
        self._counts = (0, 0, 0, 0)  # gets, hits, puts, overwrites
        self._flushes: tuple[list[bytes], list[bytes], list[int]] = ([], [], [])
        self._widest_read = 0  # the longest stored value read back

    def key_bytes(self, positions: list[int]) -> list[bytes]:
        """The keys at ``positions`` as the store serializes them (``HeldTimestampedWrites``)."""
        return self._inner.key_bytes(positions)  # type: ignore[no-any-return]

    def read(self, distinct: list[bytes]) -> list[Any]:
        """Each of the ``distinct`` keys' value as the cached store's ``get`` finds it: the
        cached entry's, else the store's."""
        peek, namespace, decode = self._cache.peek, self._namespace, self._decode
        entries = [peek(namespace, key_bytes) for key_bytes in distinct]
        missed = [key_bytes for key_bytes, entry in zip(distinct, entries, strict=True)
                  if entry is None]
        stored = dict(zip(missed, self._inner.read(missed), strict=True))
        values: list[Any] = []
        for key_bytes, entry in zip(distinct, entries, strict=True):
            if entry is not None:
                self._before[key_bytes] = entry
                value = decode(entry)
            else:
                value = stored[key_bytes]
                if value is not None:  # read back into the cache as a clean entry
                    self._before[key_bytes] = None
                    width = len(self._inner.stored_bytes(key_bytes))
                    if width > self._widest_read:
                        self._widest_read = width
            self._stored[key_bytes] = value
            values.append(value)
        return values

    def update_all(self, positions: list[int], key_bytes: list[bytes], values: list[Any],
                   timestamps: list[int]) -> bool:
        """The cached store's ``get`` then ``put`` of the key at each position, in order, of
        keys ``read`` before; ``False`` (nothing held) when a value is ``None``: a delete."""
        if any(value is None for value in values):
            return False
        updates = list(map(_new_tuple, repeat(ValueAndTimestamp), zip(values, timestamps,
                                                                        strict=True)))
        self._updates = (positions, key_bytes, updates)
        before = self._before
        distinct = self._stored.keys()
        missed = sum(1 for key in distinct if before.get(key, _UNREAD) is _UNREAD
                     or before[key] is None)  # not cached when the run met them
        fresh = sum(1 for key in distinct if key not in before)  # in neither cache nor store
        loaded = missed - fresh
        n = len(positions)
        self._counts = (n, n - missed, n + loaded, n - fresh)
        return True

    def _flushed_puts(self) -> list[int]:
        """The indexes of the updates the commits' flushes write (``flush_order``)."""
        positions, keys, _ = self._updates
        origin = self._batch.origin
        return flush_order([origin[position] for position in positions], keys)

    def flushed(self) -> list[tuple[int, Any, Any]] | None:
        """What the run's commits forward, in order; ``None`` when a put might have evicted."""
        if not self._run.commit_each:
            return self._held_dirty()
        positions, all_keys, updates = self._updates
        flushed = self._flushed_puts()
        keys = list(map(all_keys.__getitem__, flushed))
        news = list(map(updates.__getitem__, flushed))
        timestamps = [held[1] for held in news]
        encoded = self._inner.encode_all([held[0] for held in news], timestamps)
        if encoded is None:
            return None
        raws, stored = encoded
        if not self._fits(stored):
            return None
        where = list(map(positions.__getitem__, flushed))
        self._inner.write_columns(keys, raws, stored, timestamps, where)
        self._flushes = (keys, stored, where)
        if not self._send_old:
            return list(zip(where, news, repeat(None)))
        forwards: list[tuple[int, Any, Any]] = []
        current = dict(self._stored)  # what the store holds as of each flush
        for position, key_bytes, new in zip(where, keys, news, strict=True):
            forwards.append((position, new, current[key_bytes]))
            current[key_bytes] = new
        return forwards

    def _fits(self, stored: list[bytes]) -> bool:
        """True when no put of the run can evict: every key it touched, at the widest value
        it read or wrote (``stored``), fits in what the cache has left."""
        headers = self._run.headers(self._batch)
        widest = max(self._widest_read, max(map(len, stored), default=0))
        widest = NODE_OVERHEAD + entry_size(widest, self._run.topic,
                                            max(map(headers_size, headers)) if any(headers)
                                            else 0)
        return self._run.reserve(self._cache, sum(len(key) + widest for key in self._stored))

    def _held_dirty(self) -> list[tuple[int, Any, Any]] | None:
        """``flushed`` for an engine that commits on an interval (the live runtime): no
        commit falls inside the run, so every put stays in the cache as a dirty entry and
        nothing is forwarded or written to the store (the commit's flush does that, on the
        record path). Every put is serialized, as the cache's ``put`` does (a value the serde
        refuses raises here); ``None`` when a put might have evicted."""
        _, all_keys, updates = self._updates
        encoded = self._inner.encode_all([held[0] for held in updates],
                                         [held[1] for held in updates])
        if encoded is None:
            return None
        stored = encoded[1]
        if not self._fits(stored):
            return None
        last = dict(zip(all_keys, range(len(all_keys)), strict=True))  # each key's last put
        self._flushes = (list(last), [stored[index] for index in last.values()], [])
        return []

    def apply(self) -> None:
        """Leave the record cache, the store and its changelog as the record path would."""
        batch, run = self._batch, self._run
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        positions, all_keys, updates = self._updates
        keys, stored, _ = self._flushes
        dirty = not run.commit_each  # no flush in the run: the entries are still dirty
        final_stored = dict(zip(keys, stored, strict=True))
        last = dict(zip(all_keys, range(len(positions)), strict=True))  # each key's last update
        finals: list[tuple[bytes, LRUCacheEntry]] = []
        for key_bytes, index in sorted(last.items(), key=lambda item: item[1]):
            position = positions[index]
            topic, partition, offset = run.source(batch.origin[position])
            header = headers[position]
            entry = LRUCacheEntry(final_stored[key_bytes], header if header else None, dirty,
                                  offset, timestamps[position], partition, topic)
            entry.obj = updates[index]
            entry.key_obj = key = batch.keys[position]
            entry.record = Record(key, batch.values[position], timestamps[position], header)
            finals.append((key_bytes, entry))
        gets, hits, puts, overwrites = self._counts
        self._cache.replay(self._namespace, finals, gets=gets, hits=hits, puts=puts,
                           overwrites=overwrites,
                           written=[key for key, _ in finals] if dirty else None)
        self._inner.apply()
        if positions:  # the store remembers the last key it serialized
            self._remember(batch.keys[positions[-1]], all_keys[-1])


class HeldCachedWindowWrites:
    """What a batch run writes through a ``CachingWindowStore`` (no key-first index) when the
    engine commits after every consumed record: each fetch and put of a window as the cached
    store's, and each commit's flush (the windows a consumed record dirtied, in the order of
    their last write) written to the wrapped store's ``HeldWindowWrites`` in that order (so
    its expiry follows) and forwarded ``(position, window start, new, old)``. A miss reads the
    store (windows are not read back into the cache); the flushes are worked out at
    ``flushed``, after the run's reads, which is exact because a window the aggregation reads
    is open, so no flush of the run can have expired it in the store. ``flushed`` returns the
    forwards, or ``None`` when a put might have evicted; ``apply`` leaves the cache's entries,
    LRU order, counters and sizes as the record path would, then applies the store's writes.
    """

    def __init__(self, cache: ThreadCache, namespace: str, inner: Any, batch: Any, run: Any,
                 *, cache_key: Callable[[bytes, int], bytes],
                 decode: Callable[[LRUCacheEntry], Any], send_old_values: bool) -> None:
        self._cache, self._namespace = cache, namespace
        self._inner, self._batch, self._run = inner, batch, run
        self._cache_key, self._decode, self._send_old = cache_key, decode, send_old_values
        self._values: dict[bytes, tuple[Any, int]] = {}  # cached windows touched: their value
        self._before: dict[bytes, LRUCacheEntry] = {}  # ... and their entry before the run
        self._seen: set[bytes] = set()  # cache keys looked up before
        self._last_use: dict[bytes, int] = {}  # cache key -> when the run last used it
        self._last_write: dict[bytes, int] = {}  # cache key -> index of its last store write
        # the puts, in order: cache key, key bytes, window start, position, (value, timestamp)
        self._puts: list[tuple[bytes, bytes, int, int, tuple[Any, int]]] = []
        self._written: list[tuple[bytes, int]] = []  # each store write: cache key, position
        self._gets = self._hits = self._overwrites = 0
        self._last: tuple[bytes, int, bytes] | None = None  # the last window looked up
        self._dirty: list[bytes] | None = None  # each put's stored bytes, when the run has
        # no commit in it (``_held_dirty``)

    def key_bytes(self, positions: list[int]) -> list[bytes]:
        """The keys at ``positions`` as the store serializes them (``HeldWindowWrites``)."""
        return self._inner.key_bytes(positions)  # type: ignore[no-any-return]

    def _key(self, key_bytes: bytes, start: int) -> bytes:
        """The window's cache key (the last one asked again: a fetch, then its put)."""
        last = self._last
        if last is not None and last[1] == start and last[0] == key_bytes:
            return last[2]
        cache_key = self._cache_key(window_key(key_bytes, start), start)
        self._last = (key_bytes, start, cache_key)
        return cache_key

    def _cached(self, cache_key: bytes) -> bool:
        """True when the cache holds the window now (looked up once, without counting)."""
        if cache_key in self._values:
            return True
        if cache_key in self._seen:
            return False
        self._seen.add(cache_key)
        entry = self._cache.peek(self._namespace, cache_key)
        if entry is None:
            return False
        self._before[cache_key] = entry
        value = self._decode(entry)
        self._values[cache_key] = (value[0], value[1])
        return True

    def fetch(self, key_bytes: bytes, start: int, position: int) -> tuple[Any, int] | None:
        """The cached store's ``fetch_pair`` of the window at ``position``."""
        self._gets += 1
        cache_key = self._key(key_bytes, start)
        if self._cached(cache_key):
            self._hits += 1
            self._last_use[cache_key] = self._gets + len(self._puts)  # (an access count: a
            return self._values[cache_key]  # record may touch several windows)
        return self._inner.fetch(key_bytes, start)  # type: ignore[no-any-return]

    def put(self, key_bytes: bytes, start: int, value: Any, timestamp: int,
            position: int) -> bool:
        """The cached store's ``put_pair``; ``False`` (nothing held) for a delete."""
        if value is None:
            return False
        cache_key = self._key(key_bytes, start)
        if self._cached(cache_key):
            self._overwrites += 1
        held = self._values[cache_key] = (value, timestamp)
        self._puts.append((cache_key, key_bytes, start, position, held))
        self._last_use[cache_key] = self._gets + len(self._puts)
        return True

    def _flush_order(self) -> list[int]:
        """The indexes of the puts the commits' flushes write (``flush_order``)."""
        origin, puts = self._batch.origin, self._puts
        return flush_order([origin[put[3]] for put in puts], [put[0] for put in puts])

    def _fits(self, widths: list[int], keys: Any) -> bool:
        """True when no put of the run can evict: each of ``keys`` at the widest stored
        value (``widths``) fits in what the cache has left."""
        headers = self._run.headers(self._batch)
        widest = NODE_OVERHEAD + entry_size(max(widths, default=0), self._run.topic,
                                            max(map(headers_size, headers)) if any(headers)
                                            else 0)
        return self._run.reserve(self._cache, sum(len(key) + widest for key in keys))

    def _held_dirty(self) -> list[tuple[int, int, Any, Any]] | None:
        """``flushed`` for an engine that commits on an interval (the live runtime): no
        commit falls inside the run, so every put stays in the cache as a dirty entry and
        nothing is forwarded or written to the store (the commit's flush does that, on the
        record path; the store, unwritten, expires nothing in between). Every put is
        serialized, as the cache's ``put`` does; ``None`` when a put might have evicted."""
        stored = self._inner.encode_stored([put[4] for put in self._puts])
        if stored is None:
            return None
        if not self._fits(list(map(len, stored)), {put[0] for put in self._puts}):
            return None
        self._dirty = stored
        return []

    def flushed(self) -> list[tuple[int, int, Any, Any]] | None:
        """What the run's commits forward, in order; ``None`` when a put might have evicted."""
        if not self._run.commit_each:
            return self._held_dirty()
        inner, send_old, puts = self._inner, self._send_old, self._puts
        forwards: list[tuple[int, int, Any, Any]] = []
        for index in self._flush_order():
            cache_key, key_bytes, start, position, new = puts[index]
            old = inner.fetch(key_bytes, start) if send_old else None
            inner.put(key_bytes, start, new[0], new[1], position)
            self._last_write[cache_key] = len(self._written)
            self._written.append((cache_key, position))
            forwards.append((position, start, new, old))
        if inner.flushed() is None:
            return None
        if not self._fits(inner.stored_widths(), self._last_write):
            return None
        return forwards

    def apply(self) -> None:
        """Leave the record cache, the store and its changelog as the record path would."""
        if self._dirty is not None:
            self._apply_dirty(self._dirty)
            return
        batch, run = self._batch, self._run
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        stored = self._inner.stored_values()
        finals: list[tuple[bytes, LRUCacheEntry]] = []
        for cache_key in sorted(self._last_use, key=self._last_use.__getitem__):
            index = self._last_write.get(cache_key)
            if index is None:  # only read: the entry it found
                finals.append((cache_key, self._before[cache_key]))
                continue
            position = self._written[index][1]
            topic, partition, offset = run.source(batch.origin[position])
            header = headers[position]
            entry = LRUCacheEntry(stored[index], header if header else None, False, offset,
                                  timestamps[position], partition, topic)
            entry.obj = _new_tuple(ValueAndTimestamp, self._values[cache_key])
            entry.record = Record(batch.keys[position], batch.values[position],
                                  timestamps[position], header)
            finals.append((cache_key, entry))
        self._cache.replay(self._namespace, finals, gets=self._gets, hits=self._hits,
                           puts=len(self._puts), overwrites=self._overwrites)
        self._inner.apply()

    def _apply_dirty(self, stored: list[bytes]) -> None:
        """``apply`` of a run with no commit in it: each window put last holds its last put
        as a dirty entry (dirty in the order of their last put), each one only read keeps
        its entry, all in the order of their last use; the store is not written."""
        batch, run = self._batch, self._run
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        puts = self._puts
        last_put = {put[0]: index for index, put in enumerate(puts)}
        finals: list[tuple[bytes, LRUCacheEntry]] = []
        for cache_key in sorted(self._last_use, key=self._last_use.__getitem__):
            index = last_put.get(cache_key)
            if index is None:  # only read: the entry it found
                finals.append((cache_key, self._before[cache_key]))
                continue
            position = puts[index][3]
            topic, partition, offset = run.source(batch.origin[position])
            header = headers[position]
            entry = LRUCacheEntry(stored[index], header if header else None, True, offset,
                                  timestamps[position], partition, topic)
            entry.obj = _new_tuple(ValueAndTimestamp, puts[index][4])
            entry.record = Record(batch.keys[position], batch.values[position],
                                  timestamps[position], header)
            finals.append((cache_key, entry))
        self._cache.replay(self._namespace, finals, gets=self._gets, hits=self._hits,
                           puts=len(puts), overwrites=self._overwrites,
                           written=sorted(last_put, key=last_put.__getitem__))
