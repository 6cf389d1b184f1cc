"""A full session or sliding-window record cache in a batch run: evictions worked out at once.

A session count's cache entry is 81 bytes (cache key: segment 8 + key ``Kn`` 2 + end and start
16; node 24; entry 21 + count 8 + topic ``in`` 2), a remove's ``None`` entry 73; a sliding
count's window 85 (cache key: segment 8 + key 2 + start and sequence number 12; node 24; entry
21 + timestamp and count 16 + topic 2). With three entries' room, a put of a fourth evicts the
least recently used one, clean (each record's commit flushed it); a remove's entry leaves the
cache at its record's commit. The driver runs the chunk in batch
(``kslab.state.held_evictions``) and leaves the outputs, the store, the changelog and the
cache (entries, LRU order, counters, size) as the record path does. A read the cache answers
alone (a session the store has expired) that an eviction before it would hide goes to the
record path.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.state.session import session_key
from kslab.state.window import window_key
from tests.testing.driver_observables import state

S, L = serdes.String(), serdes.Long()


def _topology(windows: Any) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key().windowed_by(windows)
     .count(ks.Materialized.as_("counts"))
     .to_stream()
     .map(lambda wk, n: (wk.key, f"[{wk.window.start},{wk.window.end}]={n}"))
     .to("out", ks.Produced.with_(S, S)))
    return b.build()


def _run(windows: Any, records: list[tuple[str, int]], bulk: bool, cache_bytes: int
         ) -> tuple[ks.TopologyTestDriver, Any, list[tuple[str, str]]]:
    driver = ks.TopologyTestDriver(_topology(windows), {"kslab.driver.bulk": bulk,
                                                        "statestore.cache.max.bytes": cache_bytes})
    topic = driver.create_input_topic("in", S, S)
    topic.pipe_record_list([ks.TestRecord(key, "v", timestamp=ts) for key, ts in records])
    out = driver.create_output_topic("out", S, S).read_key_values_to_list()
    store = driver.tasks[next(iter(driver.tasks))].stores["counts"]
    return driver, store, [(kv.key, kv.value) for kv in out]


def _cache(store: Any) -> tuple[Any, Any]:
    cache = store.thread_cache
    return cache, cache.named_cache(store._namespace)  # internal on purpose: the namespace


_SESSIONS = ks.SessionWindows.of_inactivity_gap_and_grace(10, 1000)
_SESSION_RECORDS = [("K1", 0), ("K2", 100), ("K3", 200), ("K4", 300), ("K2", 105), ("K1", 5)]


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "record"])
def test_a_full_session_cache_evicts_exactly(bulk: bool) -> None:
    """K4's put evicts K1's session; K2's second record removes its session (a 73-byte
    ``None`` entry over the 81-byte one) and puts the merged one, evicting K3's, then its
    commit drops the remove's entry; K1's late record finds its evicted session in the store,
    merges it and evicts K4's. The outputs are each commit's flush."""
    driver, store, out = _run(_SESSIONS, _SESSION_RECORDS, bulk, 250)
    with driver:
        assert out == [("K1", "[0,0]=1"), ("K2", "[100,100]=1"), ("K3", "[200,200]=1"),
                       ("K4", "[300,300]=1"), ("K2", "[100,100]=None"), ("K2", "[100,105]=2"),
                       ("K1", "[0,0]=None"), ("K1", "[0,5]=2")]
        if bulk:
            assert driver.bulk_stats() == {"chunks": 1, "declined": 0}
        cache, named = _cache(store)
        segment = bytes(8)
        assert named.lru_keys() == [segment + session_key(b"K2", 100, 105),
                                    segment + session_key(b"K1", 0, 5)]
        assert (cache.puts, cache.gets, cache.evicts, cache.size_bytes()) == (8, 0, 3, 162)
        assert (named.hits, named.misses, named.overwrites) == (0, 0, 1)
        assert named.dirty_keys() == []


def test_a_read_only_the_cache_answers_goes_record_by_record(
        caplog: pytest.LogCaptureFixture) -> None:
    """No grace: the store keeps a session 10 ms past its end, the cache longer. K1's late
    record reads K1's session at [0,0] where only the cache held it; K4's put evicted it
    before, so the record path finds nothing (the late record's own session, [5,5], is
    closed); the batch run, which would still see it, declines and the chunk goes record by
    record. With a cache that evicts nothing, the read finds it ([0,5]) in batch too."""
    caplog.set_level(logging.WARNING)
    windows = ks.SessionWindows.of_inactivity_gap_with_no_grace(10)
    records = [("K1", 0), ("K2", 100), ("K3", 200), ("K4", 300), ("K1", 5)]
    warnings = []
    for cache_bytes, declined in ((250, 1), (10_000, 0)):
        caplog.clear()
        driver, _, out = _run(windows, records, True, cache_bytes)
        with driver:
            assert out == [("K1", "[0,0]=1"), ("K2", "[100,100]=1"), ("K3", "[200,200]=1"),
                           ("K4", "[300,300]=1")]
            assert driver.bulk_stats() == {"chunks": 1 - declined, "declined": declined}
        warnings.append([r.getMessage() for r in caplog.records
                         if "expired window" in r.getMessage()])
    assert ["[5,5]" in message for message in warnings[0]] == [True]
    assert ["[0,5]" in message for message in warnings[1]] == [True]


_SLIDING = ks.SlidingWindows.of_time_difference_and_grace(10, 1000)
_SLIDING_RECORDS = [("K1", 100), ("K2", 200), ("K3", 300), ("K4", 400), ("K1", 105)]


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "record"])
def test_a_full_sliding_window_cache_evicts_exactly(bulk: bool) -> None:
    """Each key's left window takes an entry; K4's evicts K1's. K1's second record reads its
    window [90,100] from the store (evicted from the cache: the same), then creates the
    earlier record's right window [101,111] and its own left window [95,105], evicting K2's
    and K3's."""
    driver, store, out = _run(_SLIDING, _SLIDING_RECORDS, bulk, 260)
    with driver:
        assert out == [("K1", "[90,100]=1"), ("K2", "[190,200]=1"), ("K3", "[290,300]=1"),
                       ("K4", "[390,400]=1"), ("K1", "[101,111]=1"), ("K1", "[95,105]=2")]
        if bulk:
            assert driver.bulk_stats() == {"chunks": 1, "declined": 0}
        cache, named = _cache(store)
        segment = bytes(8)
        assert named.lru_keys() == [segment + window_key(b"K4", 390),
                                    segment + window_key(b"K1", 101),
                                    segment + window_key(b"K1", 95)]
        assert (cache.puts, cache.gets, cache.evicts, cache.size_bytes()) == (6, 0, 3, 255)
        assert (named.hits, named.misses, named.overwrites) == (0, 0, 0)


def _events(n: int) -> list[tuple[str, int]]:
    """``n`` records over 40 keys, about 1 ms apart with some out of order (late ones
    too), so that sessions and windows open, merge and close."""
    return [(f"K{(i * i + 7 * i) % 40}", max(0, i * 3 - (i % 11) * 4)) for i in range(n)]


@pytest.mark.parametrize(("partitions", "cache_bytes"), [(1, 600), (1, 2000), (1, 6000),
                                                         (2, 6000), (4, 6000)])
@pytest.mark.parametrize("program", ["session", "sliding", "hopping"])
def test_many_keys_match_the_record_path(program: str, partitions: int,
                                         cache_bytes: int) -> None:
    """600 records over 40 keys in chunks of 100, the cache far smaller than the keys'
    sessions or windows: every observable of the two paths equal, the chunks in batch. On
    several partitions (one namespace per task in the driver's one thread cache) the
    tasks' puts are walked together over the one budget (``SharedEvictions``)."""
    windows = {"session": ks.SessionWindows.of_inactivity_gap_and_grace(20, 100),
               "sliding": ks.SlidingWindows.of_time_difference_and_grace(20, 100),
               "hopping": ks.TimeWindows.of_size_and_grace(40, 100).advance_by(20)}[program]
    records = _events(600)
    observed = []
    for bulk in (True, False):
        driver = ks.TopologyTestDriver(_topology(windows), {
            "kslab.driver.bulk": bulk, "statestore.cache.max.bytes": cache_bytes},
            **({"partitions": {"in": partitions, "out": partitions}} if partitions > 1
               else {}))
        topic = driver.create_input_topic("in", S, S)
        for start in range(0, 600, 100):
            topic.pipe_record_list([ks.TestRecord(key, "v", timestamp=ts)
                                    for key, ts in records[start:start + 100]])
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
        with driver:
            if bulk:
                assert driver.bulk_stats() == {"chunks": 6, "declined": 0}
            else:
                assert _cache(driver.tasks[next(iter(driver.tasks))].stores["counts"]
                              )[0].evicts > 0  # (the cache did fill)
            observed.append((sorted((kv.key, kv.value) for kv in out), state(driver)))
    assert observed[0] == observed[1]


def test_two_records_of_one_consumed_record_updating_a_session_match() -> None:
    """A ``flat_map_values`` gives two records of one key and time per consumed record: the
    second merges the first's session ([t,t] again), and the commit after the consumed
    record flushes that session once, with 2 (found by the differential test's session
    property: the batch form flushed after each record, forwarding 1 then 2). The chunk
    goes record by record; its outputs are the record path's."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).flat_map_values(lambda v: [v, v])
     .group_by_key().windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(10))
     .count(ks.Materialized.as_("counts")).to_stream()
     .map(lambda wk, n: (wk.key, f"[{wk.window.start},{wk.window.end}]={n}"))
     .to("out", ks.Produced.with_(S, S)))
    topology = b.build()
    for bulk in (True, False):
        with ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk}) as driver:
            driver.create_input_topic("in", S, S).pipe_record_list(
                [ks.TestRecord("K1", "v", timestamp=ts) for ts in (0, 100)])
            out = driver.create_output_topic("out", S, S).read_key_values_to_list()
            assert [(kv.key, kv.value) for kv in out] == [("K1", "[0,0]=2"), ("K1", "[100,100]=2")]
            if bulk:
                assert driver.bulk_stats() == {"chunks": 0, "declined": 1}


def test_a_session_value_wider_than_the_cache_goes_record_by_record() -> None:
    """A reduce keeping the last value: K1's first session holds 3,000 bytes (wider than
    the 600-byte cache: its put evicts its own dirty entry, a flush mid-record), then K1's
    next record merges it into a small one. Only the removed session was wide, so the run's
    final writes alone would fit (found by the differential test's session property: the
    batch form sized the cache by them and ran the chunk). The chunk goes record by record;
    every observable is the record path's."""
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(10))
     .reduce(lambda old, new: new, ks.Materialized.as_("counts")).to_stream()
     .map(lambda wk, v: (wk.key, f"[{wk.window.start},{wk.window.end}]={v and len(v)}"))
     .to("out", ks.Produced.with_(S, S)))
    topology = b.build()
    observed = []
    for bulk in (True, False):
        with ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk,
                                              "statestore.cache.max.bytes": 600}) as driver:
            driver.create_input_topic("in", S, S).pipe_record_list(
                [ks.TestRecord("K1", "x" * 3000, timestamp=0),
                 ks.TestRecord("K1", "y", timestamp=5)])
            out = driver.create_output_topic("out", S, S).read_key_values_to_list()
            assert [(kv.key, kv.value) for kv in out] == [("K1", "[0,0]=3000"),
                                                          ("K1", "[0,0]=None"),
                                                          ("K1", "[0,5]=1")]
            if bulk:
                assert driver.bulk_stats() == {"chunks": 0, "declined": 1}
            observed.append(state(driver))
    assert observed[0] == observed[1]
