"""``CacheEvictions`` against the ``ThreadCache`` itself: the same evictions, counters, entries.

Each case runs a sequence of updates (a get, unless puts only, then a put) twice: through a
real ``ThreadCache`` with a store behind it (a get that misses reads the stored bytes back
as a clean entry, a commit flushes the namespace into the store), and through
``CacheEvictions``, which must agree on every eviction, counter and surviving key, or say it
cannot (an eviction of a dirty entry) exactly when the real cache flushes on eviction.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kslab.state.cache import NODE_OVERHEAD, LRUCacheEntry, ThreadCache
from kslab.state.held_evictions import CacheEvictions, SharedEvictions

NS = "0_0-counts"
TOPIC = "in"


def _cache(budget: int, before: list[tuple[bytes, int, bool]],
           store: dict[bytes, bytes]) -> tuple[ThreadCache, list[int]]:
    """A thread cache of ``budget`` bytes holding ``before`` (key, value bytes, dirty), its
    flushes written to ``store``; and a counter of the evictions that flushed."""
    cache = ThreadCache(budget)
    flushed = [0]

    def listener(entries: list[Any]) -> None:
        flushed[0] += 1
        for dirty in entries:
            store[dirty.key] = dirty.new_value

    cache.add_dirty_entry_flush_listener(NS, listener)
    for key, size, dirty in before:
        cache.put(NS, key, LRUCacheEntry(b"v" * size, None, dirty, 0, 0, 0, TOPIC))
        if not dirty:
            store[key] = b"v" * size
    flushed[0] = 0
    return cache, flushed


def _record_path(cache: ThreadCache, store: dict[bytes, bytes], updates: list[Any],
                 commit_each: bool, puts_only: bool, flushed: list[int],
                 gets_only: bool = False) -> None:
    """The record path's gets and puts; ``flushed`` counts the flushes evictions made."""
    last = None
    for key, size, origin in updates:
        if commit_each and last is not None and origin != last:
            _commit(cache, NS, flushed)
        last = origin
        if not puts_only and cache.get(NS, key) is None and key in store:
            cache.put(NS, key, LRUCacheEntry(store[key]))  # read back, clean
        if not gets_only:
            cache.put(NS, key, LRUCacheEntry(b"w" * size, None, True, 0, 0, 0, TOPIC))


def _commit(cache: ThreadCache, namespace: str, flushed: list[int]) -> None:
    """A commit's flush of ``namespace``, not counted in ``flushed`` (the flushes that
    evictions made)."""
    by_evictions = flushed[0]
    cache.flush(namespace)
    flushed[0] = by_evictions


def _batch_form(cache: ThreadCache, store: dict[bytes, bytes], updates: list[Any],
                commit_each: bool, puts_only: bool, gets_only: bool = False
                ) -> CacheEvictions | None:
    before: dict[bytes, LRUCacheEntry | None] = {}
    read_back: dict[bytes, int] = {}
    for key, _, _ in updates:
        entry = cache.peek(NS, key)
        if entry is not None:
            before[key] = entry
        elif key in store and not puts_only:
            before[key] = None
            read_back[key] = len(store[key])
    keys = [key for key, _, _ in updates]
    values = [size for _, size, _ in updates]
    nodes = [len(key) + NODE_OVERHEAD + 21 + size + len(TOPIC) for key, size, _ in updates]
    evictions = CacheEvictions(cache, NS, cache.max_cache_size_bytes - cache.size_bytes(),
                               before, read_back, commit_each=commit_each)
    ok = evictions.lookups(keys) if gets_only else evictions.run(
        keys, nodes, values, [origin for _, _, origin in updates], puts_only=puts_only)
    return evictions if ok else None


def test_live_run_evicts_the_clean_entries_before_it() -> None:
    """Committing on an interval: every put of the run stays dirty, so the run may evict
    only the clean entries from before it, eldest first (60 + 2 bytes a node here)."""
    store: dict[bytes, bytes] = {}
    cache, _ = _cache(200, [(b"a", 10, False), (b"b", 10, False), (b"c", 10, False)], store)
    assert cache.size_bytes() == 3 * (1 + 24 + 21 + 10 + 2)
    updates = [(b"d", 10, 0), (b"e", 10, 1)]
    evictions = _batch_form(cache, store, updates, False, True)
    assert evictions is not None
    assert evictions.evicted == [b"a", b"b"] and evictions.evictions == 2
    assert list(evictions.survivors) == [b"d", b"e"]
    assert (evictions.puts, evictions.overwrites) == (2, 0)


def test_live_run_reaching_a_dirty_entry_cannot() -> None:
    store: dict[bytes, bytes] = {}
    cache, _ = _cache(200, [(b"a", 10, False), (b"b", 10, True), (b"c", 10, False)], store)
    assert _batch_form(cache, store, [(b"d", 10, 0), (b"e", 10, 1)], False, True) is None


def test_a_put_evicting_its_own_record_s_entry_cannot() -> None:
    """A cache smaller than one entry: the put evicts itself, dirty (a flush mid-record)."""
    store: dict[bytes, bytes] = {}
    cache, _ = _cache(50, [], store)
    assert _batch_form(cache, store, [(b"a", 10, 0)], True, False) is None


@settings(max_examples=300, deadline=None)
@given(budget=st.integers(0, 600),
       before=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"d"]),
                                 st.integers(0, 30), st.booleans()), max_size=4),
       updates=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"d", b"e", b"ff",
                                                   b"g", b"hhh"]),
                                  st.integers(0, 40), st.integers(0, 3)), max_size=30),
       commit_each=st.booleans(), mode=st.sampled_from(["get, put", "put", "get"]))
def test_matches_the_thread_cache(budget: int, before: list[Any], updates: list[Any],
                                  commit_each: bool, mode: str) -> None:
    """Gets then puts (an aggregation), puts only (a table), gets only (a join's reads)."""
    puts_only, gets_only = mode == "put", mode == "get"
    updates = sorted(updates, key=lambda update: update[2])  # consumed records in order
    before = list({key: (key, size, dirty) for key, size, dirty in before}.values())
    if commit_each:  # the engine's commit left nothing dirty before the run
        before = [(key, size, False) for key, size, _ in before]
    store: dict[bytes, bytes] = {}
    cache, flushed = _cache(budget, before, store)
    start = (cache.puts, cache.gets, cache.evicts)
    named = cache.named_cache(NS)
    assert named is not None
    counts = (named.hits, named.misses, named.overwrites)
    evictions = _batch_form(cache, store, updates, commit_each, puts_only, gets_only)
    _record_path(cache, store, updates, commit_each, puts_only, flushed, gets_only)
    if evictions is None:  # an eviction flushed in the middle of the run
        assert flushed[0] > 0
        return
    assert flushed[0] == 0
    assert cache.evicts - start[2] == evictions.evictions
    assert (cache.puts - start[0], cache.gets - start[1]) == (evictions.puts, evictions.gets)
    assert (named.hits - counts[0], named.misses - counts[1],
            named.overwrites - counts[2]) == (evictions.hits, evictions.gets - evictions.hits,
                                              evictions.overwrites)
    touched = set(evictions.survivors) | {key for key, _, _ in updates}
    assert [key for key in named.lru_keys() if key in touched] == list(evictions.survivors)
    untouched_evicted = {key for key in evictions.evicted if key not in touched}
    assert not untouched_evicted & set(named.lru_keys())


def test_a_live_run_reaching_a_dirty_entry_says_at_which_record() -> None:
    """``flush_at``: the consumed record whose put reaches the dirty entry (here ``e``'s,
    record 2, after ``d`` took the clean ``a``)."""
    store: dict[bytes, bytes] = {}
    cache, _ = _cache(200, [(b"a", 10, False), (b"b", 10, True), (b"c", 10, False)], store)
    evictions = CacheEvictions(cache, NS, cache.max_cache_size_bytes - cache.size_bytes(),
                               {}, {}, commit_each=False)
    nodes = [1 + NODE_OVERHEAD + 21 + 10 + len(TOPIC)] * 2
    assert not evictions.run([b"d", b"e"], nodes, [10, 10], [1, 2], puts_only=True)
    assert (evictions.flush_at, evictions.evicted) == (2, [b"a"])


NAMESPACES = ("0_0-counts", "0_1-counts")


@settings(max_examples=300, deadline=None)
@given(budget=st.integers(0, 500),
       records=st.lists(st.tuples(st.integers(0, 1), st.lists(st.tuples(
           st.sampled_from([b"a", b"b", b"c", b"dd", b"e"]), st.integers(0, 30)),
           min_size=1, max_size=3)), max_size=20))
def test_shared_walks_match_a_thread_cache_of_two_namespaces(budget: int,
                                                             records: list[Any]) -> None:
    """Two tasks' counts in one thread cache, each committing after each of its records
    (the driver with ``partitions=``), their records interleaved: ``SharedEvictions``
    evicts per namespace over the one budget as ``ThreadCache.put`` does, or says it cannot
    exactly when the record path flushes on an eviction."""
    cache = ThreadCache(budget)
    stores: list[dict[bytes, bytes]] = [{}, {}]
    flushed = [0]
    for namespace, store in zip(NAMESPACES, stores, strict=True):
        def listener(entries: list[Any], store: dict[bytes, bytes] = store) -> None:
            flushed[0] += 1
            for dirty in entries:
                store[dirty.key] = dirty.new_value
        cache.add_dirty_entry_flush_listener(namespace, listener)
    shared = SharedEvictions(budget)
    walks = [CacheEvictions(cache, namespace, shared.budget, {}, {}, commit_each=True)
             for namespace in NAMESPACES]
    columns: list[tuple[list[Any], ...]] = [([], [], [], [], []), ([], [], [], [], [])]
    counters = [0, 0]
    for place, (task, updates) in enumerate(records):
        origin = counters[task]
        counters[task] += 1
        for key, size in updates:
            for column, item in zip(columns[task], (
                    key, len(key) + NODE_OVERHEAD + 21 + size + len(TOPIC), size, origin,
                    place), strict=True):
                column.append(item)
    for walk, (keys, nodes, values, origins, places) in zip(walks, columns, strict=True):
        shared.add(walk, keys, nodes, values, origins, places, puts_only=False)
    ok = shared.walk()
    for task, updates in records:  # the record path: get, read back, put; then the commit
        namespace, store = NAMESPACES[task], stores[task]
        for key, size in updates:
            if cache.get(namespace, key) is None and key in store:
                cache.put(namespace, key, LRUCacheEntry(store[key]))
            cache.put(namespace, key, LRUCacheEntry(b"w" * size, None, True, 0, 0, 0, TOPIC))
        _commit(cache, namespace, flushed)
    if not ok:
        assert flushed[0] > 0
        return
    assert flushed[0] == 0
    assert cache.evicts == sum(walk.evictions for walk in walks)
    for walk, namespace in zip(walks, NAMESPACES, strict=True):
        named = cache.named_cache(namespace)
        assert named.lru_keys() == list(walk.survivors)
        assert (named.hits, named.misses, named.overwrites) == (
            walk.hits, walk.gets - walk.hits, walk.overwrites)


@settings(max_examples=300, deadline=None)
@given(budget=st.integers(0, 600),
       before=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"d"]),
                                 st.integers(0, 30)), max_size=4),
       updates=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"dd", b"e"]),
                                  st.one_of(st.none(), st.integers(0, 40)),
                                  st.integers(0, 5)), max_size=30))
def test_deletes_leave_at_their_record_s_commit(budget: int, before: list[Any],
                                                updates: list[Any]) -> None:
    """Puts only, some of them deletes (a ``None`` entry: a session aggregation's removes),
    each consumed record committed after its puts: the commit's flush takes a delete's entry
    out of the cache. ``CacheEvictions`` agrees with a real ``ThreadCache`` on every
    eviction, counter and surviving key, or says it cannot exactly when the cache flushes on
    an eviction."""
    updates = sorted(updates, key=lambda update: update[2])
    before = list({key: (key, size, False) for key, size in before}.values())
    store: dict[bytes, bytes] = {}
    cache, flushed = _cache(budget, before, store)
    named = cache.named_cache(NS)
    assert named is not None
    start = (cache.puts, cache.evicts, named.overwrites)
    entries = {key: cache.peek(NS, key) for key, _, _ in updates}
    evictions = CacheEvictions(cache, NS, budget - cache.size_bytes(),
                               {key: entry for key, entry in entries.items() if entry},
                               {}, commit_each=True, reads_back=False)
    ok = evictions.run([key for key, _, _ in updates],
                       [len(key) + NODE_OVERHEAD + 21 + (size or 0) + len(TOPIC)
                        for key, size, _ in updates],
                       [size for _, size, _ in updates],
                       [origin for _, _, origin in updates], puts_only=True)
    last = None
    for key, size, origin in updates:  # the record path: puts, a commit after each record
        if last is not None and origin != last:
            _commit(cache, NS, flushed)
        last = origin
        cache.put(NS, key, LRUCacheEntry(None if size is None else b"w" * size, None, True,
                                         0, 0, 0, TOPIC))
    _commit(cache, NS, flushed)
    if not ok:
        assert flushed[0] > 0
        return
    assert flushed[0] == 0
    assert (cache.puts - start[0], cache.evicts - start[1], named.overwrites - start[2]) == (
        evictions.puts, evictions.evictions, evictions.overwrites)
    touched = {key for key, _, _ in updates}
    assert [key for key in named.lru_keys() if key in touched] == list(evictions.survivors)


def test_a_read_after_an_eviction_is_unseen_until_the_key_is_put_again() -> None:
    """``unseen``: ``a`` (clean, before the run) evicted by the third update (``d``'s put,
    index 2); a peek at ``a`` after three updates misses it (its record, 7, is named), one
    after two updates, or after ``a`` is put again (the fourth update), finds it."""
    store: dict[bytes, bytes] = {}
    cache, _ = _cache(3 * 58, [(b"a", 10, False), (b"b", 10, False)], store)
    before = {key: cache.peek(NS, key) for key in (b"a", b"b")}
    evictions = CacheEvictions(cache, NS, cache.max_cache_size_bytes - cache.size_bytes(),
                               before, {}, commit_each=True, reads_back=False)  # type: ignore[arg-type]
    keys = [b"b", b"c", b"d", b"a"]
    nodes = [1 + NODE_OVERHEAD + 21 + 10 + len(TOPIC)] * 4
    assert evictions.run(keys, nodes, [10] * 4, [0, 1, 2, 3], puts_only=True)
    assert (evictions.evicted, evictions.evicted_by) == ([b"a", b"b"], [2, 3])
    assert list(evictions.survivors) == [b"c", b"d", b"a"]
    assert evictions.unseen([(b"a", 2, 5)], keys) is None
    assert evictions.unseen([(b"a", 2, 6), (b"a", 3, 7), (b"a", 3, 8)], keys) == 7
    assert evictions.unseen([(b"a", 4, 9)], keys) is None
