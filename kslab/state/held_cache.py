"""A batch run's writes through a record cache, replayed at once (``kslab.processor.batch``).

What ``CachingKeyValueStore.held_writes`` and ``CachingWindowStore.held_writes`` hand a
stateful batch form: the cache's bookkeeping of the run's gets, puts and commit flushes
worked out over the whole run, with the wrapped store's held writes
(``HeldTimestampedWrites``, ``HeldWindowWrites``) taking what the flushes write. Where the
engine commits on an interval (the live runtime: ``run.commit_each`` false) no flush falls
inside the run, and the puts stay in the cache as dirty entries for the commit to flush
(``_held_dirty``). Invariant: after ``apply`` the cache (entries, LRU order,
counters, sizes), the store and its changelog are what the record path's calls leave.

Over 600 lines because the key-value and the window cache's held writes replay one cache's
bookkeeping (``flush_order``, ``_fits``, evictions, the final entries) and share its helpers; a run
with deletes (``HeldCachedWrites._flushed_deletes``) is replayed update by update beside them,
and the window one also answers a sliding aggregation's range reads (``windows``).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, compress, islice, repeat
from itertools import count as count_from
from operator import add, attrgetter, getitem, is_, is_not, lt, not_
from typing import Any

from kslab.processor.batch import Batch, Flushed
from kslab.records import Record, ValueAndTimestamp
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size
from kslab.state.held_evictions import CacheEvictions, entry_header_bytes
from kslab.state.pending import PendingWrites
from kslab.state.window import WindowRun, window_key

_WINDOW_SUFFIX = 12  # a binary window key's start and sequence number, after the key

__all__ = ["HeldCachedWindowWrites", "HeldCachedWrites", "flush_order"]

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


def _increasing(column: Any) -> bool:
    """True when every item of ``column`` is larger than the one before it (a ``range`` with
    a positive step is, without making an int of each)."""
    if column.__class__ is range:
        return column.step > 0  # type: ignore[no-any-return]
    return all(map(lt, column, islice(column, 1, None)))


_FINAL_STORED = attrgetter("final_stored")


def _at(batch: Batch, positions: list[int]) -> Batch:
    """The records of ``batch`` at ``positions``, as a batch (their origins and, where the
    batch has its own, timestamps: what ``BatchRun.timestamps`` and ``headers`` take)."""
    timestamps = batch.timestamps
    return Batch([], [], list(map(batch.origin.__getitem__, positions)),
                 None if timestamps is None else list(map(timestamps.__getitem__, positions)))


def _entry_headers(headers: list[Any]) -> list[Any]:
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


class _CachedInner:
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


class HeldCachedWrites(_CachedInner):
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
        olds: list[Any] | None = None
        if self._send_old:  # what the store holds as of each flush
            current = {key: None if held is None else held[0]
                       for key, held in self._stored.items()}
            olds = []
            for key_bytes, new in zip(keys, news, strict=True):
                olds.append(current[key_bytes])
                current[key_bytes] = new
        return Flushed(None if every else order, olds, raws)

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

        def flush() -> None:
            for key, index in dirty.drain():
                new = values[index]
                if new is None:
                    cached.discard(key)
                    if held[key] is None:
                        continue
                order.append(index)
                olds.append(held[key])
                held[key] = new

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
        if shared is not None:
            shared.add(evictions, keys, nodes, stored, origins, run.places(origins),
                       puts_only=self._puts_only)
        elif not evictions.run(keys, nodes, stored, origins, puts_only=self._puts_only):
            if evictions.flush_at is not None:  # (the engine may split the chunk there)
                run.flushes_at(evictions.flush_at)
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
        final = _at(batch, last)
        timestamps, headers = run.timestamps(final), run.headers(final)
        topic, partition, offsets = run.sources(final.origin)
        updated = list(map(indexes.__getitem__, order))  # each final's update
        key_objects = list(map(batch.keys.__getitem__, last))
        final_keys = list(map(keys.__getitem__, order))
        finals = list(zip(final_keys, map(
            LRUCacheEntry.clean if dirty is None else LRUCacheEntry.dirty,
            map(stored.__getitem__, order), _entry_headers(headers),
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


class HeldCachedWindowWrites(_CachedInner):
    """What a batch run writes through a ``CachingWindowStore`` (no key-first index) when the
    engine commits after every consumed record: each fetch and put of a window as the cached
    store's, and each commit's flush (the windows a consumed record dirtied, in the order of
    their last write) written to the wrapped store's ``HeldWindowWrites`` in that order (so
    its expiry follows) and forwarded. A miss reads the store (windows are not read back into
    the cache); the flushes are worked out at ``flushed``, after the run's reads, which is
    exact because a window the aggregation reads is open, so no flush of the run can have
    expired it in the store. ``fetch_window`` and ``put_window`` take a run of updates of
    one window start at once (its gets, hits and overwrites counted from each key's first
    use; the updates held by reference, ``WindowRun``), and where every consumed record
    wrote once, the flushes are the puts themselves, handed to the store as they are.
    A full cache's evictions of clean windows are worked out over the run's fetches and puts
    (``_evicts``: a window evicted and fetched again reads the store, which holds what the
    cache held). ``flushed`` returns the forwards (``Flushed``), or ``None`` when a put would
    evict a dirty window (an engine committing on an interval: ``_held_dirty``); ``apply``
    leaves the cache's entries, LRU order, counters and sizes as the record path would, then
    applies the store's writes.
    """

    def __init__(self, cache: ThreadCache, namespace: str, inner: Any, batch: Any, run: Any,
                 *, cache_key: Callable[[bytes, int], bytes],
                 decode: Callable[[LRUCacheEntry], Any], send_old_values: bool,
                 cached: Callable[[bytes, int, int], list[tuple[int, LRUCacheEntry]]]
                 | None = None, windowed: Callable[[bytes, int], Any] | None = None) -> None:
        self._cache, self._namespace = cache, namespace
        self._inner, self._batch, self._run = inner, batch, run
        self._cache_key, self._decode, self._send_old = cache_key, decode, send_old_values
        # range reads (``windows``): the cached windows of a key in a span, the store's
        # stream time as the flushes move it, each key's cached windows as the run leaves
        # them; ``windowed``: a flushed window's ``Windowed`` key, as the flush builds it
        self._cached_in, self.windowed = cached, windowed
        self._span = (0, 0)
        self._ranged = False  # a range read (``windows``) saw the cache
        self._observed = 0
        self._ranges: dict[bytes, dict[int, tuple[Any, int]]] = {}
        self._values: dict[bytes, tuple[Any, int]] = {}  # cached windows touched: their value
        self._before: dict[bytes, LRUCacheEntry] = {}  # ... and their entry before the run
        self._seen: set[bytes] = set()  # cache keys looked up before
        self._last_use: dict[bytes, int] = {}  # cache key -> when the run last used it
        # cache key -> its last store write: (its run and its window's place among the run's
        # last writes, or None and its index among all writes) and its batch position
        self._last_write: dict[bytes, tuple[WindowRun | None, int, int]] = {}
        self._runs: list[WindowRun] = []  # the puts, in runs of one window start
        self._run_keys: list[list[bytes]] = []  # each run's cache keys (of its binaries)
        self._count = 0  # puts
        self._gets = self._hits = self._overwrites = 0
        self._last: tuple[bytes, int, bytes, bytes] | None = None  # the last window looked up
        self._last_window: tuple[int, list[bytes], Any] | None = None  # a run's (``_window``)
        # each window's last put, in the order of their last put, when the run has no commit
        # in it (``_held_dirty``): cache key -> (its run, its index there, its stored bytes)
        self._dirty: PendingWrites[bytes, tuple[WindowRun, int, bytes]] | None = None
        self._evictions: CacheEvictions | None = None  # what the run's puts evict, if any

    def _key(self, key_bytes: bytes, start: int) -> tuple[bytes, bytes]:
        """The window's binary key and cache key (the last ones asked again: a fetch, then
        its put)."""
        last = self._last
        if last is not None and last[1] == start and last[0] == key_bytes:
            return last[2], last[3]
        binary = window_key(key_bytes, start)
        cache_key = self._cache_key(binary, start)
        self._last = (key_bytes, start, binary, cache_key)
        return binary, cache_key

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
        cache_key = self._key(key_bytes, start)[1]
        if self._cached(cache_key):
            self._hits += 1
            self._last_use[cache_key] = self._gets + self._count  # (an access count: a
            return self._values[cache_key]  # record may touch several windows)
        return self._inner.fetch(key_bytes, start)  # type: ignore[no-any-return]

    def load_span(self, time_from: int, time_to: int) -> None:
        """The window starts ``windows`` may be asked for (a sliding aggregation's run)."""
        self._span = (time_from, time_to)
        self._observed = self._inner.observed
        self._inner.load_span(time_from, time_to)

    def _range(self, key_bytes: bytes) -> dict[int, tuple[Any, int]]:
        held = self._ranges.get(key_bytes)
        if held is None:
            decode = self._decode
            held = self._ranges[key_bytes] = {}
            for start, entry in self._cached_in(key_bytes, *self._span):  # type: ignore[misc]
                if entry.value is not None:
                    value = decode(entry)
                    held[start] = (value[0], value[1])
        return held

    def windows(self, key_bytes: bytes, time_from: int, time_to: int
                ) -> list[tuple[int, tuple[Any, int]]]:
        """The cached store's ``fetch`` of the key's windows starting in ``[time_from,
        time_to]``, ascending: the store's (as the flushes so far leave it) with the cached
        ones (not filtered by retention) laid over them."""
        self._ranged = True
        found = dict(self._inner.windows(key_bytes, time_from, time_to, self._observed))
        for start, value in self._range(key_bytes).items():
            if time_from <= start <= time_to:
                found[start] = value
        return sorted(found.items())

    def expires(self, start: int) -> bool:
        """True when the flush of a write into the window at ``start`` would be dropped by
        the store as expired (the flushes before it having moved its stream time; an engine
        committing on an interval flushes after the run, on the record path: never)."""
        return self._run.commit_each and self._inner.expires(start, self._observed)

    def put(self, key_bytes: bytes, start: int, value: Any, timestamp: int,
            position: int) -> bool:
        """The cached store's ``put_pair``; ``False`` (nothing held) for a delete."""
        if value is None:
            return False
        if self._cached_in is not None:  # (a range reader: what later reads see, and the
            self._range(key_bytes)[start] = (value, timestamp)  # store's stream time as
            if start > self._observed and self._run.commit_each:  # each commit's flush
                self._observed = start  # moves it)
        binary, cache_key = self._key(key_bytes, start)
        if self._cached(cache_key):
            self._overwrites += 1
        self._values[cache_key] = (value, timestamp)
        runs = self._runs
        if runs and runs[-1].start == start and runs[-1].ids is None:  # the run goes on
            run = runs[-1]
            run.last = None
        else:
            run = WindowRun(start, [], None, [], [], [])
            runs.append(run)
            self._run_keys.append([])
        run.binaries.append(binary)
        run.values.append(value)
        run.timestamps.append(timestamp)
        run.positions.append(position)
        self._run_keys[-1].append(cache_key)
        self._count += 1
        self._last_use[cache_key] = self._gets + self._count
        return True

    def _window(self, start: int, key_bytes: list[bytes]
                ) -> tuple[list[bytes], list[bytes], list[bool]]:
        """The binary and cache keys of each key's window at ``start``, and whether the
        cache holds it now (asked once per run: its fetches, then its puts), as
        ``_cached`` of each, looked up in C."""
        last = self._last_window
        if last is not None and last[0] == start and last[1] is key_bytes:
            return last[2]
        binaries = list(map(bytes.__add__, key_bytes, repeat(window_key(b"", start))))
        # (a cache key is its segment's prefix, then the binary key: no key-first index)
        cache_keys = list(map(bytes.__add__, repeat(self._cache_key(b"", start)), binaries))
        held, seen = self._values, self._seen
        unseen = [key for key in cache_keys if key not in held and key not in seen]
        seen.update(unseen)
        for cache_key, entry in zip(unseen, self._cache.peek_all(self._namespace, unseen),
                                    strict=True):
            if entry is not None:  # cached before the run: its value, as it found it
                self._before[cache_key] = entry
                value = self._decode(entry)
                held[cache_key] = (value[0], value[1])
        cached = list(map(held.__contains__, cache_keys))
        self._last_window = (start, key_bytes, (binaries, cache_keys, cached))
        return binaries, cache_keys, cached

    def fetch_window(self, start: int, key_bytes: list[bytes]) -> list[tuple[Any, int] | None]:
        """The first ``fetch`` of each key's window at ``start`` by a run (``put_window``
        counts the run's gets): the cached value, else the store's."""
        _, cache_keys, cached = self._window(start, key_bytes)
        found: list[Any] = list(map(self._values.get, cache_keys))  # (a value is a pair)
        missed = list(compress(range(len(found)), map(not_, cached)))
        if missed:
            stored = self._inner.fetch_window(start, list(map(key_bytes.__getitem__, missed)))
            for index, value in zip(missed, stored, strict=True):
                found[index] = value
        return found

    def put_window(self, start: int, key_bytes: list[bytes], ids: list[int],
                   values: list[Any], timestamps: list[int], positions: list[int]) -> None:
        """The cached store's ``fetch_pair`` then ``put_pair`` of each update in order, all
        of windows at ``start``: update ``i`` writes ``values[i]`` at ``timestamps[i]`` for
        key ``key_bytes[ids[i]]`` (the distinct keys: each one updated) for the batch
        record at ``positions[i]`` (the lists are held as they are). Only a key's first
        fetch can miss; every later one hits, every later put overwrites (a ``None`` value,
        a delete, is not held: ``flushed`` says so)."""
        if not ids:
            return
        binaries, cache_keys, cached = self._window(start, key_bytes)
        self._last_window = None  # (the puts change what the cache holds)
        n = len(ids)
        misses = cached.count(False)
        used = self._gets + self._count  # the accesses before the run
        self._gets += n
        self._hits += n - misses
        self._overwrites += n - misses
        run = WindowRun(start, binaries, ids, values, timestamps, positions)
        last = run.finals()  # each key's last update: its value, and its record's get and
        indexes = last.values()  # put as the key's last use
        self._values.update(zip(map(cache_keys.__getitem__, last), zip(
            map(values.__getitem__, indexes), map(timestamps.__getitem__, indexes),
            strict=True), strict=True))
        self._last_use.update(zip(map(cache_keys.__getitem__, last), map(
            add, map(add, indexes, indexes), repeat(used + 2)), strict=True))
        self._runs.append(run)
        self._run_keys.append(cache_keys)
        self._count += n

    def _fits(self, widest_stored: int, keys: Any) -> bool:
        """True when no put of the run can evict: each of ``keys`` at the widest stored
        value fits in what the cache has left (reserved for this chunk: ``BatchRun.reserve``);
        else when what the puts evict is known (``_evicts``)."""
        headers = self._run.headers(self._batch)
        widest = NODE_OVERHEAD + entry_size(widest_stored, self._run.topic,
                                            max(map(headers_size, headers)) if any(headers)
                                            else 0)
        return self._run.reserve(self._cache, sum(map(len, keys)) + widest * len(keys)) \
            or self._evicts(headers)

    def _evicts(self, headers: list[Any]) -> bool:
        """True when what the run's fetches and puts evict is known (``CacheEvictions``,
        a miss reading nothing back): only clean entries, the whole thread cache reserved
        for the run; then held (``_evictions``) for ``apply``. Not for a run that reads a
        window it does not write, nor a range reader's (their reads see the cache)."""
        run, origin = self._run, self._batch.origin
        put_keys = [keys if window_run.ids is None else list(map(keys.__getitem__,
                                                                 window_run.ids))
                    for window_run, keys in zip(self._runs, self._run_keys, strict=True)]
        keys = list(chain.from_iterable(put_keys))
        if self._ranged or not self._last_use.keys() <= set(keys):
            return False
        room = run.reserve_evicting(self._cache)
        if room is None:
            return False
        values: list[int] = []
        for window_run in self._runs:
            stored = self._inner.encode_stored(window_run.values, window_run.timestamps)
            if stored is None:
                return False
            values += map(len, stored)
        positions = list(chain.from_iterable(window_run.positions for window_run in self._runs))
        nodes = list(map(add, map(len, keys), map(add, values, repeat(
            NODE_OVERHEAD + entry_size(0, run.topic, 0)))))
        header_bytes = entry_header_bytes(headers, positions)
        if header_bytes is not None:
            nodes = list(map(add, nodes, header_bytes))
        evictions = CacheEvictions(self._cache, self._namespace, room,
                                   dict(self._before), {}, commit_each=run.commit_each,
                                   reads_back=False)
        if not evictions.run(keys, nodes, values, list(map(origin.__getitem__, positions)),
                             puts_only=False):
            if evictions.flush_at is not None:  # (the engine may split the chunk there)
                run.flushes_at(evictions.flush_at)
            return False
        self._evictions = evictions
        return True

    def _evicted(self) -> tuple[int, int, int, int] | None:
        """Drop what the run's puts evicted (``_evicts``) from the cache; the gets, hits,
        puts and overwrites the run counts, or ``None`` where the run was not walked."""
        evictions = self._evictions
        if evictions is None:
            return None
        survivors = evictions.survivors
        self._cache.drop_evicted(self._namespace, [key for key in evictions.evicted
                                                   if key not in survivors],
                                 evictions.evictions)
        return evictions.gets, evictions.hits, evictions.puts, evictions.overwrites

    def _held_dirty(self) -> Flushed | None:
        """``flushed`` for an engine that commits on an interval (the live runtime): no
        commit falls inside the run, so every put stays in the cache as a dirty entry and
        nothing is forwarded or written to the store (the commit's flush does that, on the
        record path; the store, unwritten, expires nothing in between). Every put is
        serialized, as the cache's ``put`` does; ``None`` when a put would evict a dirty
        entry (or for a delete)."""
        encode = self._inner.encode_stored
        last_put: PendingWrites[bytes, tuple[WindowRun, int, bytes]] = PendingWrites()
        widest = 0
        for run, keys in zip(self._runs, self._run_keys, strict=True):
            stored = encode(run.values, run.timestamps)
            if stored is None:
                return None
            widest = max(widest, max(map(len, stored), default=0))
            for index, cache_key in enumerate(keys if run.ids is None
                                              else map(keys.__getitem__, run.ids)):
                last_put.hold_last(cache_key, (run, index, stored[index]))  # (the cache's
                # dirty order: of the last puts)
        if not self._fits(widest, last_put):
            return None
        self._dirty = last_put
        return Flushed([], [] if self._send_old else None, [])

    def flushed(self) -> Flushed | None:
        """What the run's commits forward, in order; ``None`` when a put would evict a dirty
        entry (``_evicts``)."""
        if not self._run.commit_each:
            return self._held_dirty()
        inner, runs, count = self._inner, self._runs, self._count
        origin = self._batch.origin
        order: list[int] | None = None  # (None: every put, in order: one per consumed record)
        if not (all(map(_increasing, (run.positions for run in runs)))
                and all(map(lt, (run.positions[-1] for run in runs[:-1]),
                            (run.positions[0] for run in runs[1:])))
                and self._run.in_order(self._batch)):
            origins = list(map(origin.__getitem__, chain.from_iterable(
                run.positions for run in runs)))
            if not all(map(lt, origins, islice(origins, 1, None))):  # a record put twice
                order = flush_order(origins, list(chain.from_iterable(
                    keys if run.ids is None else map(keys.__getitem__, run.ids)
                    for run, keys in zip(runs, self._run_keys, strict=True))))
                if len(order) == count:  # (then in order: see flush_order)
                    order = None
        last_write = self._last_write
        olds: list[Any] | None = None
        if order is None and not self._send_old:  # the commits write every put, in order
            inner.put_runs(runs)
            for run, keys in zip(runs, self._run_keys, strict=True):
                last = run.finals()
                last_write.update(zip(map(keys.__getitem__, last), zip(
                    repeat(run), count_from(), map(run.positions.__getitem__, last.values())),
                    strict=True))
        else:
            olds = [] if self._send_old else None
            puts = [(run, index, keys) for run, keys in zip(runs, self._run_keys, strict=True)
                    for index in range(len(run))]
            for written, put in enumerate(puts if order is None else map(puts.__getitem__,
                                                                           order)):
                run, index, keys = put
                binary, start, position = run.binary(index), run.start, run.positions[index]
                key_bytes = binary[:-_WINDOW_SUFFIX]
                if olds is not None:
                    old = inner.fetch(key_bytes, start)
                    olds.append(None if old is None else old[0])
                inner.put(key_bytes, start, run.values[index], run.timestamps[index], position)
                last_write[keys[index if run.ids is None else run.ids[index]]] = (
                    None, written, position)
        flushed = inner.flushed()
        if flushed is None or not self._fits(inner.widest_stored(), last_write):
            return None
        return Flushed(order, olds, flushed.value_bytes)

    def apply(self) -> None:
        """Leave the record cache, the store and its changelog as the record path would."""
        if self._dirty is not None:
            self._apply_dirty(self._dirty)
            return
        batch, run = self._batch, self._run
        used = sorted(self._last_use, key=self._last_use.__getitem__)  # (last use order)
        counts = self._evicted()
        if counts is not None:  # (the puts evicted some of them)
            used = [key for key in used if key in self._evictions.survivors]  # type: ignore[union-attr]
        written = list(map(self._last_write.get, used))
        only_read = None in written  # (a window read, never written: the entry it found)
        writes = [write for write in written if write is not None] if only_read else written
        held, indexes, where = (list(column) for column in zip(*writes, strict=True)) \
            if writes else ([], [], [])
        final = _at(batch, where)
        timestamps, headers = run.timestamps(final), run.headers(final)
        topic, partition, offsets = run.sources(final.origin)
        if None in held:  # written one by one: the store's index of each
            stored = [self._inner.stored_value(index) if run_held is None
                      else run_held.final_stored[index]
                      for run_held, index in zip(held, indexes, strict=True)]
        else:  # each window's place among its run's last writes
            stored = list(map(getitem, map(_FINAL_STORED, held), indexes))
        written_keys = [key for key, write in zip(used, written, strict=True)
                        if write is not None] if only_read else used
        entries = map(
            LRUCacheEntry.clean, stored, _entry_headers(headers), offsets, timestamps,
            repeat(partition), repeat(topic), map(_new_tuple, repeat(ValueAndTimestamp),
                                                  map(self._values.__getitem__, written_keys)),
            repeat(None), map(Record, map(batch.keys.__getitem__, where),
                              map(batch.values.__getitem__, where), timestamps, headers))
        if only_read:
            entry_of = dict(zip(written_keys, entries, strict=True))
            finals = [(key, entry_of[key] if key in entry_of else self._before[key])
                      for key in used]
        else:
            finals = list(zip(used, entries, strict=True))
        gets, hits, puts, overwrites = counts or (self._gets, self._hits, self._count,
                                                  self._overwrites)
        self._cache.replay(self._namespace, finals, gets=gets, hits=hits, puts=puts,
                           overwrites=overwrites)
        self._inner.apply()

    def _apply_dirty(self, last_put: PendingWrites[bytes, tuple[WindowRun, int, bytes]]
                     ) -> None:
        """``apply`` of a run with no commit in it: each window put holds its last put as a
        dirty entry (dirty in the order of their last put), each one only read keeps its
        entry, all in the order of their last use; the store is not written."""
        batch, run = self._batch, self._run
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        finals: list[tuple[bytes, LRUCacheEntry]] = []
        counts = self._evicted() or (self._gets, self._hits, self._count, self._overwrites)
        for cache_key in sorted(self._last_use, key=self._last_use.__getitem__):  # (every
            # one put, dirty: none evicted)
            put = last_put.get(cache_key)
            if put is None:  # only read: the entry it found
                finals.append((cache_key, self._before[cache_key]))
                continue
            window_run, index, stored = put
            position = window_run.positions[index]
            topic, partition, offset = run.source(batch.origin[position])
            header = headers[position]
            finals.append((cache_key, LRUCacheEntry.dirty(
                stored, header if header else None, offset, timestamps[position], partition,
                topic, _new_tuple(ValueAndTimestamp, (window_run.values[index],
                                                      window_run.timestamps[index])),
                None, Record(batch.keys[position], batch.values[position],
                             timestamps[position], header))))
        gets, hits, puts, overwrites = counts
        self._cache.replay(self._namespace, finals, gets=gets, hits=hits, puts=puts,
                           overwrites=overwrites, written=list(last_put))
