"""A batch run's gets of a key-value store, read at once (``kslab.processor.batch``).

What a store hands a batch form that only reads it (a stream-table join reading the table's
store): ``read`` takes the run's lookups as their distinct serialized keys and each lookup's
key id, reads every distinct key once and gives its value as the record path's ``get`` would;
``apply`` (phase two) leaves the store as those gets leave it. A plain store's gets change
nothing but the key it remembers (``HeldReads``); a record cache's gets count hits and misses,
move each key they find to the most recently used end and read a miss back into the cache as a
clean entry (``HeldCachedReads``), which the run replays at once. Invariant: nothing the run
reads is written in the same run (a plan never puts a store's writer and a reader of it in one
chunk), so each key's value is the same at every lookup.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import compress, repeat
from operator import is_
from typing import Any

from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache
from kslab.state.held_evictions import CacheEvictions

__all__ = ["HeldCachedReads", "HeldReads"]


class HeldReads:
    """A batch run's gets of a ``TimestampedKeyValueStore`` (no record cache in front):
    each distinct key read once (``read_stored``); ``apply`` remembers the last key looked up,
    as the last ``get`` leaves the store."""

    __slots__ = ("_last", "_store")

    def __init__(self, store: Any) -> None:
        self._store = store
        self._last: tuple[Any, bytes] | None = None  # the last lookup's key and its bytes

    @property
    def key_serde(self) -> Any:
        """The serde the store serializes keys with."""
        return self._store.key_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` (none ``None``) as the store serializes them; a key the store refuses
        raises its error."""
        return self._store.serialize_keys(keys)  # type: ignore[no-any-return]

    def read(self, distinct: list[bytes], ids: list[int], last_key: Any) -> list[Any] | None:
        """The value of each of the ``distinct`` keys as ``get`` returns it (``None`` for
        none), for lookups ``ids`` (each one's distinct key, in order; ``last_key``: the
        last one's key object)."""
        if ids:
            self._last = (last_key, distinct[ids[-1]])
        return self._store.read_stored(distinct)[1]  # type: ignore[no-any-return]

    def apply(self) -> None:
        """Leave the store as the run's last ``get`` does."""
        if self._last is not None:
            self._store.remember_key(*self._last)


class HeldCachedReads:
    """A batch run's gets through a ``CachingKeyValueStore``: each key found in the cache as
    it is (counted a hit at every lookup), else read from the store once, and then, when
    stored, read back into the cache as a clean entry (a miss, then hits); a key in neither
    misses at every lookup. ``read`` works out the counters and each touched key's entry in
    the order of its last use; where the entries read back do not fit in the thread cache
    beside what the chunk reserved (``BatchRun.reserve``), the lookups are walked over the
    cache's LRU order (``kslab.state.held_evictions``: evictions, and keys read back again),
    declining (``None``) when one would evict a dirty entry; ``apply`` replays them
    (``ThreadCache.replay``) and drops what they evicted."""

    __slots__ = ("_cache", "_counts", "_decode", "_evicted", "_finals", "_last", "_namespace",
                 "_remember", "_run", "_store")

    def __init__(self, cache: ThreadCache, namespace: str, store: Any, run: Any, *,
                 decode: Callable[[LRUCacheEntry], Any],
                 remember: Callable[[Any, bytes], None]) -> None:
        self._cache, self._namespace, self._store, self._run = cache, namespace, store, run
        self._decode, self._remember = decode, remember
        self._finals: list[tuple[bytes, LRUCacheEntry]] | None = None
        self._counts = (0, 0, 0)  # gets, hits, puts
        self._last: tuple[Any, bytes] | None = None
        self._evicted: tuple[list[bytes], int] | None = None  # keys the reads evict, and
        # how many evictions they count (``kslab.state.held_evictions``)

    @property
    def key_serde(self) -> Any:
        """The serde the store serializes keys with."""
        return self._store.key_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` (none ``None``) as the store serializes them."""
        return self._store.serialize_keys(keys)  # type: ignore[no-any-return]

    def read(self, distinct: list[bytes], ids: list[int], last_key: Any) -> list[Any] | None:
        """``HeldReads.read`` through the cache: each distinct key's cached value, else its
        stored one; ``None`` when an entry read back would evict a dirty entry."""
        if not ids:
            return [None] * len(distinct)
        entries: list[Any] = self._cache.peek_all(self._namespace, distinct)
        missed = list(compress(range(len(distinct)), map(is_, entries, repeat(None))))
        raws, stored = self._store.read_stored(list(map(distinct.__getitem__, missed)))
        decode = self._decode
        values = [None if entry is None else decode(entry) for entry in entries]
        absent: list[int] = []
        growth = 0
        for index, raw, value in zip(missed, raws, stored, strict=True):
            values[index] = value
            if raw is None:  # in neither: every lookup misses
                absent.append(index)
                continue
            entry = entries[index] = LRUCacheEntry(raw)  # read back, as ``get`` does
            entry.obj = value
            growth += len(distinct[index]) + NODE_OVERHEAD + entry.size
        if growth and not self._run.reserve(self._cache, growth):
            return self._evicting(distinct, ids, entries, set(missed), last_key, values)
        misses = len(missed) - len(absent)  # a key read back misses once
        if absent:
            counts = Counter(ids)
            misses += sum(map(counts.__getitem__, absent))
        last_use = dict(zip(ids, range(len(ids)), strict=True))  # key id -> its last lookup
        touched = sorted((index for index in last_use if entries[index] is not None),
                         key=last_use.__getitem__)
        self._finals = [(distinct[index], entries[index]) for index in touched]
        self._counts = (len(ids), len(ids) - misses, len(missed) - len(absent))
        self._last = (last_key, distinct[ids[-1]])
        return values

    def _evicting(self, distinct: list[bytes], ids: list[int], entries: list[Any],
                  missed: set[int], last_key: Any, values: list[Any]) -> list[Any] | None:
        """``read`` where the entries read back overflow the cache: the lookups walked over
        its LRU order (``CacheEvictions.lookups``: a key evicted before a later lookup
        misses and is read back again); ``None`` when one would evict a dirty entry."""
        room = self._run.reserve_evicting(self._cache)
        if room is None:
            return None
        before: dict[bytes, LRUCacheEntry | None] = {}
        read_back: dict[bytes, int] = {}
        for index, (key, entry) in enumerate(zip(distinct, entries, strict=True)):
            if entry is None:  # in neither
                continue
            if index in missed:  # read back on its first lookup
                before[key] = None
                read_back[key] = len(entry.value)
            else:
                before[key] = entry
        evictions = CacheEvictions(self._cache, self._namespace, room, before, read_back,
                                   commit_each=self._run.commit_each)
        if not evictions.lookups(list(map(distinct.__getitem__, ids))):
            return None
        entry_of = dict(zip(distinct, entries, strict=True))
        for index in range(len(distinct)):  # cached before, evicted and read back again:
            key = distinct[index]  # a new clean entry, as ``get`` makes
            if index not in missed and key in evictions.survivors \
                    and evictions.read_back(key):
                entry = entry_of[key] = LRUCacheEntry(entries[index].value)
                entry.obj = values[index]
        survivors = evictions.survivors
        self._finals = [(key, entry_of[key]) for key in survivors]
        self._evicted = ([key for key in evictions.evicted if key not in survivors],
                         evictions.evictions)
        self._counts = (evictions.gets, evictions.hits, evictions.puts)
        self._last = (last_key, distinct[ids[-1]])
        return values

    def apply(self) -> None:
        """Leave the cache (entries, LRU order, counters, size) as the run's gets do."""
        if self._finals is None:
            return
        if self._evicted is not None:
            self._cache.drop_evicted(self._namespace, *self._evicted)
        gets, hits, puts = self._counts
        self._cache.replay(self._namespace, self._finals, gets=gets, hits=hits, puts=puts,
                           overwrites=0)
        self._remember(*self._last)  # type: ignore[misc]
