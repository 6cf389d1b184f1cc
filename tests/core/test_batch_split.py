"""A chunk split where a record cache flushes mid-run (``kslab.core.bulk.split``), exactly.

An engine committing on an interval (the live runtime; here ``IntervalPort`` over a driver's
task) leaves a count's puts dirty in its record cache. The cache holds three entries (each
65 bytes: key ``Kn`` 2 + node 24 + entry 21 + timestamp 8 + count 8 + topic ``in`` 2; budget
200 bytes). Chunk one, ``K1 K2 K3``, fills it with dirty entries. In chunk two, ``K1`` hits;
``K4``'s put evicts ``K2``, dirty, so the namespace flushes as Kafka's ``NamedCache.evict``
does: the evicted ``K2`` first, then the other dirty entries in the order of their last write
(``K3``, ``K1``, and ``K4`` itself, put before the eviction), each written to the store and
forwarded. ``K5`` evicts ``K3`` (clean now); ``K2`` misses, is read back from the store
(clean, evicting ``K1``) and overwritten. The commit flushes ``K5`` then ``K2``. The chunk
runs as ``K1`` in batch, ``K4`` on the record path, ``K5 K2`` in batch again, and leaves every
observable as the record path does.
"""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab import serdes
from kslab.core.bulk import BulkExecutor
from kslab.core.bulk.split import run_split
from tests.core.test_batch_interval_commits import IntervalPort
from tests.testing.driver_observables import state

S, L = serdes.String(), serdes.Long()


def _driver(cache_bytes: int = 200) -> ks.TopologyTestDriver:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S))
     .group_by_key()
     .count(ks.Materialized.as_("counts"))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    return ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": False,
                                             "statestore.cache.max.bytes": cache_bytes})


def _rows(keys: list[str], first: int) -> list[tuple[Any, ...]]:
    return [(k.encode(), b"v", None, 100 + first + i, 0) for i, k in enumerate(keys)]


def _run(chunks: list[list[str]], batched: bool, cache_bytes: int = 200
         ) -> tuple[ks.TopologyTestDriver, list[int], BulkExecutor]:
    """Each chunk through ``run_split`` (``batched``) or the task's record loop, no commit
    between them; how many rows of each ran in batch."""
    driver = _driver(cache_bytes)
    task = driver.tasks[next(iter(driver.tasks))]
    queue = task.queue_for("in", 0)
    executor = BulkExecutor(IntervalPort(driver))
    ran, offset = [], 0
    for keys in chunks:
        rows = _rows(keys, offset)
        if batched:
            columns = tuple(map(list, zip(*rows, strict=True)))
            ran.append(run_split(executor, task, "in", columns,
                                 lambda start, end, first=offset, rows=rows: task.process_rows(
                                     queue, first + start, rows[start:end]),
                                 list(range(offset, offset + len(rows)))))
        else:
            task.process_rows(queue, offset, rows)
        offset += len(rows)
    return driver, ran, executor


def _out(driver: ks.TopologyTestDriver) -> list[tuple[str, int]]:
    return [(kv.key, kv.value)
            for kv in driver.create_output_topic("out", S, L).read_key_values_to_list()]


def test_a_flush_mid_chunk_splits_it_and_every_observable_is_the_record_paths() -> None:
    chunks = [["K1", "K2", "K3"], ["K1", "K4", "K5", "K2"]]
    batched, ran, executor = _run(chunks, True)
    by_record, _, _ = _run(chunks, False)
    with batched, by_record:
        assert ran == [3, 3]  # chunk two: K1, then (K4 on the record path) K5 K2
        assert (executor.chunks, executor.declined) == (3, 1)
        assert state(batched) == state(by_record)
        counts = batched.tasks[next(iter(batched.tasks))].stores["counts"]
        cache = counts.thread_cache
        # internal on purpose: the store's namespace in the thread cache
        named = cache.named_cache(counts._namespace)
        assert named.lru_keys() == [b"K4", b"K5", b"K2"]
        assert named.dirty_keys() == [b"K5", b"K2"]
        assert (cache.puts, cache.gets, cache.evicts, cache.size_bytes()) == (8, 7, 3, 195)
        assert (named.hits, named.misses, named.overwrites) == (1, 6, 2)
        assert _out(batched) == [("K2", 1), ("K3", 1), ("K1", 2), ("K4", 1)] \
            == _out(by_record)
        for driver in (batched, by_record):
            driver.tasks[next(iter(driver.tasks))].commit()
        assert _out(batched) == [("K5", 1), ("K2", 2)] == _out(by_record)
        assert [(kv.key, kv.value) for kv in counts.plain_view().all()] == [
            ("K1", 2), ("K2", 2), ("K3", 1), ("K4", 1), ("K5", 1)]
        assert state(batched) == state(by_record)


def test_a_cache_full_of_dirty_entries_splits_at_the_first_row() -> None:
    """The chunk's first put evicts a dirty entry: that row on the record path (the flush),
    the rest in batch on a clean cache."""
    chunks = [["K1", "K2", "K3"], ["K4", "K5", "K6", "K1"]]
    batched, ran, executor = _run(chunks, True)
    by_record, _, _ = _run(chunks, False)
    with batched, by_record:
        assert ran == [3, 3]
        assert (executor.chunks, executor.declined) == (2, 1)
        assert state(batched) == state(by_record)
        assert _out(batched) == [("K1", 1), ("K2", 1), ("K3", 1), ("K4", 1)] \
            == _out(by_record)


def test_a_cache_smaller_than_one_entry_gives_up_splitting() -> None:
    """60 bytes: every put evicts its own dirty entry; after one split that gains no row in
    batch, the rest of the chunk goes record by record."""
    chunks = [["K1", "K2", "K1", "K3"]]
    batched, ran, executor = _run(chunks, True, cache_bytes=60)
    by_record, _, _ = _run(chunks, False, cache_bytes=60)
    with batched, by_record:
        assert ran == [0]
        assert (executor.chunks, executor.declined) == (0, 2)
        assert state(batched) == state(by_record)
        assert _out(batched) == [("K1", 1), ("K2", 1), ("K1", 2), ("K3", 1)]
