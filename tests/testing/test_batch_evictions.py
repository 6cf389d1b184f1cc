"""A full record cache in a batch run: evictions worked out at once, exact on both paths.

A count per key over a stream, its record cache holding three entries (each 65 bytes: key
``Kn`` 2 + node 24 + entry 21 + timestamp 8 + count 8 + topic ``in`` 2; budget 200 bytes):
every put of a fourth key evicts the least recently used one, clean (each record's commit
flushed it), and a later get of an evicted key misses and reads it back from the store. The
driver runs the chunk in batch (``kslab.state.held_evictions``) and leaves the outputs, the
store, the changelog and the cache (entries, LRU order, counters, size) as the record path.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state

S, L = serdes.String(), serdes.Long()


def _count(store: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S))
     .group_by_key()
     .count(ks.Materialized.as_("counts").with_store_type(store))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return b.build()


def _run(keys: list[str], bulk: bool, store: str = "in_memory",
         cache_bytes: int = 200, partitions: int = 1, chunk: int | None = None
         ) -> tuple[ks.TopologyTestDriver, Any, list[tuple[str, int]]]:
    driver = ks.TopologyTestDriver(_count(store), {"kslab.driver.bulk": bulk,
                                                   "statestore.cache.max.bytes": cache_bytes},
                                   **({"partitions": {"in": partitions, "out": partitions}}
                                      if partitions > 1 else {}))
    topic = driver.create_input_topic("in", S, S)
    pairs = [(k, "v") for k in keys]
    for start in range(0, len(pairs), chunk or len(pairs) or 1):
        topic.pipe_key_value_list(pairs[start:start + (chunk or len(pairs))])
    out = driver.create_output_topic("out", S, L).read_key_values_to_list()
    counts = driver.tasks[next(iter(driver.tasks))].stores["counts"]
    return driver, counts, [(kv.key, kv.value) for kv in out]


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("bulk", [True, False])
def test_a_full_cache_evicts_and_reads_back_exactly(bulk: bool, store: str) -> None:
    """K1 K2 K3 fill the cache; K4 evicts K1; K1 misses, is read back (63 bytes: no topic)
    evicting K2, then its put overwrites it; K5 evicts K3."""
    driver, counts, out = _run(["K1", "K2", "K3", "K4", "K1", "K5"], bulk, store)
    with driver:
        assert out == [("K1", 1), ("K2", 1), ("K3", 1), ("K4", 1), ("K1", 2), ("K5", 1)]
        if bulk:
            assert driver.bulk_stats() == {"chunks": 1, "declined": 0}
        cache = counts.thread_cache
        # internal on purpose: the store's namespace in the thread cache
        named = cache.named_cache(counts._namespace)
        assert named.lru_keys() == [b"K4", b"K1", b"K5"]
        assert (cache.puts, cache.gets, cache.evicts, cache.size_bytes()) == (7, 6, 3, 195)
        assert (named.hits, named.misses, named.overwrites) == (0, 6, 1)
        assert named.dirty_keys() == []
        assert [(kv.key, kv.value) for kv in counts.plain_view().all()] == [
            ("K1", 2), ("K2", 1), ("K3", 1), ("K4", 1), ("K5", 1)]


def test_hits_move_a_key_away_from_eviction() -> None:
    """K1 read again before the cache fills stays; K2, the least recently used, goes."""
    driver, counts, out = _run(["K1", "K2", "K3", "K1", "K4", "K5"], True)
    with driver:
        assert out == [("K1", 1), ("K2", 1), ("K3", 1), ("K1", 2), ("K4", 1), ("K5", 1)]
        assert driver.bulk_stats() == {"chunks": 1, "declined": 0}
        named = counts.thread_cache.named_cache(counts._namespace)
        assert named.lru_keys() == [b"K1", b"K4", b"K5"]
        assert (named.hits, named.misses, counts.thread_cache.evicts) == (1, 5, 2)


def test_a_cache_smaller_than_one_entry_goes_record_by_record() -> None:
    """60 bytes: each put evicts its own dirty entry, a flush before its record's commit
    that only the record path makes; the outputs are the same."""
    driver, _, out = _run(["K1", "K2", "K1"], True, cache_bytes=60)
    with driver:
        assert out == [("K1", 1), ("K2", 1), ("K1", 2)]
        assert driver.bulk_stats() == {"chunks": 0, "declined": 1}


@pytest.mark.parametrize("cache_bytes", [200, 650, 2000])
def test_many_keys_match_the_record_path(cache_bytes: int) -> None:
    """400 records over 60 keys, skewed: every observable of the two paths equal."""
    keys = [f"K{(i * i + 7 * i) % 60 if i % 3 else i % 5}" for i in range(400)]
    observed = []
    for bulk in (True, False):
        driver, _, out = _run(keys, bulk, cache_bytes=cache_bytes)
        with driver:
            if bulk:  # (two chunks of the driver's size)
                assert driver.bulk_stats() == {"chunks": 2, "declined": 0}
            observed.append((out, state(driver)))
    assert observed[0] == observed[1]


@pytest.mark.parametrize(("partitions", "cache_bytes"), [(2, 200), (2, 650), (4, 650), (4, 1000),
                                                         (4, 2000)])
def test_tasks_sharing_a_full_thread_cache_match_the_record_path(partitions: int,
                                                                 cache_bytes: int) -> None:
    """Several partitions' counts, one namespace each in the driver's one thread cache, their
    puts interleaved row by row: each put evicts from its own namespace while the total is
    over the budget. The first chunk that might fill the cache is tried again (one run of it
    found the cache reserved by another), every task's puts walked together over the one
    budget from then on, and every chunk runs in batch. Every observable equals the record
    path's."""
    keys = [f"K{(i * i + 7 * i) % 60 if i % 3 else i % 5}" for i in range(600)]
    observed = []
    for bulk in (True, False):
        driver, _, out = _run(keys, bulk, cache_bytes=cache_bytes, partitions=partitions,
                              chunk=100)
        with driver:
            if bulk:
                assert driver.bulk_stats() == {"chunks": 6, "declined": 0}
            observed.append((sorted(out), state(driver)))
    assert observed[0] == observed[1]


def _windowed(bulk: bool, cache_bytes: int, hopping: bool
              ) -> tuple[list[tuple[str, int]], Any, dict[str, int], int]:
    """A windowed count per key (100 ms windows, tumbling or hopping by 50 ms with 40 ms
    grace), 300 records over 7 keys, some out of order, piped in chunks of 50."""
    windows = ks.TimeWindows.of_size_and_grace(100, 40)
    if hopping:
        windows = windows.advance_by(50)
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key().windowed_by(windows).count()
     .to_stream().map(lambda key, count: (key.key, count)).to("out", ks.Produced.with_(S, L)))
    driver = ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk,
                                               "statestore.cache.max.bytes": cache_bytes})
    topic = driver.create_input_topic("in", S, S)
    records = [ks.TestRecord(f"k{i * i % 7}", "v", timestamp=max(0, i * 3 - i % 7 * 9))
               for i in range(300)]
    for start in range(0, 300, 50):
        topic.pipe_record_list(records[start:start + 50])
    out = [(kv.key, kv.value)
           for kv in driver.create_output_topic("out", S, L).read_key_values_to_list()]
    with driver:
        cache = next(iter(driver.tasks.values())).cached_stores[0].thread_cache
        return out, state(driver), driver.bulk_stats(), cache.evicts


@pytest.mark.parametrize("hopping", [False, True])
@pytest.mark.parametrize("cache_bytes", [400, 1000, 3000])
def test_a_full_window_cache_evicts_exactly(cache_bytes: int, hopping: bool) -> None:
    """A window store's record cache filling: each chunk's fetches and puts walked over its
    LRU order (a miss reads the store, nothing read back), clean windows evicted; every
    chunk runs in batch and every observable equals the record path's."""
    batched = _windowed(True, cache_bytes, hopping)
    by_record = _windowed(False, cache_bytes, hopping)
    assert batched[2] == {"chunks": 6, "declined": 0}
    assert by_record[3] > 0  # (the cache did fill)
    assert batched[0] == by_record[0]
    assert batched[1] == by_record[1]
    assert batched[3] == by_record[3]
