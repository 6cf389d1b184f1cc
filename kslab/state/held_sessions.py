"""A batch run's session writes through a record cache (``CachingSessionStore.held_writes``).

Where the engine commits after every consumed record (the test driver, Spark), a session
aggregation's record caches its removes (a ``None`` entry each) and its put, and the commit's
flush then writes them to the store and forwards them: the removes first (one also put again
is flushed once, as the put), each read from the store (a session the store no longer holds is
neither written nor forwarded), then the put. ``HeldCachedSessionWrites`` replays that over a
run: reads see the store's sessions (``HeldSessionWrites``, which takes the flushed writes)
with the cached ones laid over them, as the cached store's ``find_sessions`` merges them; the
flushes' forwards are worked out in phase one (``forwards``); ``apply`` leaves the cache's
entries, LRU order, counters and sizes as the record path's puts and flushes would, then
applies the store's writes. A full cache's evictions are worked out over the run's cache puts
(``kslab.state.held_evictions``; a remove's ``None`` entry leaves the cache at its record's
commit): reads see the cache without using it (a peek), and a clean session evicted reads the
same from the store, unless the store has expired it. Invariant: where ``flushed`` returns
True, every eviction of the run's puts is of a clean entry and no read of the run would have
missed a session only the cache held (else the run goes record by record, split at the record
whose put would evict a dirty entry or whose read would miss: ``BatchRun.flushes_at``).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import add
from typing import Any

from kslab.records import Record, Window, Windowed
from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size
from kslab.state.fresh import IMMUTABLE, fresh_value
from kslab.state.held_evictions import (
    CacheEvictions,
    SharedEvictions,
    entry_header_bytes,
    walked,
)
from kslab.state.session import HeldSessionWrites

__all__ = ["HeldCachedSessionWrites"]

_Session = tuple[bytes, int, int, Any]  # binary session key, start, end, value


class HeldCachedSessionWrites:
    """What a batch run writes through a ``CachingSessionStore`` when the engine commits
    after every consumed record (see the module's docstring)."""

    def __init__(self, cache: ThreadCache, namespace: str, inner: HeldSessionWrites,
                 batch: Any, run: Any, *, cache_key: Callable[[bytes, int], bytes],
                 cached: Callable[[bytes, int], list[tuple[bytes, LRUCacheEntry]]],
                 decode: Callable[[LRUCacheEntry], Any], size: int,
                 send_old_values: bool) -> None:
        self._cache, self._namespace, self._inner = cache, namespace, inner
        self._batch, self._run = batch, run
        self._cache_key, self._cached, self._decode = cache_key, cached, decode
        self._send_old = send_old_values
        self._size = size  # entries in the named cache, as the run leaves it
        self._earliest_end = 0
        self._keys: dict[bytes, dict[bytes, tuple[int, int, Any]]] = {}  # key bytes ->
        # its cached sessions: binary -> (start, end, value)
        self._finals: dict[bytes, tuple[bytes, int, Any, Any] | None] = {}  # cache key ->
        # its last write: (binary, position, session, its write among the store's) or None
        # for a remove; in the order of their last write
        self._puts = self._overwrites = 0
        # the cache puts in order: cache key, the store write holding its value (None: a
        # remove's None entry), batch position
        self._sequence: list[tuple[bytes, int | None, int]] = []
        self._cache_only: list[tuple[bytes, int, int]] = []  # each session a read saw only
        # in the cache (the store has expired it): its cache key, the cache puts before the
        # read, the reading record's consumed record
        self._evictions: CacheEvictions | None = None  # what the run's puts evict, if any
        self._origin = -1  # the consumed record of the last update
        self._committing: set[bytes] = set()  # the cache keys its updates wrote
        self.forwards: list[tuple[int, Any, Any, Any]] = []  # position, session, new, old

    @property
    def key_serde(self) -> Any:
        """The serde that wrote the key inside each binary session key."""
        return self._inner.key_serde

    def serialize_keys(self, keys: list[Any]) -> list[bytes]:
        """``keys`` as the store serializes them."""
        return self._inner.serialize_keys(keys)

    def key_object(self, key_bytes: bytes) -> Any:
        """The key the store reads back from ``key_bytes``."""
        return self._inner.key_object(key_bytes)

    def load_span(self, earliest_end: int, latest_start: int) -> None:
        """The sessions the run may read (see ``HeldSessionWrites.load_span``)."""
        self._earliest_end = earliest_end
        self._inner.load_span(earliest_end, latest_start)

    def _held(self, key_bytes: bytes) -> dict[bytes, tuple[int, int, Any]]:
        held = self._keys.get(key_bytes)
        if held is None:
            held = self._keys[key_bytes] = {}
            decode = self._decode
            for binary, entry in self._cached(key_bytes, self._earliest_end):
                start, end = _bounds(binary)
                held[binary] = (start, end, decode(entry))
        return held

    def sessions(self, key_bytes: bytes, earliest_end: int, latest_start: int, *,
                 position: int) -> list[_Session]:
        """The key's sessions the cached store's ``find_sessions`` returns now, for the batch
        record at ``position``: the store's, with the cached ones (not filtered by retention)
        laid over them in (end, start) order, while the cache holds anything."""
        found = self._inner.sessions(key_bytes, earliest_end, latest_start)
        if not self._size:
            return found
        held = self._held(key_bytes)
        if not held:
            return found
        merged = {binary: (binary, start, end, value) for binary, start, end, value in found}
        for binary, (start, end, value) in held.items():
            if end >= earliest_end and start <= latest_start:
                if binary not in merged:  # (the store has expired it)
                    self._cache_only.append((self._cache_key(binary, end),
                                             len(self._sequence), self._batch.origin[position]))
                merged[binary] = (binary, start, end, value)
        return sorted(merged.values(), key=_end_start)

    def _put(self, key_bytes: bytes, binary: bytes, end: int) -> bytes:
        """Count a cache put of the session at ``binary``; its cache key."""
        cache_key = self._cache_key(binary, end)
        self._puts += 1
        if binary in self._held(key_bytes) or self._present(cache_key):
            self._overwrites += 1
        return cache_key

    def _present(self, cache_key: bytes) -> bool:
        """True when the cache held ``cache_key`` before the run and the run has not written
        it (a session cached in an older segment than the run reads)."""
        return cache_key not in self._finals and \
            self._cache.peek(self._namespace, cache_key) is not None

    def update(self, position: int, key_bytes: bytes, removed: list[_Session], binary: bytes,
               start: int, end: int, session: Any, value: Any) -> bool:
        """The record at ``position`` caches a remove of each of ``removed`` and the put of
        ``value`` for ``session`` (at ``binary``), then the commit flushes them; ``False``
        when the store would drop a flushed write, or when an earlier record of the same
        consumed record wrote one of these sessions (its commit then flushes only the last
        write of each: the records' flushes are not one per record)."""
        held, inner, finals = self._held(key_bytes), self._inner, self._finals
        sequence = self._sequence
        origin = self._batch.origin[position]
        if origin != self._origin:  # (a consumed record's first: its commit comes after)
            self._origin = origin
            self._committing.clear()
        committing, mine = self._committing, set()
        flushed: list[_Session] = []
        for removed_session in removed:
            removed_binary, removed_end = removed_session[0], removed_session[2]
            cache_key = self._put(key_bytes, removed_binary, removed_end)
            if cache_key in committing:
                return False
            mine.add(cache_key)
            sequence.append((cache_key, None, position))
            if removed_binary not in held:
                self._size += 1  # a new (dirty, None) entry
            held[removed_binary] = (0, 0, None)  # (until the flush)
            finals[cache_key] = None
            if removed_binary != binary:
                flushed.append(removed_session)
        cache_key = self._put(key_bytes, binary, end)
        if cache_key in committing:
            return False
        committing |= mine
        committing.add(cache_key)
        if binary not in held:
            self._size += 1
        finals.pop(cache_key, None)  # (its place: its last write)
        forwards, send_old = self.forwards, self._send_old
        for removed_binary, removed_start, removed_end, _ in flushed:  # the commit's flush
            del held[removed_binary]
            self._size -= 1
            old = inner.fetch(key_bytes, removed_binary, removed_end)
            if old is None:  # neither cached nor stored: nothing written or forwarded
                continue
            old = fresh_value(old)  # (its own, as the record path decodes it: kslab.state.fresh)
            if not inner.write(key_bytes, removed_binary, removed_start, removed_end, None,
                               position):
                return False
            forwards.append((position, Windowed(inner.key_object(key_bytes),
                                                Window(removed_start, removed_end)), None,
                             old if send_old else None))
        old = inner.fetch(key_bytes, binary, end) if send_old else None
        if old is not None:
            old = fresh_value(old)
        if not inner.write(key_bytes, binary, start, end, value, position):
            return False
        held[binary] = (start, end, value)
        finals[cache_key] = (binary, position, session, len(inner) - 1)
        sequence.append((cache_key, len(inner) - 1, position))
        forwards.append((position, session, value if value.__class__ in IMMUTABLE  # (a copy
                         else fresh_value(value), old))  # of what the cache keeps, as its
        # flush forwards it: kslab.state.fresh)
        return True

    def flushed(self) -> bool:
        """Serialize the store's writes (phase one); ``False`` for a value written as
        ``None``, or when a put of the run would evict a dirty entry or one a read saw
        (``_evicts``)."""
        inner = self._inner
        if not inner.flushed():
            return False
        run = self._run
        headers = run.headers(self._batch)
        raw = inner.raw  # (the widest of every put: a session put, then removed by a later
        # record, takes its bytes in the cache until that record's commit)
        widest = max((len(raw(write) or b"") for _, write, _ in self._sequence
                      if write is not None), default=0)
        node = NODE_OVERHEAD + entry_size(widest, run.topic, max(map(headers_size, headers))
                                          if any(headers) else 0)
        shared = run.shared_evictions(self._cache)
        if shared is None and run.reserve(self._cache, sum(map(len, self._finals)) + node * len(
                self._finals)):
            return True
        return self._evicts(headers, shared)

    def _evicts(self, headers: list[Any], shared: SharedEvictions | None) -> bool:
        """True when what the run's cache puts evict is known (``CacheEvictions``, puts only:
        a read peeks): only clean entries, the whole thread cache reserved for the run, and
        none evicted before a read that saw it only in the cache; then held
        (``_evictions``) for ``apply``. Where an eviction would take a dirty entry, or a
        read would miss a session evicted before it, the run is told at which consumed
        record (``BatchRun.flushes_at``: the engine may run that one on the record path).
        Where the chunk's tasks share the thread cache (``shared``), the run is walked with
        theirs at the end of phase one, unless a read saw a session only the cache held
        (its eviction is known only after the walk: the cache is then not walked)."""
        run, cache, namespace = self._run, self._cache, self._namespace
        if shared is not None and self._cache_only:
            run.reserve_evicting(cache)  # (refused: the engine stops walking the cache)
            return False
        room = shared.budget if shared is not None else run.reserve_evicting(
            cache, walkable=not self._cache_only)
        if room is None:
            return False
        if not self._sequence:  # (nothing put: nothing evicted)
            return True
        keys, writes, positions = (list(column) for column in zip(*self._sequence,
                                                                    strict=True))
        raw = self._inner.raw
        values = [None if write is None else len(raw(write) or b"") for write in writes]
        entry = NODE_OVERHEAD + entry_size(0, run.topic, 0)
        nodes = [len(key) + entry + (value or 0) for key, value in zip(keys, values,
                                                                      strict=True)]
        header_bytes = entry_header_bytes(headers, positions)
        if header_bytes is not None:
            nodes = list(map(add, nodes, header_bytes))
        distinct = list(dict.fromkeys(keys))
        before = {key: found for key, found in zip(distinct, cache.peek_all(
            namespace, distinct), strict=True) if found is not None}
        evictions = CacheEvictions(cache, namespace, room, before, {}, commit_each=True,
                                   reads_back=False)
        origins = list(map(self._batch.origin.__getitem__, positions))
        if not walked(evictions, run, shared, (keys, nodes, values, origins), puts_only=True,
                      reads=self._cache_only):
            return False
        self._evictions = evictions
        return True

    def apply(self) -> None:
        """Leave the record cache, the store and its changelog as the record path would."""
        batch, run, inner = self._batch, self._run, self._inner
        cache, namespace = self._cache, self._namespace
        timestamps, headers = run.timestamps(batch), run.headers(batch)
        finals: list[tuple[bytes, LRUCacheEntry]] = []
        puts, overwrites, survivors = self._puts, self._overwrites, None
        evictions = self._evictions
        if evictions is not None:  # the puts evicted: the cache keeps the survivors
            survivors = evictions.survivors
            cache.drop_evicted(namespace, [key for key in evictions.evicted
                                           if key not in survivors], evictions.evictions)
            puts, overwrites = evictions.puts, evictions.overwrites
        for cache_key, final in self._finals.items():
            if final is None:  # removed: a flush deleted it from the cache
                cache.delete(namespace, cache_key)
                continue
            if survivors is not None and cache_key not in survivors:
                continue  # (evicted after its flush)
            _, position, session, index = final
            topic, partition, offset = run.source(batch.origin[position])
            header = headers[position]
            key, value, timestamp = batch.keys[position], batch.values[position], \
                timestamps[position]
            finals.append((cache_key, LRUCacheEntry.clean(
                inner.raw(index), header if header else None, offset, timestamp, partition,
                topic, inner.value_of(index), session,
                Record(key, value, timestamp, header))))
        cache.replay(namespace, finals, gets=0, hits=0, puts=puts, overwrites=overwrites)
        inner.apply()


def _bounds(binary: bytes) -> tuple[int, int]:
    """A binary session key's start and end."""
    return (int.from_bytes(binary[-8:], "big", signed=True),
            int.from_bytes(binary[-16:-8], "big", signed=True))


def _end_start(session: _Session) -> tuple[int, int]:
    """The cached store's merged order of one key's sessions: by end, then start."""
    return session[2], session[1]
