"""A batch run's writes through a record cache, replayed at once (``kslab.processor.batch``).

What ``CachingKeyValueStore.held_writes`` hands a stateful batch form: the cache's
bookkeeping of the run's gets, puts and commit flushes worked out over the whole run, with
the wrapped store's held writes (``HeldTimestampedWrites``) taking what the flushes write.
Where the engine commits on an interval (the live runtime: ``run.commit_each`` false) no
flush falls inside the run, and the puts stay in the cache as dirty entries for the commit
to flush (``_held_dirty``). Invariant: after ``apply`` the cache (entries, LRU order,
counters, sizes), the store and its changelog are what the record path's calls leave. A run
with deletes (``HeldCachedWrites._flushed_deletes``) is replayed update by update. The window
store's form (``kslab.state.held_window_cache``) shares this module's helpers: the commits'
``flush_order``, ``batch_at``, ``entry_headers`` and ``CachedInner``.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, islice, repeat
from operator import add, is_, is_not, lt, not_
from typing import Any

from kslab.processor.batch import Batch, Flushed
from kslab.records import Record, ValueAndTimestamp
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size
from kslab.state.fresh import fresh_value
from kslab.state.held_evictions import CacheEvictions, entry_header_bytes, walked
from kslab.state.pending import PendingWrites

__all__ = ["CachedInner", "HeldCachedWrites", "batch_at", "entry_headers", "flush_order"]

_new_tuple = tuple.__new__


def _widest(fields: list[bytes], serde: Any) -> int:
    """The length of the longest of ``fields``, which ``serde`` wrote (every one as wide as
    a fixed-width built-in serde writes them: not measured)."""
    from kslab.serdes._base import fixed_struct  # (state never needs kslab.serdes at import
    # time: see kslab.state._typed)

    fixed = fixed_struct(serde)
    if fixed is not None and fields:
        return fixed.size  # type: ignore[no-any-return]
    return max(map(len, fields), default=0)


def batch_at(batch: Batch, positions: list[int]) -> Batch:
    """The records of ``batch`` at ``positions``, as a batch (their origins and, where the
    batch has its own, timestamps: what ``BatchRun.timestamps`` and ``headers`` take)."""
    timestamps = batch.timestamps
    return Batch([], [], list(map(batch.origin.__getitem__, positions)),
                 None if timestamps is None else list(map(timestamps.__getitem__, positions)))


def entry_headers(headers: list[Any]) -> list[Any]:
    """The headers a cache entry keeps of each record's: ``None`` for none or empty ones."""
    if not any(headers):
        return [None] * len(headers)
    return [header if header else None for header in headers]


def flush_order(origins: list[int], keys: list[bytes]) -> list[int]:
    """The indexes of the puts (``origins[i]``: the consumed record put ``i`` belongs to,
    ``keys[i]``: its cache key) that the commit after each consumed record flushes, in flush
    order: per record its dirty keys in the order of their last write (``NamedCache``'s dirty
    order, as the cache's pending writes hold them), so all of them when no record writes a
    key twice."""
    if all(map(lt, origins, islice(origins, 1, None))):  # one put per consumed record
        return list(range(len(origins)))
    order: list[int] = []
    dirty: PendingWrites[bytes, int] = PendingWrites()
    for index, key in enumerate(keys):
        if index and origins[index] != origins[index - 1]:
            order.extend(put for _, put in dirty.drain())
        dirty.hold_last(key, index)
    order.extend(put for _, put in dirty.drain())
    return order


class CachedInner:
    """The serdes of the wrapped store's held writes (``_inner``), as a record cache's held
    writes hand them on to the batch forms."""

    _inner: Any

    @property
    def key_serde(self) -> Any:
        """The serde that wrote the key bytes."""
        return self._inner.key_serde

    @property
    def value_serde(self) -> Any:
        """The serde that wrote the value bytes (``Flushed.value_bytes``)."""
        return self._inner.value_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` as the wrapped store serializes them."""
        return self._inner.serialize_keys(keys)  # type: ignore[no-any-return]


class HeldCachedWrites(CachedInner):
    """What a batch run writes through a ``CachingKeyValueStore``: the record cache's gets,
    puts and, where the engine commits after every consumed record (the test driver), each
    commit's flush, replayed at once (an engine committing on an interval: ``_held_dirty``).

    Phase one: ``read`` finds each key's value (its cached entry, else the store's) without
    counting; ``update_all`` takes, per position, the record path's ``get`` then ``put`` of
    that record's key and works out what the cache counts for them; ``flushed`` works out each
    commit's flush: the keys a consumed record dirtied, in the order of their last write, all
    written to the wrapped store's held writes (as the flushes write them) and forwarded; it
    returns those forwards (``Flushed``), or ``None`` when a put of the run would evict a
    dirty entry (a flush mid-run, which only the record path makes: the run then goes record
    by record); evictions of clean entries, and the misses and read-backs they cause, are
    worked out over the run's keys (``kslab.state.held_evictions``) and done at ``apply``. Phase
    two (``apply``) puts each touched key's final clean entry in the order of its last use,
    with the counters and sizes the gets, puts and flushes leave, and applies the wrapped
    store's held writes. Per record only columns are mapped (in C): the Python work is per
    distinct key.
    """

    def __init__(self, cache: ThreadCache, namespace: str, inner: Any, batch: Any, run: Any,
                 *, decode: Callable[[LRUCacheEntry], Any], send_old_values: bool,
                 remember: Callable[[Any, bytes], None], puts_only: bool = False) -> None:
        self._cache, self._namespace = cache, namespace
        self._inner, self._batch, self._run = inner, batch, run
        self._decode, self._send_old, self._remember = decode, send_old_values, remember
        self._puts_only = puts_only  # each update a put with no get before it (a table
        # join's merger): nothing read back, no get counted
        self._before: dict[bytes, Any] = {}  # keys cached before the run: their entry, or
        # None for one read back from the store (``read``)
        self._stored: dict[bytes, Any] = {}  # what the store holds for each key read
        # positions, key bytes, values and timestamps of the updates
        self._updates: tuple[list[int], list[bytes], list[Any], list[int]] = ([], [], [], [])
        self._counts = (0, 0, 0, 0)  # gets, hits, puts, overwrites
        self._missed = 0  # gets of keys neither cached nor stored, with no put after them
        self._flushes: list[int] | None = None  # the flushed updates, when not all of them
        # each key's last put, when the run has no commit in it (``_held_dirty``): keys, the
        # index of each one's last update, its stored bytes
        self._dirty: tuple[list[bytes], list[int], list[bytes]] | None = None
        self._widest_read = 0  # the longest stored value read back
        self._read_back: dict[bytes, int] = {}  # each key read back: its stored bytes' length
        self._evictions: CacheEvictions | None = None  # what the run's puts evict, if any

    def read(self, distinct: list[bytes]) -> list[Any]:
        """Each of the ``distinct`` keys' value as the cached store's ``get`` finds it: the
        cached entry's, else the store's."""
        entries = self._cache.peek_all(self._namespace, distinct)
        missed = list(compress(distinct, map(is_, entries, repeat(None))))
        stored = dict(zip(missed, self._inner.read(missed), strict=True))
        decode, before = self._decode, self._before
        values: list[Any] = []
        for key_bytes, entry in zip(distinct, entries, strict=True):
            if entry is not None:
                before[key_bytes] = entry
                value = entry.obj  # (the cached object; else decoded from its bytes)
                if value is None:
                    value = decode(entry)
            else:
                value = stored[key_bytes]
                if value is not None and not self._puts_only:  # read back into the cache
                    # as a clean entry
                    before[key_bytes] = None
                    width = self._read_back[key_bytes] = len(
                        self._inner.stored_bytes(key_bytes))
                    if width > self._widest_read:
                        self._widest_read = width
            values.append(value)
        self._stored.update(zip(distinct, values, strict=True))
        return values

    def update_all(self, positions: list[int], key_bytes: list[bytes], values: list[Any],
                   timestamps: list[int]) -> None:
        """The cached store's ``get`` then ``put`` of the key at each position, in order, of
        keys ``read`` before (a ``None`` value, a delete, is not held: ``flushed`` says so)."""
        self._updates = (positions, key_bytes, values, timestamps)
        before = self._before  # the keys read: those cached (an entry), read back (None),
        if self._puts_only:  # a put of a key not cached adds it; every later one overwrites
            n = len(positions)
            self._counts = (0, 0, n, n - (len(self._stored) - len(before)))
            return
        fresh = len(self._stored) - len(before)  # and in neither cache nor store
        missed = fresh + list(before.values()).count(None)  # not cached when the run met them
        loaded = missed - fresh
        n = len(positions)
        self._counts = (n, n - missed, n + loaded, n - fresh)

    def missed(self, count: int) -> None:
        """``count`` more gets, each of a key neither cached nor stored (a miss, nothing read
        back), with no put after it (a table filter's change it drops)."""
        self._missed += count

    def flushed(self) -> Flushed | None:
        """What the run's commits forward, in order; ``None`` when a put would evict a dirty
        entry (or might evict, for a run with deletes)."""
        if not self._run.commit_each:
            return self._held_dirty()
        positions, all_keys, values, timestamps = self._updates
        if None in values:
            return self._flushed_deletes()
        origin = self._batch.origin
        every = self._run.in_order(self._batch)  # (positions increase: so do their
        if not every:  # consumed records, and each put is flushed after its own)
            order = flush_order(list(map(origin.__getitem__, positions)), all_keys)
            every = len(order) == len(positions)  # (then in order: see flush_order)
        if every:
            keys, news, stamps, where = all_keys, values, timestamps, positions
        else:
            keys, news, stamps, where = (list(map(column.__getitem__, order)) for column in (
                all_keys, values, timestamps, positions))
        raws = self._inner.encode_all(news)
        if raws is None or not self._fits(raws, (lambda: raws) if every
                                          else (lambda: self._inner.encode_all(values))):
            return None
        self._inner.write_columns(keys, raws, stamps, where)
        self._flushes = None if every else order
        olds = self._olds(keys, news) if self._send_old else None
        return Flushed(None if every else order, olds, raws)

    def _olds(self, keys: list[bytes], news: list[Any]) -> list[Any]:
        """The old value each flush of ``keys`` (in flush order, putting ``news``) forwards:
        what the store holds as of that flush, as an object of its own, as the record path
        decodes it from the store's bytes at each flush (``kslab.state.fresh``): a key's
        first from the bytes it had before the run, a later one a copy of the key's value
        the flush before put (a function downstream changes neither)."""
        current: dict[bytes, Any] = {}
        olds: list[Any] = []
        for key_bytes, new in zip(keys, news, strict=True):
            if key_bytes in current:
                old = current[key_bytes]
                olds.append(None if old is None else fresh_value(old))
            else:
                olds.append(self._stored_before(key_bytes))
            current[key_bytes] = new
        return olds

    def _stored_before(self, key_bytes: bytes) -> Any:
        """The value the store held for the key before the run, decoded anew from its bytes
        (a cached entry's object may have been changed in place downstream since)."""
        entry = self._before.get(key_bytes)
        if entry is not None:
            return None if entry.value is None else self._inner.decode_stored(entry.value)
        held = self._stored.get(key_bytes)
        return None if held is None else fresh_value(held[0])

    def _flushed_deletes(self) -> Flushed | None:
        """``flushed`` of a run with deletes (``None`` values) where the engine commits after
        every consumed record: the record path's gets, puts and flushes replayed update by
        update. A flushed delete of a key the store does not hold is neither written nor
        forwarded (``CachingKeyValueStore._flushed``); every flushed delete leaves the cache,
        so a later get of its key misses (with nothing to read back) and its put is no
        overwrite. A forwarded delete carries its record's timestamp (``Flushed.stamps``)."""
        positions, all_keys, values, timestamps = self._updates
        origin = self._batch.origin
        cached = {key for key, entry in self._before.items() if entry is not None}
        held = {key: None if value is None else value[0]  # the store's value of each key
                for key, value in self._stored.items()}  # as of each flush
        gets = hits = puts = overwrites = 0
        dirty: PendingWrites[bytes, int] = PendingWrites()
        order: list[int] = []  # the updates the flushes write, in flush order
        olds: list[Any] = []
        flushed_keys: set[bytes] = set()

        def old_of(key: bytes) -> Any:  # (an object of its own: see _olds)
            if key not in flushed_keys:
                return self._stored_before(key)
            return None if held[key] is None else fresh_value(held[key])

        def flush() -> None:
            for key, index in dirty.drain():
                new = values[index]
                if new is None:
                    cached.discard(key)
                    if held[key] is None:
                        continue
                order.append(index)
                olds.append(old_of(key))
                held[key] = new
                flushed_keys.add(key)

        last = None
        for index, (position, key) in enumerate(zip(positions, all_keys, strict=True)):
            row = origin[position]
            if row != last and last is not None:
                flush()  # (the commit after the consumed record before)
            last = row
            if self._puts_only:  # (no get before the put)
                overwrites += key in cached
            else:
                gets += 1
                if key in cached:
                    hits += 1
                    overwrites += 1
                elif held[key] is not None:  # read back as a clean entry, overwritten
                    puts += 1
                    overwrites += 1
                    cached.add(key)
            puts += 1
            cached.add(key)
            dirty.hold_last(key, index)
        flush()
        news = list(map(values.__getitem__, order))
        raws = self._inner.encode_deletes(news)
        if raws is None or not self._fits([raw for raw in raws if raw is not None]):
            return None
        records = self._run.timestamps(self._batch)
        stamps = [timestamps[index] if values[index] is not None else records[positions[index]]
                  for index in order]
        self._inner.write_columns(list(map(all_keys.__getitem__, order)), raws, stamps,
                                  list(map(positions.__getitem__, order)))
        self._flushes = order
        self._counts = (gets, hits, puts, overwrites)
        return Flushed(order, olds if self._send_old else None, raws, stamps)

    def _fits(self, raws: list[bytes],
              updated: Callable[[], list[bytes] | None] | None = None) -> bool:
        """True when no put of the run can evict: every key it touched, at the widest value
        it read or wrote (``raws``: value bytes), fits in what the cache has left (reserved
        for this chunk: ``BatchRun.reserve``); else, given ``updated`` (each update's value
        bytes, in update order), when what the puts evict is known (``_evicts``)."""
        headers = self._run.headers(self._batch)
        widest = max(self._widest_read, 8 + _widest(raws, self._inner.value_serde))
        widest = NODE_OVERHEAD + entry_size(widest, self._run.topic,
                                            max(map(headers_size, headers)) if any(headers)
                                            else 0)
        run = self._run
        if updated is not None and run.shared_evictions(self._cache) is not None:
            return self._evicts(updated, headers)  # (walked with the chunk's other tasks)
        if run.reserve(self._cache, sum(map(len, self._stored)) + widest * len(self._stored)):
            return True
        return updated is not None and self._evicts(updated, headers)

    def _evicts(self, updated: Callable[[], list[bytes] | None], headers: list[Any]) -> bool:
        """True when what the run's gets and puts evict is known: only clean entries, each
        update's entry sized from its value bytes (``updated()``), the whole thread cache
        reserved for the run; then held (``_evictions``) for ``apply``. Where an eviction
        would take a dirty entry, the run is told at which consumed record
        (``BatchRun.flushes_at``). Where the chunk's tasks share the thread cache, the run
        is walked with theirs at the end of phase one (``BatchRun.shared_evictions``), which
        declines the chunk if it evicts a dirty entry."""
        run = self._run
        shared = run.shared_evictions(self._cache)
        room = shared.budget if shared is not None else run.reserve_evicting(self._cache,
                                                                             walkable=True)
        raws = None if room is None else updated()
        if raws is None:
            return False
        positions, keys = self._updates[0], self._updates[1]
        topic = self._run.topic
        stored = list(map(add, map(len, raws), repeat(8)))  # (the timestamp, then the value)
        nodes = list(map(add, map(len, keys), map(add, stored, repeat(
            NODE_OVERHEAD + entry_size(0, topic, 0)))))
        header_bytes = entry_header_bytes(headers, positions)
        if header_bytes is not None:
            nodes = list(map(add, nodes, header_bytes))
        evictions = CacheEvictions(self._cache, self._namespace, room, self._before,
                                   self._read_back, commit_each=run.commit_each)
        origins = list(map(self._batch.origin.__getitem__, positions))
        if not walked(evictions, run, shared, (keys, nodes, stored, origins),
                      puts_only=self._puts_only):
            return False
        self._evictions = evictions
        return True

    def _held_dirty(self) -> Flushed | None:
        """``flushed`` for an engine that commits on an interval (the live runtime): no
        commit falls inside the run, so every put stays in the cache as a dirty entry and
        nothing is forwarded or written to the store (the commit's flush does that, on the
        record path). Every put is serialized, as the cache's ``put`` does (a value the serde
        refuses raises here); ``None`` when a put would evict a dirty entry (or for a
        delete)."""
        _, all_keys, values, timestamps = self._updates
        raws = self._inner.encode_all(values)
        if raws is None or not self._fits(raws, lambda: raws):
            return None
        self._dirty = self._inner.encode_finals(all_keys, raws, timestamps)
        return Flushed([], [] if self._send_old else None, [])

    def apply(self) -> None:
        """Leave the record cache, the store and its changelog as the record path would."""
        batch, run = self._batch, self._run
        positions, all_keys, values, stamps = self._updates
        dirty = self._dirty
        if dirty is not None:  # each key's last put, held dirty
            keys, indexes, stored = dirty
        else:  # each key's last update is its last flushed write (its consumed record's last)
            keys, indexes, stored = self._inner.finals()
            flushes = self._flushes
            if flushes is not None:  # flushed writes -> updates
                indexes = list(map(flushes.__getitem__, indexes))
            if None in stored:  # deleted: out of the cache (gone at its flush)
                present = list(map(is_not, stored, repeat(None)))
                before = self._before
                for key in compress(keys, map(not_, present)):
                    if before.get(key) is not None:
                        self._cache.delete(self._namespace, key)
                keys, indexes, stored = (list(compress(column, present))
                                         for column in (keys, indexes, stored))
        evictions = self._evictions
        if evictions is not None:  # the puts evicted: the cache keeps the survivors
            survivors = evictions.survivors
            self._cache.drop_evicted(self._namespace, [key for key in evictions.evicted
                                                       if key not in survivors],
                                     evictions.evictions)
            self._counts = (evictions.gets, evictions.hits, evictions.puts,
                            evictions.overwrites)
            if len(survivors) < len(keys):
                kept = list(map(survivors.__contains__, keys))
                keys, indexes, stored = (list(compress(column, kept))
                                         for column in (keys, indexes, stored))
        order = sorted(range(len(keys)), key=indexes.__getitem__)  # by last use
        last = list(map(positions.__getitem__, map(indexes.__getitem__, order)))
        final = batch_at(batch, last)
        timestamps, headers = run.timestamps(final), run.headers(final)
        topic, partition, offsets = run.sources(final.origin)
        updated = list(map(indexes.__getitem__, order))  # each final's update
        key_objects = list(map(batch.keys.__getitem__, last))
        final_keys = list(map(keys.__getitem__, order))
        finals = list(zip(final_keys, map(  # (the values the flushes forwarded were copies
            LRUCacheEntry.clean if dirty is None else LRUCacheEntry.dirty,  # of these:
            map(stored.__getitem__, order), entry_headers(headers),  # kslab.state.fresh)
            offsets, timestamps, repeat(partition), repeat(topic),
            map(_new_tuple, repeat(ValueAndTimestamp), zip(
                map(values.__getitem__, updated), map(stamps.__getitem__, updated),
                strict=True)),
            key_objects, map(Record, key_objects, map(batch.values.__getitem__, last),
                             timestamps, headers)), strict=True))
        gets, hits, puts, overwrites = self._counts
        gets += self._missed
        self._cache.replay(self._namespace, finals, gets=gets, hits=hits, puts=puts,
                           overwrites=overwrites, written=None if dirty is None else final_keys)
        self._inner.apply()
        if positions:  # the store remembers the last key it serialized
            self._remember(batch.keys[positions[-1]], all_keys[-1])
