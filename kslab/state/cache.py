"""The record cache in front of cached stores: Java's ``ThreadCache`` of ``NamedCache``s.

One ``ThreadCache`` is shared by every cached store of a stream thread (of one test driver, one
runtime thread, one Spark task), bounded by ``statestore.cache.max.bytes`` split over the
threads. Each store owns one ``NamedCache`` (namespace ``<task id>-<store name>``) holding its
entries in LRU order. Invariant (Java's accounting): the thread cache's ``size_bytes()`` is the
sum over its named caches of ``len(key) + 24 + entry.size()`` per entry; after a put, entries of
the written namespace are evicted from the least recently used end until the total fits, and
evicting a dirty entry flushes every dirty entry of that namespace to its listener. A named
cache's dirty entries are its pending writes (``kslab.state.pending.PendingWrites``, in the
order of their last write); the LRU order, eviction and sizes are the cache's own.

Over 600 lines because ``ThreadCache`` and ``NamedCache`` are Java's two classes of one cache:
the thread's budget and eviction work on each named cache's LRU list.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from sortedcontainers import SortedList

from kslab.errors import NoSuchElementError, StoreError
from kslab.records import KeyValue
from kslab.state.pending import PendingWrites

__all__ = [
    "DEFAULT_CACHE_MAX_BYTES",
    "NODE_OVERHEAD",
    "CacheIterator",
    "DirtyEntry",
    "LRUCacheEntry",
    "NamedCache",
    "ThreadCache",
    "entry_size",
    "headers_size",
    "node_size",
    "resize_thread_cache",
    "thread_cache_for",
    "total_cache_size",
]

DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024
NODE_OVERHEAD = 8 + 8 + 8  # the LRU node's entry, previous and next references


def total_cache_size(configs: dict[str, Any]) -> int:
    """Java's ``StreamsConfigUtils.totalCacheSize``: the new key wins over the deprecated one."""
    size = configs.get("statestore.cache.max.bytes")
    if size is None:
        size = configs.get("cache.max.bytes.buffering")  # deprecated alias, still read in 4.0
    return max(0, int(DEFAULT_CACHE_MAX_BYTES if size is None else size))


def headers_size(headers: Any) -> int:
    """Bytes a cached entry's headers count for: each key's characters and value's bytes."""
    size = 0
    if headers:
        for key, value in headers:
            size += len(key)
            if value is not None:
                size += len(value)
    return size


_new_entry = object.__new__


class LRUCacheEntry:
    """A cached value (bytes or ``None`` for a delete) with the record context of its write.

    ``obj`` and ``key_obj`` carry the typed value and key the bytes came from, so a cached
    store reads without deserializing; they take no part in the size.
    """

    __slots__ = ("headers", "is_dirty", "key_obj", "obj", "offset", "partition", "record",
                 "size", "timestamp", "topic", "value")

    def __init__(self, value: bytes | None, headers: Any = None, is_dirty: bool = False,
                 offset: int = -1, timestamp: int = -1, partition: int = -1,
                 topic: str | None = "") -> None:
        self.value = value
        self.headers = headers
        self.is_dirty = is_dirty
        self.offset = offset
        self.timestamp = timestamp
        self.partition = partition
        self.topic = topic
        self.obj: Any = None
        self.key_obj: Any = None
        self.record: Any = None  # the processor's Record at write time (flushes restore it)
        self.size = 21 + (0 if value is None else len(value)) + (len(topic) if topic else 0) \
            + (headers_size(headers) if headers else 0)  # entry_size, inlined (hot)

    @classmethod
    def clean(cls, value: bytes, headers: Any, offset: int, timestamp: int, partition: int,
              topic: str, obj: Any, key_obj: Any, record: Any) -> LRUCacheEntry:
        """A clean entry with its typed value, key and record context set in one call (a
        batch run's final entries, ``ThreadCache.replay``): what ``LRUCacheEntry(...)`` then
        setting them builds."""
        entry = _new_entry(cls)
        entry.value, entry.headers, entry.is_dirty = value, headers, False
        entry.offset, entry.timestamp, entry.partition, entry.topic = (offset, timestamp,
                                                                       partition, topic)
        entry.obj, entry.key_obj, entry.record = obj, key_obj, record
        entry.size = 21 + len(value) + (len(topic) if topic else 0) \
            + (headers_size(headers) if headers else 0)
        return entry

    @classmethod
    def dirty(cls, value: bytes, headers: Any, offset: int, timestamp: int, partition: int,
              topic: str, obj: Any, key_obj: Any, record: Any) -> LRUCacheEntry:
        """``clean``, but dirty: a put not flushed yet (a batch run with no commit in it)."""
        entry = cls.clean(value, headers, offset, timestamp, partition, topic, obj, key_obj,
                          record)
        entry.is_dirty = True
        return entry

    def mark_clean(self) -> None:
        """Flushed: the underlying store now holds this value."""
        self.is_dirty = False

    def __repr__(self) -> str:
        return f"LRUCacheEntry(value={self.value!r}, dirty={self.is_dirty})"


def entry_size(value_length: int, topic: str | None, header_bytes: int) -> int:
    """Bytes an entry counts for: 1 (dirty flag) + value + timestamp, offset, partition +
    topic characters + headers (``headers_size``), as Java's ``LRUCacheEntry.size``."""
    return 1 + value_length + 8 + 8 + 4 + (len(topic) if topic else 0) + header_bytes


def node_size(key: bytes, entry: LRUCacheEntry) -> int:
    """Bytes one cached entry counts for: key, node references, entry (Java's ``LRUNode``)."""
    return len(key) + NODE_OVERHEAD + entry.size


class DirtyEntry:
    """A flushed entry: its key, new value bytes and the entry (for the record context)."""

    __slots__ = ("entry", "key", "new_value")

    def __init__(self, key: bytes, new_value: bytes | None, entry: LRUCacheEntry) -> None:
        self.key = key
        self.new_value = new_value
        self.entry = entry

    def __repr__(self) -> str:
        return f"DirtyEntry(key={self.key!r}, new_value={self.new_value!r})"


Listener = Callable[[list[DirtyEntry]], None]


class NamedCache:
    """One store's cache: entries by key in LRU order, plus the dirty ones as pending writes
    (key -> its dirty entry, in the order of their last write: ``PendingWrites.hold_last``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._entries: OrderedDict[bytes, LRUCacheEntry] = OrderedDict()  # eldest first
        self._sorted: SortedList | None = None  # the keys in order, built when a scan asks
        self._dirty: PendingWrites[bytes, LRUCacheEntry] = PendingWrites()
        self.listener: Listener | None = None
        self.current_size_bytes = 0
        self.hits = self.misses = self.overwrites = self.flushes = 0

    def peek(self, key: bytes) -> LRUCacheEntry:
        """The entry of ``key``, which must be cached, leaving the LRU order and the hit and
        miss counters as they are (a scan merging cached writes reads them so)."""
        return self._entries[key]

    def get(self, key: bytes | None) -> LRUCacheEntry | None:
        """The entry for ``key`` (now the most recently used), or ``None``."""
        if key is None:
            return None
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(key)
        return entry

    def put(self, key: bytes, entry: LRUCacheEntry) -> None:
        """Insert or replace ``key``'s entry as the most recently used one."""
        if not entry.is_dirty and key in self._dirty:
            msg = (f"Attempting to put a clean entry for key [{key!r}] into NamedCache "
                   f"[{self.name}] when it already contains a dirty entry for the same key")
            raise StoreError(msg)
        entries = self._entries
        old = entries.get(key)
        if old is not None:
            self.overwrites += 1
            self.current_size_bytes -= len(key) + NODE_OVERHEAD + old.size
            entries.move_to_end(key)
        elif self._sorted is not None:
            self._sorted.add(key)
        entries[key] = entry
        if entry.is_dirty:
            self._dirty.hold_last(key, entry)
        self.current_size_bytes += len(key) + NODE_OVERHEAD + entry.size

    def install(self, finals: list[tuple[bytes, LRUCacheEntry]]) -> tuple[int, int]:
        """Each ``(key, entry)`` replaces the key's entry as the most recently used one, in
        order, counting nothing (a batch run's final entries, see ``ThreadCache.replay``);
        how many bytes the cache grew by, and how many keys are new to it. A dirty key keeps
        its place in the dirty order, now with its new entry (a flush hands over the entry the
        key has then)."""
        entries, sorted_keys, dirty = self._entries, self._sorted, self._dirty
        grown = new = 0
        for key, entry in finals:
            old = entries.get(key)
            grown += len(key) + NODE_OVERHEAD + entry.size  # node_size, inlined (hot)
            if old is None:
                new += 1
                if sorted_keys is not None:
                    sorted_keys.add(key)
            else:
                grown -= len(key) + NODE_OVERHEAD + old.size
                entries.move_to_end(key)
                if dirty and key in dirty:
                    dirty[key] = entry
            entries[key] = entry
        self.current_size_bytes += grown
        return grown, new

    def put_if_absent(self, key: bytes, entry: LRUCacheEntry) -> LRUCacheEntry | None:
        """Put only if ``key`` has no entry; return the entry that was there."""
        original = self.get(key)
        if original is None:
            self.put(key, entry)
        return original

    def put_all(self, entries: Iterable[tuple[bytes, LRUCacheEntry]]) -> None:
        """Put each ``(key, entry)`` in order."""
        for key, entry in entries:
            self.put(key, entry)

    def delete(self, key: bytes) -> LRUCacheEntry | None:
        """Drop ``key`` without flushing it; return its entry."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return None
        if self._sorted is not None:
            self._sorted.remove(key)
        self._dirty.pop(key, None)
        self.current_size_bytes -= node_size(key, entry)
        return entry

    def evict(self) -> None:
        """Drop the least recently used entry; if it was dirty, flush the namespace first."""
        if not self._entries:
            return
        key, entry = self._entries.popitem(last=False)
        if self._sorted is not None:
            self._sorted.remove(key)
        self.current_size_bytes -= node_size(key, entry)
        if entry.is_dirty:
            self._flush(key, entry)

    def flush(self) -> None:
        """Hand every dirty entry, in write order, to the listener; deletes leave the cache."""
        self._flush(None, None)

    def _flush(self, evicted_key: bytes | None, evicted: LRUCacheEntry | None) -> None:
        self.flushes += 1
        if self.listener is None:
            msg = f"No listener for namespace {self.name} registered with cache"
            raise StoreError(msg)
        dirty = self._dirty
        if not dirty:
            return
        entries: list[DirtyEntry] = []
        deleted: list[bytes] = []
        if evicted is not None and evicted_key is not None:
            entries.append(DirtyEntry(evicted_key, evicted.value, evicted))
            dirty.pop(evicted_key, None)
        for key, entry in dirty.drain():  # (each one the key's entry: put and install say so)
            entries.append(DirtyEntry(key, entry.value, entry))
            entry.mark_clean()
            if entry.value is None:
                deleted.append(key)
        self.listener(entries)
        for key in deleted:
            self.delete(key)

    def key_range(self, from_key: bytes | None, to_key: bytes | None,
                  to_inclusive: bool = True) -> list[bytes]:
        """Cached keys in ``[from_key, to_key]`` (or ``to_key`` excluded), ascending."""
        if from_key is not None and to_key is not None and from_key > to_key:
            return []
        if self._sorted is None:
            self._sorted = SortedList(self._entries)
        return list(self._sorted.irange(from_key, to_key, (True, to_inclusive)))

    def last_key(self) -> bytes | None:
        """The greatest cached key, or ``None`` when the cache is empty."""
        if not self._entries:
            return None
        if self._sorted is None:
            self._sorted = SortedList(self._entries)
        return self._sorted[-1]  # type: ignore[no-any-return]

    def reverse_key_range(self, from_key: bytes | None, to_key: bytes | None) -> list[bytes]:
        """Cached keys in ``[from_key, to_key]``, descending."""
        return self.key_range(from_key, to_key)[::-1]

    def dirty_keys(self) -> list[bytes]:
        """The dirty keys in write order."""
        return list(self._dirty)

    def first(self) -> LRUCacheEntry | None:
        """The most recently used entry (Java's head)."""
        return next(reversed(self._entries.values()), None)

    def last(self) -> LRUCacheEntry | None:
        """The least recently used entry, next to be evicted (Java's tail)."""
        return next(iter(self._entries.values()), None)

    def lru_keys(self) -> list[bytes]:
        """Every cached key from least to most recently used."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def size(self) -> int:
        """The number of cached entries."""
        return len(self._entries)

    def is_empty(self) -> bool:
        """True when nothing is cached."""
        return not self._entries

    def clear(self) -> None:
        """Drop everything (dirty entries too) without flushing."""
        self._entries.clear()
        self._sorted = None
        self._dirty.drop()
        self.current_size_bytes = 0

    def close(self) -> None:
        """Clear and forget the listener."""
        self.clear()
        self.listener = None


def _exhausted() -> Any:
    msg = "cache iterator has no more entries; check has_next()"
    raise NoSuchElementError(msg)


class CacheIterator:
    """A scan of one named cache (Java's ``MemoryLRUCacheBytesIterator``): the keys are taken
    when it is created, each entry is read (a cache hit, now most recently used) when reached,
    and keys evicted meanwhile are skipped. Yields ``KeyValue(key, entry)``."""

    __slots__ = ("_cache", "_keys", "_next")

    def __init__(self, cache: NamedCache | None, keys: list[bytes]) -> None:
        self._cache = cache
        self._keys = iter(keys)
        self._next: KeyValue | None = None

    def __iter__(self) -> CacheIterator:
        return self

    def __next__(self) -> KeyValue:
        if not self.has_next():
            raise StopIteration
        result, self._next = self._next, None
        return result  # type: ignore[return-value]

    def has_next(self) -> bool:
        """True when another cached entry follows."""
        cache = self._cache
        while self._next is None and cache is not None:
            key = next(self._keys, None)
            if key is None:
                return False
            entry = cache.get(key)
            if entry is not None:  # None: evicted since the keys were taken
                self._next = KeyValue(key, entry)
        return self._next is not None

    def next(self) -> KeyValue:
        """The next ``KeyValue(key, entry)``; ``NoSuchElementError`` at the end."""
        return self.__next__() if self.has_next() else _exhausted()

    def peek_next(self) -> KeyValue:
        """The pair ``next()`` would return, without moving; ``NoSuchElementError`` at the end."""
        return self._next if self.has_next() else _exhausted()  # type: ignore[return-value]

    def peek_next_key(self) -> bytes:
        """The key ``next()`` would return, without moving; ``NoSuchElementError`` at the end."""
        return self.peek_next().key

    def close(self) -> None:
        """Nothing to release (Java's does nothing either)."""

    def __enter__(self) -> CacheIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ThreadCache:
    """Java's ``ThreadCache``: named caches sharing one byte budget, evicted per namespace."""

    def __init__(self, max_cache_size_bytes: int) -> None:
        self.max_cache_size_bytes = max(0, int(max_cache_size_bytes))
        self._caches: dict[str, NamedCache] = {}
        self._size_bytes = 0
        self.puts = self.gets = self.evicts = self.flushes = 0

    @staticmethod
    def namespace(task_id: Any, store_name: str) -> str:
        """A store's cache name: ``<task id>-<store name>``."""
        return f"{task_id}-{store_name}"

    def size_bytes(self) -> int:
        """Bytes in use over every named cache."""
        return self._size_bytes

    def size(self) -> int:
        """Entries over every named cache."""
        return sum(len(c) for c in self._caches.values())

    def named_cache(self, namespace: str) -> NamedCache | None:
        """The named cache of ``namespace``, if it exists."""
        return self._caches.get(namespace)

    def _cache(self, namespace: str) -> NamedCache:
        cache = self._caches.get(namespace)
        if cache is None:
            cache = self._caches[namespace] = NamedCache(namespace)
        return cache

    def add_dirty_entry_flush_listener(self, namespace: str, listener: Listener) -> None:
        """Call ``listener(dirty entries)`` on each flush and dirty eviction of ``namespace``."""
        self._cache(namespace).listener = listener

    def get(self, namespace: str, key: bytes | None) -> LRUCacheEntry | None:
        """The entry of ``key`` in ``namespace``, or ``None``."""
        self.gets += 1
        cache = self._caches.get(namespace)
        if key is None or cache is None:
            return None
        return cache.get(key)

    def put(self, namespace: str, key: bytes, entry: LRUCacheEntry) -> None:
        """Cache ``entry`` for ``key``; evict from this namespace while over budget."""
        self.puts += 1
        cache = self._caches.get(namespace)
        if cache is None:
            cache = self._cache(namespace)
        old = cache.current_size_bytes
        cache.put(key, entry)
        self._size_bytes += cache.current_size_bytes - old
        if self._size_bytes > self.max_cache_size_bytes:
            self._maybe_evict(cache)

    def peek(self, namespace: str, key: bytes) -> LRUCacheEntry | None:
        """The entry of ``key`` in ``namespace`` without counting a get or moving it."""
        cache = self._caches.get(namespace)
        return None if cache is None else cache._entries.get(key)

    def peek_all(self, namespace: str, keys: list[bytes]) -> list[LRUCacheEntry | None]:
        """``peek`` of each of ``keys`` (looked up in C)."""
        cache = self._caches.get(namespace)
        return [None] * len(keys) if cache is None else list(map(cache._entries.get, keys))

    def is_clean(self, namespace: str) -> bool:
        """True when ``namespace`` has a listener and nothing dirty (a flush is a no-op)."""
        cache = self._caches.get(namespace)
        return cache is not None and not cache._dirty and cache.listener is not None

    def replay(self, namespace: str, finals: list[tuple[bytes, LRUCacheEntry]], *,
               gets: int, hits: int, puts: int, overwrites: int,
               written: list[bytes] | None = None) -> None:
        """Leave ``namespace`` as a run of gets, puts and flushes left it when none of them
        evicted (the caller checked ``fits``): each ``finals`` entry replaces its key's,
        moved to the most recently used end in the order given (the keys' last use), and the
        counters grow by what is given (the flushes are counted by the commits,
        ``count_noop_flushes``). ``written``: a run with no flush in it (the engine commits on
        an interval) wrote these keys' dirty entries, in the order of their last write, which
        becomes their place in the dirty order; ``None``: the last flush left nothing dirty.
        A batch run's record cache (``kslab.state.held_cache``)."""
        cache = self._caches[namespace]
        grown, _ = cache.install(finals)
        if written:
            hold_last, entries = cache._dirty.hold_last, cache._entries
            for key in written:
                hold_last(key, entries[key])
        self.gets += gets
        self.puts += puts
        cache.hits += hits
        cache.misses += gets - hits
        cache.overwrites += overwrites
        self._size_bytes += grown

    def fits(self, growth: int) -> bool:
        """True when ``growth`` more bytes stay within the budget: no put would evict."""
        return self._size_bytes + growth <= self.max_cache_size_bytes

    def eldest(self, namespace: str) -> Iterable[tuple[bytes, LRUCacheEntry]]:
        """``(key, entry)`` of ``namespace`` from the least to the most recently used, as
        they stand (not to be iterated across a change of the cache)."""
        cache = self._caches.get(namespace)
        return () if cache is None else cache._entries.items()

    def drop_evicted(self, namespace: str, keys: Iterable[bytes], evictions: int) -> None:
        """Drop ``keys`` of ``namespace`` (each clean, or absent) and count ``evictions``:
        what a batch run's puts evicted on the record path (``kslab.state.held_evictions``)."""
        cache = self._caches[namespace]
        for key in keys:
            old = cache.current_size_bytes
            cache.delete(key)
            self._size_bytes += cache.current_size_bytes - old
        self.evicts += evictions

    def put_if_absent(self, namespace: str, key: bytes,
                      entry: LRUCacheEntry) -> LRUCacheEntry | None:
        """Put only if absent; return the entry that was there."""
        cache = self._cache(namespace)
        old = cache.current_size_bytes
        result = cache.put_if_absent(key, entry)
        self._size_bytes += cache.current_size_bytes - old
        self._maybe_evict(cache)
        if result is None:
            self.puts += 1
        return result

    def put_all(self, namespace: str, entries: Iterable[tuple[bytes, LRUCacheEntry]]) -> None:
        """``put`` each ``(key, entry)`` in order."""
        for key, entry in entries:
            self.put(namespace, key, entry)

    def delete(self, namespace: str, key: bytes) -> LRUCacheEntry | None:
        """Drop ``key`` from ``namespace`` without flushing; return its entry."""
        cache = self._caches.get(namespace)
        if cache is None:
            return None
        old = cache.current_size_bytes
        entry = cache.delete(key)
        self._size_bytes += cache.current_size_bytes - old
        return entry

    def flush_is_noop(self, namespace: str) -> bool:
        """True when ``flush(namespace)`` would only count itself (nothing dirty there)."""
        cache = self._caches.get(namespace)
        return cache is None or (not cache._dirty and cache.listener is not None)

    def count_noop_flushes(self, namespace: str, times: int) -> None:
        """``flush(namespace)`` ``times`` times while ``flush_is_noop``: the counters only."""
        self.flushes += times
        cache = self._caches.get(namespace)
        if cache is not None:
            cache.flushes += times

    def flush(self, namespace: str) -> None:
        """Flush the dirty entries of ``namespace`` to its listener."""
        self.flushes += 1
        cache = self._caches.get(namespace)
        if cache is None:
            return
        if not cache._dirty and cache.listener is not None:  # nothing to hand over
            cache.flushes += 1
            return
        old = cache.current_size_bytes
        cache.flush()
        self._size_bytes += cache.current_size_bytes - old

    def range(self, namespace: str, from_key: bytes | None, to_key: bytes | None,
              to_inclusive: bool = True) -> CacheIterator:
        """``(key, entry)`` ascending over ``[from_key, to_key]``; evicted keys are skipped."""
        cache = self._caches.get(namespace)
        keys = [] if cache is None else cache.key_range(from_key, to_key, to_inclusive)
        return CacheIterator(cache, keys)

    def reverse_range(self, namespace: str, from_key: bytes | None,
                      to_key: bytes | None) -> CacheIterator:
        """``(key, entry)`` descending over ``[from_key, to_key]``."""
        cache = self._caches.get(namespace)
        keys = [] if cache is None else cache.reverse_key_range(from_key, to_key)
        return CacheIterator(cache, keys)

    def all(self, namespace: str) -> CacheIterator:
        """Every ``(key, entry)`` of ``namespace``, ascending."""
        return self.range(namespace, None, None)

    def reverse_all(self, namespace: str) -> CacheIterator:
        """Every ``(key, entry)`` of ``namespace``, descending."""
        return self.reverse_range(namespace, None, None)

    def resize(self, new_size_bytes: int) -> None:
        """Change the budget; shrinking evicts round-robin over the named caches."""
        shrink = new_size_bytes < self.max_cache_size_bytes
        self.max_cache_size_bytes = new_size_bytes
        if not shrink or not self._caches:
            return
        while self._size_bytes > self.max_cache_size_bytes:
            progressed = False
            for cache in list(self._caches.values()):
                if self._size_bytes <= self.max_cache_size_bytes:
                    break
                if cache.is_empty():
                    continue
                old = cache.current_size_bytes
                cache.evict()
                self._size_bytes += cache.current_size_bytes - old
                self.evicts += 1
                progressed = True
            if not progressed:
                break

    def close(self, namespace: str) -> None:
        """Drop ``namespace`` and its entries (its store closed)."""
        cache = self._caches.pop(namespace, None)
        if cache is not None:
            self._size_bytes -= cache.current_size_bytes
            cache.close()

    def clear(self, namespace: str) -> None:
        """Drop every entry of ``namespace`` without flushing."""
        cache = self._caches.get(namespace)
        if cache is not None:
            self._size_bytes -= cache.current_size_bytes
            cache.clear()

    def _maybe_evict(self, cache: NamedCache) -> None:
        while self._size_bytes > self.max_cache_size_bytes:
            # a flush on eviction may have put into another namespace: stop when this one is
            # empty even if the total is still over budget (Java does the same)
            if cache.is_empty():
                return
            old = cache.current_size_bytes
            cache.evict()
            self._size_bytes += cache.current_size_bytes - old
            self.evicts += 1

    def __repr__(self) -> str:
        return (f"<ThreadCache {self._size_bytes}/{self.max_cache_size_bytes} bytes, "
                f"{len(self._caches)} named caches>")


_THREAD_CACHES: weakref.WeakKeyDictionary[Any, ThreadCache] = weakref.WeakKeyDictionary()
_THREAD_CACHE_SIZES: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def resize_thread_cache(owner: Any, size_bytes: int) -> None:
    """Give the thread cache of ``owner`` (a stream thread's record collector) a budget of
    ``size_bytes``: now if it has one, else when its first caching store opens. The live runtime
    calls it, from the owning thread only, when threads are added or removed (Java's
    ``StreamThread.resizeCache``: the total stays ``statestore.cache.max.bytes``)."""
    _THREAD_CACHE_SIZES[owner] = size_bytes
    cache = _THREAD_CACHES.get(owner)
    if cache is not None:
        cache.resize(size_bytes)


def thread_cache_for(context: Any, total_bytes: int) -> ThreadCache:
    """The ``ThreadCache`` of the stream thread running ``context``'s task.

    A thread is what owns the task's record collector (a test driver, a runtime thread, a
    Spark task); its budget is ``total_bytes / num.stream.threads``, as Java sizes each
    thread's cache. A context without a task gets a cache of its own.
    """
    configs = context.app_configs()
    threads = max(1, int(configs.get("num.stream.threads") or 1))
    size = total_bytes // threads
    owner = getattr(context, "record_collector", None)
    if owner is None:
        return ThreadCache(size)
    try:
        cache = _THREAD_CACHES.get(owner)
        if cache is None:
            size = _THREAD_CACHE_SIZES.get(owner, size)
            cache = _THREAD_CACHES[owner] = ThreadCache(size)
    except TypeError:  # an owner that cannot be weakly referenced: one cache per task
        return ThreadCache(size)
    return cache
