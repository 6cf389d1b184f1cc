"""The driver's bulk path against its record path: same randomized inputs, every observable equal.

Each case drives one topology twice, with ``kslab.driver.bulk`` on and off, and compares every
topic log (output, repartition, changelog) record by record, store bytes and record caches,
clocks, offsets, metrics, history, the processors' integer state (observed stream times) and
the warnings logged for dropped records.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state as _state

S, L = serdes.String(), serdes.Long()
Records = list[tuple[Any, Any, int, Any]]


def _lines(n: int, seed: int) -> Records:
    """Lines with repeated words, empty lines, null values, headers and shuffled timestamps."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(12)] + ["nullkey", "nullvalue"]
    out: Records = []
    for i in range(n):
        ts = max(0, i * 10 + rng.randint(-300, 50))  # out of order, some far back
        roll = rng.random()
        if roll < 0.05:
            value = ""
        elif roll < 0.08:
            value = None
        else:
            value = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
        key = None if rng.random() < 0.2 else f"k{rng.randint(0, 3)}"
        headers = [("h", str(i).encode())] if rng.random() < 0.1 else None
        out.append((key, value, ts, headers))
    return out


def _clean_lines(n: int, seed: int) -> Records:
    """``_lines`` without nulls (a chunk holding a null key or value is counted record by
    record): repeated words, empty lines, headers and shuffled timestamps."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(12)]
    out: Records = []
    for i in range(n):
        ts = max(0, i * 10 + rng.randint(-300, 50))
        words = rng.randint(0, 9)
        value = " ".join(rng.choice(vocab) for _ in range(words))
        headers = [("h", str(i).encode())] if rng.random() < 0.1 else None
        out.append((f"k{rng.randint(0, 3)}", value, ts, headers))
    return out


def _split(value: str | None) -> list[str | None]:
    if value is None:
        return ["nullvalue"]
    return value.split()


def _word_count(store: Any, cache: bool, logging_on: bool) -> ks.Topology:
    mat = ks.Materialized.as_("counts").with_store_type(store)
    if not cache:
        mat = mat.with_caching_disabled()
    if not logging_on:
        mat = mat.with_logging_disabled()
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .map_values(lambda w: None if w == "nullvalue" else w)
     .filter_not(lambda k, w: w == "w11")
     .group_by(lambda k, w: None if w == "nullkey" else (w or "nil"), ks.Grouped.with_(S, S))
     .count(mat)
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def _windowed(windows: Any, cache: bool, on_close: bool = False) -> ks.Topology:
    mat = ks.Materialized.as_("wcounts").with_store_type("in_memory")
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    windowed = (b.stream("lines", ks.Consumed.with_(S, S))
                .filter(lambda k, v: k is not None)
                .flat_map_values(_split)  # one record updates a key's window several times
                .group_by_key()
                .windowed_by(windows))
    if on_close:
        windowed = windowed.emit_strategy(ks.EmitStrategy.on_window_close())
    (windowed
     .count(mat)
     .to_stream()
     .to("wcounts", ks.Produced.with_(serdes.TimeWindowed(S, 100), L)))
    return b.build()


def _count_by_line_key(cache: bool) -> ks.Topology:
    """No repartition: a line's words all update its key, within one record."""
    mat = ks.Materialized.as_("counts")
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .group_by_key()
     .count(mat)
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def _peeking() -> ks.Topology:
    b = ks.StreamsBuilder()
    seen: list[Any] = []
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .peek(lambda k, v: seen.append(v))
     .group_by(lambda k, w: w, ks.Grouped.with_(S, S))
     .count(ks.Materialized.as_("counts").with_caching_disabled())
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def _reduced() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .group_by(lambda k, w: w, ks.Grouped.with_(S, S))
     .reduce(lambda a, c: c, ks.Materialized.as_("counts").with_caching_disabled())
     .to_stream()
     .to("counts", ks.Produced.with_(S, S)))
    return b.build()


def _stateless_only() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .filter(lambda k, w: w != "w3")
     .select_key(lambda k, w: w)
     .to("words", ks.Produced.with_(S, S)))
    return b.build()


def _drive(topology: Callable[[], ks.Topology], records: Records, bulk: bool,
           caplog: pytest.LogCaptureFixture, config: dict[str, Any] | None = None,
           between: Callable[[ks.TopologyTestDriver], None] | None = None
           ) -> tuple[dict[str, Any], Any, list[str]]:
    caplog.clear()
    driver = ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk, **(config or {})})
    try:
        topic = driver.create_input_topic("lines", S, S)
        half = len(records) // 2
        topic.pipe_record_list([ks.TestRecord(k, v, ts, h) for k, v, ts, h in records[:half]])
        for k, v, ts, h in records[half:half + 3]:  # single records between the bulk pipes
            topic.pipe_input(k, v, ts, headers=h)
        if between is not None:
            between(driver)
        topic.pipe_record_list([ks.TestRecord(k, v, ts, h)
                                for k, v, ts, h in records[half + 3:]])
        state = _state(driver)
        messages = [r.getMessage() for r in caplog.records
                    if r.name.startswith("kslab")]
        state["reads"] = {  # drained as bytes: the count's key dictionaries, where it has them
            topic: driver.create_output_topic(topic, serdes.Bytes(), serdes.Bytes())
            .read_records_to_list() for topic in sorted(driver.output_logs())}
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        return state, driver._bulk, messages
    finally:
        driver.close()


def _same(topology: Callable[[], ks.Topology], caplog: pytest.LogCaptureFixture,
          n: int = 700, seed: int = 7, config: dict[str, Any] | None = None,
          between: Callable[[ks.TopologyTestDriver], None] | None = None,
          lines: Callable[[int, int], Records] = _lines) -> Any:
    caplog.set_level(logging.WARNING)
    records = lines(n, seed)
    bulk_state, executor, bulk_log = _drive(topology, records, True, caplog, config, between)
    record_state, none, record_log = _drive(topology, records, False, caplog, config, between)
    assert none is None
    assert bulk_state == record_state
    assert bulk_log == record_log
    return executor


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("logging_on", [True, False])
def test_word_count_uncached_runs_in_bulk_and_matches(store: str, logging_on: bool,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(lambda: _word_count(store, False, logging_on), caplog)
    # 256 + 94 and 256 + 91 rows (the 3 single records between them: the record path)
    assert executor.chunks == 4 and executor.declined == 0


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("logging_on", [True, False])
@pytest.mark.parametrize(("cache_bytes", "in_bulk"), [(None, 4), (300, 4), (60, 0)],
                         ids=["default", "evicting", "tiny"])
def test_word_count_cached_replays_the_cache_and_matches(
        store: str, logging_on: bool, cache_bytes: int | None, in_bulk: int,
        caplog: pytest.LogCaptureFixture) -> None:
    """The cached count's batch form (the record cache's gets, puts and flushes replayed at
    once, ``HeldCachedWrites``) leaves the cache, store, changelog and outputs as the record
    path does, with clean entries evicted too (``kslab.state.held_evictions``); with a cache
    smaller than one entry (every put evicts its own dirty entry and flushes it) the chunks
    keep the record path."""
    config = None if cache_bytes is None else {"statestore.cache.max.bytes": cache_bytes}
    executor = _same(lambda: _word_count(store, True, logging_on), caplog, config=config)
    assert executor.chunks == in_bulk and executor.declined == 4 - in_bulk


@pytest.mark.parametrize("store", ["in_memory", "persistent"])
@pytest.mark.parametrize("logging_on", [True, False])
@pytest.mark.parametrize("cache", [False, True], ids=["uncached", "cached"])
def test_counts_at_once_match(store: str, logging_on: bool, cache: bool,
                              caplog: pytest.LogCaptureFixture) -> None:
    """With no null in a chunk, the count reads and writes each key once per chunk (its
    batch form over ``HeldTimestampedWrites`` or ``HeldCachedWrites``): every update's
    output and changelog record, the store's bytes, and each cached entry, counter and size
    as the record path's."""
    executor = _same(lambda: _word_count(store, cache, logging_on), caplog,
                     lines=_clean_lines)
    # 350 and 347 rows in two chunks each, 3 single records (the second one an empty line,
    # which leaves the count nothing to do): every one in bulk
    assert executor.chunks == 4 and executor.declined == 0


@pytest.mark.parametrize(("cache_bytes", "in_bulk"), [(5000, 4), (1500, 4), (400, 4)])
def test_cached_count_at_once_unless_an_eviction_flushes_or_misses(
        cache_bytes: int, in_bulk: int, caplog: pytest.LogCaptureFixture) -> None:
    """A chunk whose puts evict only clean entries runs in bulk, its evictions (and the
    misses and read-backs of keys evicted before a later get) worked out at once
    (``kslab.state.held_evictions``); every observable is the record path's, with
    interactive reads between the pipes (hits, a clean entry read back, a scan)."""
    executor = _same(lambda: _word_count("in_memory", True, True), caplog,
                     config={"statestore.cache.max.bytes": cache_bytes}, between=_query,
                     lines=_clean_lines)
    assert executor.chunks == in_bulk and executor.declined == 4 - in_bulk


def _query(driver: ks.TopologyTestDriver) -> None:
    """Interactive reads between pipes: hits, a miss, a clean entry read back, a scan."""
    store = driver.get_timestamped_key_value_store("counts")
    for word in ["w1", "w5", "absent", "w1"]:
        store.get(word)
    with store.all() as entries:
        assert len(list(entries)) == 11  # w0 .. w10 (w11 is filtered out)


@pytest.mark.parametrize(("cache_bytes", "in_bulk"), [(None, 4), (300, 4)])
def test_cached_count_after_interactive_reads_matches(cache_bytes: int | None, in_bulk: int,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    config = None if cache_bytes is None else {"statestore.cache.max.bytes": cache_bytes}
    executor = _same(lambda: _word_count("in_memory", True, True), caplog, config=config,
                     between=_query)
    assert executor.chunks == in_bulk and executor.declined == 4 - in_bulk


@pytest.mark.parametrize(("cache_bytes", "thread", "lru", "named", "in_bulk"), [
    # room for all: "a" is hit twice, nothing evicted; one flush per commit (5 lines + 10 words)
    (None, (10, 10, 0, 15, 808), [b"b", b"c", b"d", b"e", b"a", b"f", b"g", b"h"],
     (2, 8, 2, 15), True),
    # room for two entries: "a" is read back from the store twice (two clean puts)
    (300, (12, 10, 8, 15, 202), [b"g", b"h"], (0, 10, 2, 15), True),
    # smaller than one entry: every put evicts its own dirty entry, flushing it (10 more flushes)
    (60, (12, 10, 12, 15, 0), [], (0, 10, 0, 25), False),
], ids=["default", "evicting", "tiny"])
@pytest.mark.parametrize("bulk", [True, False])
def test_cached_count_bookkeeping_is_exact(bulk: bool, cache_bytes: int | None,
                                           thread: tuple[int, ...], lru: list[bytes],
                                           named: tuple[int, ...], in_bulk: bool) -> None:
    """Exact cache counters of a known input, on both paths: 5 lines of 2 words (``a`` 3x);
    the bulk path runs the chunk where no put evicts a dirty entry (else the record path)."""
    config: dict[str, Any] = {"kslab.driver.bulk": bulk}
    if cache_bytes is not None:
        config["statestore.cache.max.bytes"] = cache_bytes
    with ks.TopologyTestDriver(_word_count("in_memory", True, True), config) as driver:
        lines = ["a b", "c a", "d e", "a f", "g h"]
        driver.create_input_topic("lines", S, S).pipe_value_list(lines, 0, 0)
        if bulk:  # one chunk: the lines, then the words they loop back through the
            # repartition topic
            assert driver.bulk_stats() == ({"chunks": 1, "declined": 0} if in_bulk
                                           else {"chunks": 0, "declined": 1})
        out = driver.create_output_topic("counts", S, L).read_key_values_to_list()
        assert [(kv.key, kv.value) for kv in out] == [
            ("a", 1), ("b", 1), ("c", 1), ("a", 2), ("d", 1), ("e", 1), ("a", 3), ("f", 1),
            ("g", 1), ("h", 1)]
        store = driver.tasks[next(iter(driver.tasks))].stores["counts"]
        cache = store.thread_cache
        # internal on purpose: the store's namespace in the thread cache
        cached = cache.named_cache(store._namespace)
        assert (cache.puts, cache.gets, cache.evicts, cache.flushes, cache.size_bytes()) == thread
        assert cached.lru_keys() == lru
        assert (cached.hits, cached.misses, cached.overwrites, cached.flushes) == named
        assert cached.dirty_keys() == []


@pytest.mark.parametrize("cache", [True, False])
def test_count_updating_a_key_twice_per_record_matches(cache: bool,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A consumed record updating a key several times: its commit flushes (and forwards)
    the key's last update only."""
    executor = _same(lambda: _count_by_line_key(cache), caplog)
    assert executor.chunks == 4 and executor.declined == 0


@pytest.mark.parametrize(("topology", "in_bulk"), [
    (lambda: _word_count("in_memory", True, True), 4),
    (lambda: _windowed(ks.TimeWindows.of_size_and_grace(100, 50), True), 4),
], ids=["word-count", "windowed"])
def test_a_small_record_cache_evicting_matches(topology: Callable[[], ks.Topology],
                                               in_bulk: int,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """A key-value or window record cache whose puts evict clean entries runs in batch
    (``kslab.state.held_evictions``), with every observable the record path's."""
    executor = _same(topology, caplog, config={"statestore.cache.max.bytes": 300})
    assert executor.chunks == in_bulk and executor.declined == 4 - in_bulk


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_word_count_other_seeds_match(seed: int, caplog: pytest.LogCaptureFixture) -> None:
    _same(lambda: _word_count("in_memory", False, True), caplog, n=300, seed=seed)


def test_stateless_chain_to_an_output_runs_in_bulk(caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(_stateless_only, caplog)
    assert executor.chunks == 4


@pytest.mark.parametrize("windows", [
    ks.TimeWindows.of_size_with_no_grace(100),
    ks.TimeWindows.of_size_and_grace(100, 50),
    ks.TimeWindows.of_size_with_no_grace(100).advance_by(25),
    ks.TimeWindows.of_size_and_grace(100, 200).advance_by(50),
], ids=["tumbling", "tumbling-grace", "hopping", "hopping-grace"])
@pytest.mark.parametrize("cache", [True, False])
def test_windowed_count_runs_in_bulk_and_matches(windows: Any, cache: bool,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(lambda: _windowed(windows, cache), caplog)
    assert executor.chunks == 4 and executor.declined == 0


def _ordered_lines(n: int, seed: int) -> Records:
    """Lines mostly in time order, 1 ms apart (long runs of one window), with some out of
    order within the grace, some late enough to be dropped, and a few null keys."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5)]
    out: Records = []
    for i in range(n):
        roll = rng.random()
        ts = i - 150 if roll < 0.02 else max(0, i - rng.randint(0, 30)) if roll < 0.1 else i
        key = None if rng.random() < 0.01 else f"k{rng.randint(0, 3)}"
        headers = [("h", str(i).encode())] if rng.random() < 0.1 else None
        out.append((key, " ".join(rng.sample(vocab, rng.randint(1, 3))), max(0, ts), headers))
    return out


def _in_order_but_one(n: int, seed: int) -> Records:
    """Lines 1 ms apart in time order, but for one of the single records piped between the
    two chunks (``_drive``), 500 ms ahead: the first chunk is in order, the second starts
    behind stream time (late records, then none once it catches up)."""
    rng = random.Random(seed)
    out: Records = []
    for i in range(n):
        ts = i + 500 if i == n // 2 + 1 else i
        key = None if i % 97 == 5 else f"k{rng.randint(0, 3)}"
        value = None if i % 89 == 7 else f"w{rng.randint(0, 4)} w{rng.randint(0, 4)}"
        out.append((key, value, ts, None))
    return out


@pytest.mark.parametrize("topology", [
    lambda: _windowed(ks.TimeWindows.of_size_and_grace(100, 1000), False),
    lambda: _windowed_per_record(True),
    lambda: _word_count("in_memory", False, True)],
    ids=["windowed", "windowed-cached-nulls", "word-count"])
def test_in_order_chunks_match(topology: Callable[[], ks.Topology],
                               caplog: pytest.LogCaptureFixture) -> None:
    """A chunk in time order from stream time on has no late record (the executor's
    shortcut) and a tumbling count finds its runs of one window by bisection; one starting
    behind stream time counts each record's lateness."""
    executor = _same(topology, caplog, lines=_in_order_but_one)
    # 350 rows as 256 + 94, 3 single records, 347 as 256 + 91: every one in bulk
    assert executor.chunks == 4 and executor.declined == 0
    driver = ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": True})
    with driver:
        topic = driver.create_input_topic("lines", S, S)
        records = _in_order_but_one(700, 7)
        topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts, _ in records[:351]])
        assert driver.tasks[ks.TaskId(0, 0)].stream_time == 350
        topic.pipe_record_list([ks.TestRecord(k, v, ts) for k, v, ts, _ in records[351:]])
        task = driver.tasks[ks.TaskId(0, 0)]
        assert task.stream_time == 851
        # the rest of the second pipe (timestamps 352..699) is each 851 - ts late
        assert task.metrics.lateness_max == 851 - 352


@pytest.mark.parametrize("logging_on", [True, False])
def test_tumbling_count_in_runs_at_once_matches(logging_on: bool,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """Runs of one window are counted at once (``_TimeWindowProcessor._fold_runs``); late
    records dropped, null keys skipped, new windows opened (expiring segments) between
    runs: every observable is the record path's."""
    windows = ks.TimeWindows.of_size_and_grace(100, 50)

    def topology() -> ks.Topology:
        topo = _windowed(windows, False)
        if not logging_on:  # the same program with the store's changelog off
            b = ks.StreamsBuilder()
            (b.stream("lines", ks.Consumed.with_(S, S))
             .filter(lambda k, v: k is not None)
             .flat_map_values(_split)
             .group_by_key()
             .windowed_by(windows)
             .count(ks.Materialized.as_("wcounts").with_store_type("in_memory")
                    .with_caching_disabled().with_logging_disabled())
             .to_stream()
             .to("wcounts", ks.Produced.with_(serdes.TimeWindowed(S, 100), L)))
            topo = b.build()
        return topo

    executor = _same(topology, caplog, n=2000, lines=_ordered_lines)
    # 1000 rows as 256 + 744, 3 single records, 997 as 256 + 741: every one in bulk
    assert executor.chunks == 4 and executor.declined == 0


def _windowed_per_record(logging_on: bool) -> ks.Topology:
    """A cached tumbling count, one update per consumed record (null keys skipped by it)."""
    mat = ks.Materialized.as_("wcounts").with_store_type("in_memory")
    if not logging_on:
        mat = mat.with_logging_disabled()
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_and_grace(100, 50))
     .count(mat)
     .to_stream()
     .to("wcounts", ks.Produced.with_(serdes.TimeWindowed(S, 100), L)))
    return b.build()


def _query_windows(driver: ks.TopologyTestDriver) -> None:
    """Interactive reads of the cached window store between pipes: hits, misses, a scan."""
    store = driver.get_timestamped_window_store("wcounts")
    for key in ["k1", "k2", "absent", "k1"]:
        store.fetch(key, 900)
    with store.fetch_all(800, 1000) as windows:  # the cache's keys sorted from now on
        list(windows)


@pytest.mark.parametrize("logging_on", [True, False])
@pytest.mark.parametrize(("cache_bytes", "in_bulk"), [(None, 4), (600, 4), (300, 4)],
                         ids=["default", "evicting-some", "evicting"])
def test_cached_tumbling_count_in_runs_at_once_matches(
        logging_on: bool, cache_bytes: int | None, in_bulk: int,
        caplog: pytest.LogCaptureFixture) -> None:
    """Behind a record cache, runs of one window are counted at once where the chunk cannot
    fill the cache (``HeldCachedWindowWrites``: the cache's entries, LRU order, counters and
    sizes as each record's get, put and flush leave them), and where its puts evict clean
    windows (``kslab.state.held_evictions``). With interactive reads between the pipes,
    every observable is the record path's."""
    config = None if cache_bytes is None else {"statestore.cache.max.bytes": cache_bytes}
    executor = _same(lambda: _windowed_per_record(logging_on), caplog, n=2000,
                     lines=_ordered_lines, config=config, between=_query_windows)
    assert executor.chunks == in_bulk and executor.declined == 4 - in_bulk


def test_windowed_count_emitting_on_close_keeps_the_record_path_and_matches(
        caplog: pytest.LogCaptureFixture) -> None:
    """``on_window_close`` has no batch form (each record's emission reads the closed
    windows back): its chunks keep the record path."""
    windows = ks.TimeWindows.of_size_and_grace(100, 30)
    executor = _same(lambda: _windowed(windows, False, on_close=True), caplog)
    assert executor.chunks == 0 and executor.declined == 4


def test_a_peek_before_a_count_runs_in_bulk_and_matches(
        caplog: pytest.LogCaptureFixture) -> None:
    """``peek`` has a batch form (its action held for phase two): its chunks run in bulk."""
    executor = _same(_peeking, caplog)
    assert executor.chunks == 4 and executor.declined == 0


class _Upper(ks.Processor):
    """A Processor API node: it has no batch form."""

    def init(self, context: Any) -> None:
        self.context = context

    def process(self, record: Any) -> None:
        self.context.forward(record.with_value(record.value.upper()))


def _processing() -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .process(_Upper)
     .to("words", ks.Produced.with_(S, S)))
    return b.build()


def test_unsupported_topologies_fall_back_and_match(caplog: pytest.LogCaptureFixture) -> None:
    executor = _same(_processing, caplog)
    assert executor.chunks == 0 and executor.declined == 4


def test_an_uncached_reduce_runs_in_bulk_and_matches(caplog: pytest.LogCaptureFixture) -> None:
    """The reducer once per record against the store's held writes; null values skipped with
    their warnings in order."""
    executor = _same(_reduced, caplog)
    assert executor.chunks == 4 and executor.declined == 0


def test_tracing_and_handlers_turn_the_bulk_path_off() -> None:
    topo = _word_count("in_memory", False, True)
    with ks.TopologyTestDriver(topo, trace=True) as driver:
        driver.create_input_topic("lines", S, S).pipe_value_list(["a b", "c a"], 0, 0)
        assert driver.bulk_stats() == {"chunks": 0, "declined": 0}
    handler = {"processing.exception.handler": "log_and_continue"}
    with ks.TopologyTestDriver(_word_count("in_memory", False, True), handler) as driver:
        driver.create_input_topic("lines", S, S).pipe_value_list(["a b", "c a"], 0, 0)
        assert driver.bulk_stats() == {"chunks": 0, "declined": 0}


class _CountingString(serdes.String):
    """A custom serde that sees every call (so the bulk path must not change their number)."""

    calls = 0

    def serialize(self, topic: str | None, data: Any, headers: Any = None) -> bytes | None:
        type(self).calls += 1
        return super().serialize(topic, data, headers)


def _word_count_custom_store_serde() -> ks.Topology:
    mat = ks.Materialized.as_("counts").with_key_serde(_CountingString())
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(_split)
     .filter(lambda k, w: w != "nullvalue")
     .group_by(lambda k, w: w, ks.Grouped.with_(S, S))
     .count(mat)
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def test_cached_count_with_a_custom_store_serde_calls_it_as_the_record_path(
        caplog: pytest.LogCaptureFixture) -> None:
    """A custom store serde sees exactly the record path's calls (its keys are serialized
    one by one, not once per distinct key: only a built-in serde's bytes say which keys are
    equal), and the chunks still run in bulk."""
    records = _lines(700, 7)
    calls = []
    states = []
    for bulk in (True, False):
        _CountingString.calls = 0
        state, executor, _ = _drive(_word_count_custom_store_serde, records, bulk, caplog)
        calls.append(_CountingString.calls)
        states.append(state)
        if bulk:
            assert executor.chunks == 4 and executor.declined == 0
    assert states[0] == states[1]
    assert calls[0] == calls[1] > 0
