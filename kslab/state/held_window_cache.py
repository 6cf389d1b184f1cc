"""A batch run's writes through a window store's record cache, replayed at once.

``CachingWindowStore.held_writes`` hands a windowed aggregation's batch form this: the
cache's fetches, puts and commit flushes worked out over the whole run, the wrapped store's
``HeldWindowWrites`` taking what the flushes write; the key-value form and the helpers both
share are in ``kslab.state.held_cache``. It also answers a sliding aggregation's range reads
(``windows``). Invariant: after ``apply`` the cache (entries, LRU
order, counters, sizes), the store and its changelog are what the record path's calls leave.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, compress, islice, repeat
from itertools import count as count_from
from operator import add, attrgetter, getitem, lt, not_
from typing import Any

from kslab.processor.batch import Flushed
from kslab.records import Record, ValueAndTimestamp
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size
from kslab.state.fresh import fresh_value
from kslab.state.held_cache import CachedInner, batch_at, entry_headers, flush_order
from kslab.state.held_evictions import (
    CacheEvictions,
    SharedEvictions,
    entry_header_bytes,
    walked,
)
from kslab.state.pending import PendingWrites
from kslab.state.window import WindowRun, window_key

__all__ = ["HeldCachedWindowWrites"]

_new_tuple = tuple.__new__

_WINDOW_SUFFIX = 12  # a binary window key's start and sequence number, after the key


def _increasing(column: Any) -> bool:
    """True when every item of ``column`` is larger than the one before it (a ``range`` with
    a positive step is, without making an int of each)."""
    if column.__class__ is range:
        return column.step > 0  # type: ignore[no-any-return]
    return all(map(lt, column, islice(column, 1, None)))


_FINAL_STORED = attrgetter("final_stored")


class HeldCachedWindowWrites(CachedInner):
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
        self._cache_only: list[tuple[bytes, int, int]] = []  # each window a range read
        # (``windows``) saw only in the cache (the store has expired it): its cache key, the
        # puts before the read, the reading record's consumed record (``_evicts``)
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

    def windows(self, key_bytes: bytes, time_from: int, time_to: int, *,
                position: int) -> list[tuple[int, tuple[Any, int]]]:
        """The cached store's ``fetch`` of the key's windows starting in ``[time_from,
        time_to]``, ascending, for the batch record at ``position``: the store's (as the
        flushes so far leave it) with the cached ones (not filtered by retention) laid over
        them."""
        inner, observed = self._inner, self._observed
        found = dict(inner.windows(key_bytes, time_from, time_to, observed))
        for start, value in self._range(key_bytes).items():
            if time_from <= start <= time_to:
                if inner.expires(start, observed):  # (only the cache holds it now)
                    self._cache_only.append((self._key(key_bytes, start)[1], self._count,
                                             self._batch.origin[position]))
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
        shared = self._run.shared_evictions(self._cache)
        if shared is None and self._run.reserve(self._cache,
                                                sum(map(len, keys)) + widest * len(keys)):
            return True
        return self._evicts(headers, shared)

    def _evicts(self, headers: list[Any], shared: SharedEvictions | None) -> bool:
        """True when what the run's fetches and puts evict is known (``CacheEvictions``,
        a miss reading nothing back): only clean entries, the whole thread cache reserved
        for the run; then held (``_evictions``) for ``apply``. A range reader's puts (a
        sliding aggregation's: no fetch before them) are walked as puts only; its reads see
        the cache without using it (a peek), and a clean window evicted reads the same from
        the store, unless the store has expired it (``_cache_only``: where such a window was
        evicted before the read, the run is told at that record, ``BatchRun.flushes_at``, as
        where a put would evict a dirty window). Where the chunk's tasks share the thread
        cache (``shared``), the run is walked with theirs at the end of phase one, unless a
        read saw a window only the cache held. Not for a run that reads a window it does not
        write."""
        run, origin = self._run, self._batch.origin
        put_keys = [keys if window_run.ids is None else list(map(keys.__getitem__,
                                                                 window_run.ids))
                    for window_run, keys in zip(self._runs, self._run_keys, strict=True)]
        keys = list(chain.from_iterable(put_keys))
        if self._gets not in (0, self._count) or not self._last_use.keys() <= set(keys) \
                or (shared is not None and self._cache_only):  # (each put after a fetch of
            if shared is not None:  # its window, or none)
                run.reserve_evicting(self._cache)  # (refused: the engine stops walking it)
            return False
        room = shared.budget if shared is not None else run.reserve_evicting(
            self._cache, walkable=not self._cache_only)
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
        if not walked(evictions, run, shared, (keys, nodes, values, list(map(
                origin.__getitem__, positions))), puts_only=not self._gets,
                      reads=self._cache_only):
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
                if olds is not None:  # (an object of its own, as the record path decodes
                    old = inner.fetch(key_bytes, start)  # it: kslab.state.fresh)
                    olds.append(None if old is None else fresh_value(old[0]))
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
        final = batch_at(batch, where)
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
            LRUCacheEntry.clean, stored, entry_headers(headers), offsets, timestamps,
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
