"""The record cache's eviction in a batch run's form: what a run's gets and puts evict.

``ThreadCache.put`` evicts, after a put leaves the thread cache over its budget, entries of
the namespace put into from its least recently used end until the total fits; evicting a
dirty entry flushes the whole namespace first (its dirty entries written and forwarded). A
batch run (``kslab.state.held_cache``) replays a run's gets and puts at once, so it must
know what the record path's puts evicted, and how that changed the run's hits and misses.
``CacheEvictions`` walks the run's gets and puts over the namespace's LRU order by key and
size only (no entry, value or record is built), from the eldest end as the cache keeps it.

A put may be a delete (a session aggregation's remove: a ``None`` value): where the engine
commits after each consumed record, that commit's flush takes its entry out of the cache
(``NamedCache._flush``), so its bytes leave the budget before the next record's puts. A scan
that merges cached entries (a session or sliding aggregation's reads) peeks: it moves and
counts nothing, and reads from the store what an eviction took, the same bytes unless the
store has expired them; ``CacheEvictions.unseen`` finds such a read that followed an
eviction. ``walked`` runs a walk, or adds it to the chunk's shared one, and tells the run
where the record path would differ.

Invariant: where ``CacheEvictions.run`` returns True, the record path's gets and puts of the
run evict exactly ``evicted`` (clean entries only: each one's bytes are the store's, so
nothing is flushed, written or forwarded by an eviction, and a later get of an evicted key
reads it back from the store as ``get`` does), count ``evictions`` and the gets, hits, puts
and overwrites given, and leave in the cache, of the keys the run touched, only
``survivors``. Where an eviction would take a dirty entry (a flush in the middle of the run)
it returns False, with the consumed record whose get or put would flush (``flush_at``): the
engine may run the records before it in batch, that one on the record path (which flushes as
Kafka's does), and the rest in batch again (``kslab.core.bulk.split.run_split``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache, entry_size, headers_size

__all__ = ["Budget", "CacheEvictions", "SharedEvictions", "entry_header_bytes", "walked"]

# an entry's origin where no put of the run wrote it: clean before the run, dirty before it,
# read back from the store by the run (else the consumed record whose put wrote it)
_CLEAN, _DIRTY_BEFORE, _READ_BACK = -1, -2, -3


def entry_header_bytes(headers: list[Any], positions: Iterable[int]) -> list[int] | None:
    """The header bytes of the entry each update at ``positions`` writes (its record's
    headers, ``headers[position]``), or ``None`` when no record has any."""
    if not any(headers):
        return None
    sizes = list(map(headers_size, headers))
    return list(map(sizes.__getitem__, positions))


class Budget:
    """The bytes a thread cache is over its budget (``excess`` <= 0: within it) as a walk
    goes, shared by the walks of its namespaces (``SharedEvictions``)."""

    __slots__ = ("excess",)

    def __init__(self, room: int) -> None:
        self.excess = -room


class CacheEvictions:
    """A run's gets and puts on one named cache, sized, in the record path's order.

    ``before``: the keys cached when the run starts that it touches (their entry), and those
    only the store holds (``None``: a get reads them back, ``read_back[key]`` value bytes);
    a key in neither is new. ``commit_each``: the engine commits (flushes the namespace)
    after each consumed record, so a put stays dirty only until its record's commit; else
    every put of the run stays dirty (the live runtime). ``room``: the bytes the thread
    cache has left, or the ``Budget`` the walks of its other namespaces share.
    ``reads_back``: a get that misses reads a stored value back into the cache (a key-value
    store's); false for a window store's, whose misses read the store only."""

    def __init__(self, cache: ThreadCache, namespace: str, room: int | Budget,
                 before: dict[bytes, LRUCacheEntry | None], read_back: dict[bytes, int], *,
                 commit_each: bool, reads_back: bool = True) -> None:
        self._eldest = iter(cache.eldest(namespace))  # the entries before the run, eldest
        # first: evicted in this order while the run has not touched them
        self._before, self._read_back, self._commit_each = before, read_back, commit_each
        self._reads_back = reads_back
        self._budget = room if room.__class__ is Budget else Budget(room)  # type: ignore[arg-type]
        # the keys the run touched and the cache holds: [node bytes, value bytes, origin
        # of their last put, or _CLEAN, _DIRTY_BEFORE, _READ_BACK]
        self._touched: OrderedDict[bytes, list[int]] = OrderedDict()
        self._left: set[bytes] = set()  # keys of entries before the run moved or evicted
        self._stored: dict[bytes, int | None] = {}  # value bytes the store holds for a key
        # put (None: deleted)
        self._deletes: list[bytes] = []  # keys the record running put as deletes
        self.evicted: list[bytes] = []
        self.evicted_by: list[int] = []  # the update (its index among the run's) that
        # evicted each
        self._updates = 0  # the updates walked
        self.evictions = self.gets = self.hits = self.puts = self.overwrites = 0
        self.flush_at: int | None = None  # the consumed record whose eviction of a dirty
        # entry ended the walk, where one did (a lookup of a join's: none)

    @property
    def survivors(self) -> OrderedDict[bytes, list[int]]:
        """The touched keys the cache holds after the run, least recently used first."""
        return self._touched

    def read_back(self, key: bytes) -> bool:
        """True when surviving ``key``'s entry is the one its last get read back from the
        store (a key cached before the run, evicted and read back: a new clean entry)."""
        return self._touched[key][2] == _READ_BACK

    def run(self, keys: list[bytes], nodes: list[int], values: list[int | None],
            origins: list[int], *, puts_only: bool) -> bool:
        """The record path's ``get`` (unless ``puts_only``) then ``put`` of each update:
        ``keys[i]`` written as an entry of ``nodes[i]`` bytes holding ``values[i]`` value
        bytes, for consumed record ``origins[i]`` (``None``: a delete, out of the cache at
        its record's commit where the engine commits after each one). False when an eviction
        takes a dirty entry."""
        touched, budget, deletes = self._touched, self._budget, self._deletes
        last = origins[0] if origins else None
        for key, node, value, origin in zip(keys, nodes, values, origins, strict=True):
            if origin != last:
                self._committed()  # (the commit after the record before)
                last = origin
            if not puts_only and not self._get(key, origin):
                return False
            self.puts += 1
            if self._present(key):
                self.overwrites += 1
                budget.excess -= touched[key][0]
            touched[key] = [node, value, origin]
            self._stored[key] = value  # (in the store once its record commits)
            if value is None and self._commit_each:
                deletes.append(key)
            budget.excess += node
            if budget.excess > 0 and not self._evict(origin):
                return False
            self._updates += 1
        self._committed()  # (the commit after the run's last record)
        return True

    def _committed(self) -> None:
        """The commit after a consumed record: its flush takes the entries of the deletes
        it put last out of the cache (``NamedCache._flush``)."""
        deletes = self._deletes
        if not deletes:
            return
        touched, budget = self._touched, self._budget
        for key in deletes:
            held = touched.get(key)
            if held is not None and held[1] is None:  # (not put again since)
                del touched[key]
                budget.excess -= held[0]
        deletes.clear()

    def lookups(self, keys: list[bytes]) -> bool:
        """The record path's ``get`` of each of ``keys`` (a join's lookups of a table): a
        miss of a stored key reads it back, which may evict. False when an eviction takes
        a dirty entry."""
        get = self._get
        return all(get(key, _CLEAN) for key in keys)

    def _get(self, key: bytes, origin: int) -> bool:
        """``get`` of ``key`` by consumed record ``origin``; False when the read-back of a
        miss evicts a dirty entry."""
        self.gets += 1
        if self._present(key):
            self.hits += 1
            return True
        stored = self._in_store(key) if self._reads_back else None
        if stored is None:  # in neither (or a window store's): nothing read back
            return True
        self.puts += 1  # read back as a clean entry: a put of its own
        size = len(key) + NODE_OVERHEAD + entry_size(stored, None, 0)  # (no context)
        self._touched[key] = [size, stored, _READ_BACK]
        budget = self._budget
        budget.excess += size
        return budget.excess <= 0 or self._evict(origin)

    def _present(self, key: bytes) -> bool:
        """True when the cache holds ``key`` now, then its most recently used entry."""
        touched = self._touched
        if key in touched:
            touched.move_to_end(key)
            return True
        entry = self._before.get(key)
        if entry is None or key in self._left:
            return False
        self._left.add(key)  # (moved to the most recently used end)
        value = entry.value
        touched[key] = [len(key) + NODE_OVERHEAD + entry.size,
                        0 if value is None else len(value),
                        _DIRTY_BEFORE if entry.is_dirty else _CLEAN]
        return True

    def _in_store(self, key: bytes) -> int | None:
        """The value bytes the store holds for ``key`` (``None``: none) as a get misses."""
        stored = self._stored
        if key in stored:  # put by the run, committed, then evicted (or deleted)
            return stored[key]
        entry = self._before.get(key)
        if entry is not None:  # cached before the run (clean), evicted since
            return None if entry.value is None else len(entry.value)
        return self._read_back.get(key)

    def _evict(self, origin: int) -> bool:
        """Evict from the eldest end until the cache fits (or the namespace is empty);
        False, noting ``origin`` (the consumed record running) as ``flush_at``, when the next
        to go is dirty."""
        left, touched, budget = self._left, self._touched, self._budget
        while budget.excess > 0:
            for key, entry in self._eldest:  # untouched entries from before the run
                if key in left:
                    continue
                if entry.is_dirty:
                    return self._flushes(origin)
                left.add(key)
                self._evicted(key, len(key) + NODE_OVERHEAD + entry.size)
                break
            else:
                if not touched:
                    return True  # (the record path stops there too)
                key, (size, _, put) = next(iter(touched.items()))
                if put == _DIRTY_BEFORE or (put >= 0 and (
                        put == origin or not self._commit_each)):
                    return self._flushes(origin)
                del touched[key]
                self._evicted(key, size)
        return True

    def _flushes(self, origin: int) -> bool:
        """False: consumed record ``origin`` (none where negative: a join's lookup) would
        evict a dirty entry, flushing the namespace."""
        if origin >= 0:
            self.flush_at = origin
        return False

    def unseen(self, reads: list[tuple[bytes, int, int]], keys: list[bytes]) -> int | None:
        """The consumed record of the first of ``reads`` that would not find its key cached
        on the record path, if one would not: ``(cache key, n, origin)``, a peek at the key
        (a scan merging cached entries) by consumed record ``origin`` after the run's first
        ``n`` updates, misses where an update before it evicted the key and none put it
        again since (``keys``: each update's key, as ``run`` walked them)."""
        evicted: dict[bytes, list[int]] = {}
        for key, update in zip(self.evicted, self.evicted_by, strict=True):
            evicted.setdefault(key, []).append(update)
        reads = [read for read in reads if read[0] in evicted]
        if not reads:
            return None
        puts: dict[bytes, list[int]] = {}
        for update, key in enumerate(keys):
            if key in evicted:
                puts.setdefault(key, []).append(update)
        for key, n, origin in reads:
            last = max((update for update in evicted[key] if update < n), default=None)
            if last is not None and not any(last < put < n for put in puts.get(key, ())):
                return origin
        return None

    def _evicted(self, key: bytes, size: int) -> None:
        self.evicted.append(key)
        self.evicted_by.append(self._updates)
        self.evictions += 1
        self._budget.excess -= size


class SharedEvictions:
    """The runs of several namespaces of one thread cache (the tasks of one chunk, each with
    its own record cache) walked as the record path interleaves them: each update by its
    sort key (its consumed record's place among the chunk's), the thread cache's one budget
    shared (``Budget``), each put evicting from its own namespace while the total is over
    (``ThreadCache.put``). ``add`` holds a run; ``walk`` walks them all at once."""

    def __init__(self, room: int) -> None:
        self.budget = Budget(room)
        self._runs: list[tuple[CacheEvictions, tuple[list[Any], ...], bool]] = []

    def add(self, evictions: CacheEvictions, keys: list[bytes], nodes: list[int],
            values: list[int | None], origins: list[int], places: list[int], *,
            puts_only: bool) -> None:
        """``evictions.run(keys, nodes, values, origins)``, its updates at sort keys
        ``places`` (non-decreasing), to walk with the others (``evictions`` made with
        ``budget``)."""
        self._runs.append((evictions, (keys, nodes, values, origins, places), puts_only))

    def walk(self) -> bool:
        """Walk every run's updates in sort key order (stable: a run's own in its order);
        False when one would evict a dirty entry, or when the order is not known: a run's
        sort keys fall, or two runs share one (two caches written by one record)."""
        import numpy as np  # (only a shared walk needs it)

        runs = self._runs
        if not runs:
            return True
        if len(runs) == 1:
            evictions, columns, puts_only = runs[0]
            return evictions.run(*columns[:4], puts_only=puts_only)
        places = np.concatenate([np.asarray(columns[4], np.int64) for _, columns, _ in runs])
        if not len(places):
            return True
        owner = np.repeat(np.arange(len(runs)), [len(columns[0]) for _, columns, _ in runs])
        order = np.argsort(places, kind="stable")
        owners = owner[order]
        ordered = places[order]
        tie = (ordered[1:] == ordered[:-1]) & (owners[1:] != owners[:-1])
        if bool(tie.any()) or any(bool((np.diff(np.asarray(columns[4], np.int64)) < 0).any())
                                  for _, columns, _ in runs):
            return False
        starts = np.r_[0, np.cumsum([len(columns[0]) for _, columns, _ in runs])]
        cuts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]]).tolist()
        owners_at = owners[cuts].tolist()
        firsts = (order[cuts] - starts[owners[cuts]]).tolist()
        ends = [*cuts[1:], len(order)]
        for number, first, begin, end in zip(owners_at, firsts, cuts, ends, strict=True):
            evictions, columns, puts_only = runs[number]
            last = first + end - begin
            if not evictions.run(*(column[first:last] for column in columns[:4]),
                                 puts_only=puts_only):
                return False
        return True


def walked(evictions: CacheEvictions, run: Any, shared: SharedEvictions | None,
           columns: tuple[list[bytes], list[int], list[Any], list[int]], *, puts_only: bool,
           reads: list[tuple[bytes, int, int]] | None = None) -> bool:
    """Walk a run's updates (``columns``: keys, nodes, values, origins, as
    ``CacheEvictions.run`` takes them) now, or add them to the chunk's ``shared`` walk (at
    the end of phase one); False where the record path's gets and puts would differ from the
    run's: an eviction of a dirty entry, or one before a read of ``reads`` (``unseen``: the
    run's peeks a cache alone answered; none where shared). The consumed record where that
    happens is told to the run (``BatchRun.flushes_at``: the engine may split the chunk
    there)."""
    if shared is not None:
        shared.add(evictions, *columns, run.places(columns[3]), puts_only=puts_only)
        return True
    if not evictions.run(*columns, puts_only=puts_only):
        if evictions.flush_at is not None:
            run.flushes_at(evictions.flush_at)
        return False
    missed = evictions.unseen(reads, columns[0]) if reads else None
    if missed is not None:  # that record on the record path
        run.flushes_at(missed)
        return False
    return True
