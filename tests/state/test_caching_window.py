"""Cached window and session stores in the driver (Java's CachingWindowStore and
CachingSessionStore, as CachingPersistentWindowStoreTest and CachingInMemorySessionStoreTest
observe them): writes stay cached until the commit, reads and scans see them, the changelog
gets each window or session once per commit, in write order.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.records import Window, Windowed
from kslab.state.caching_window import CachingSessionStore, CachingWindowStore

S = serdes.String()


def _driver(builder, processor, config=None):
    topo = (ks.Topology().add_source("src", "in", key_serde=S, value_serde=S)
            .add_processor("p", processor, "src").add_state_store(builder, "p"))
    return ks.TopologyTestDriver(topo, config=config)


def test_window_writes_stay_cached_and_scans_merge_them():
    seen = {}

    class Windows(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("w")

        def process(self, record):
            for start, word in enumerate(record.value.split()):
                self.store.put(word, ks.ValueAndTimestamp(f"{word}{start}", 7), start * 10)
            self.store.put("a", ks.ValueAndTimestamp("A", 7), 0)  # overwrite: one changelog row
            seen["one"] = self.store.fetch("a", 0)
            with self.store.fetch("a", 0, 100) as it:
                seen["key"] = [(kv.key, kv.value.value) for kv in it]
            with self.store.fetch_all(0, 15) as it:
                seen["all"] = [(kv.key.key, kv.key.window.start, kv.value.value) for kv in it]
            with self.store.backward_fetch("a", 0, 100) as it:
                seen["back"] = [kv.key for kv in it]

    supplier = ks.Stores.persistent_timestamped_window_store("w", 1000, 10, False)
    builder = ks.Stores.timestamped_window_store_builder(supplier, S, S).with_caching_enabled()
    with _driver(builder, Windows) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "a b a", timestamp=7)
        changelog = driver.create_output_topic("topology-test-driver-w-changelog",
                                               serdes.Bytes(), serdes.Bytes())
        logged = [(r.key[:-12], int.from_bytes(r.key[-12:-4], "big"), r.value)
                  for r in changelog.read_records_to_list()]
        store = driver.get_timestamped_window_store("w")
        assert isinstance(store, CachingWindowStore)
        assert store.wrapped.fetch("a", 20) == ks.ValueAndTimestamp("a2", 7)
    assert seen["one"] == ks.ValueAndTimestamp("A", 7)
    assert seen["key"] == [(0, "A"), (20, "a2")]
    assert seen["back"] == [20, 0]
    assert seen["all"] == [("a", 0, "A"), ("b", 10, "b1")]
    # dirty order: window a@0 was written last, so it is flushed last
    assert logged == [(b"b", 10, b"b1"), (b"a", 20, b"a2"), (b"a", 0, b"A")]


def test_a_zero_cache_writes_windows_through():
    class Put(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("w")

        def process(self, record):
            self.store.put("a", ks.ValueAndTimestamp("1", 0), 0)
            self.store.put("a", ks.ValueAndTimestamp("2", 0), 0)

    supplier = ks.Stores.in_memory_window_store("w", 1000, 10, False)
    builder = ks.Stores.timestamped_window_store_builder(supplier, S, S).with_caching_enabled()
    with _driver(builder, Put, {"statestore.cache.max.bytes": 0}) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "x")
        logged = driver.create_output_topic("topology-test-driver-w-changelog",
                                            serdes.Bytes(), S).read_values_to_list()
    assert logged == ["1", "2"]


def test_session_writes_and_removes_stay_cached_until_the_commit():
    seen = {}

    class Sessions(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            self.store.put(Windowed("a", Window(0, 5)), "first")
            self.store.put(Windowed("a", Window(10, 20)), "second")
            self.store.put(Windowed("b", Window(0, 5)), "other")
            self.store.remove(Windowed("a", Window(0, 5)))  # never reached the store
            self.store.put(Windowed("a", Window(10, 20)), "second'")
            seen["fetch"] = self.store.fetch_session("a", 10, 20)
            seen["gone"] = self.store.fetch_session("a", 0, 5)
            with self.store.find_sessions("a", 0, 100) as it:
                seen["find"] = [(kv.key.window.start, kv.value) for kv in it]

    builder = ks.Stores.session_store_builder(ks.Stores.in_memory_session_store("s", 1000),
                                              S, S).with_caching_enabled()
    with _driver(builder, Sessions) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "x", timestamp=3)
        logged = driver.create_output_topic("topology-test-driver-s-changelog",
                                            serdes.Bytes(), S).read_records_to_list()
        assert isinstance(driver.get_session_store("s"), CachingSessionStore)
    assert seen == {"fetch": "second'", "gone": None, "find": [(10, "second'")]}
    # one row per session, in write order: b's, a's removal (a tombstone), a's latest
    assert [(r.key[:1], r.value) for r in logged] == [(b"b", "other"), (b"a", None),
                                                      (b"a", "second'")]


def test_windowed_count_forwards_each_window_once_per_commit_under_eviction():
    """Hopping windows: each record updates two windows. Room for one cached window: the second
    write evicts the first (dirty), flushing both early, so the order is still write order."""
    b = ks.StreamsBuilder()
    changes = []

    class Capture(ks.Processor):
        def process(self, record):
            changes.append((record.key.window.start, record.value))

    (b.stream("in", ks.Consumed.with_(S, S)).group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(10).advance_by(5)).count()
     .to_stream().process(Capture))
    # a cached window: key "a" + 12 + segment 8 (= 21) + node 24 + flag 1 + value 8 + 8 +
    # timestamp, offset, partition 20 + topic "in" 2 = 84 bytes
    for config, evictions in (({}, 0), ({"statestore.cache.max.bytes": 84}, 3),
                              ({"statestore.cache.max.bytes": 0}, None)):
        changes.clear()
        with ks.TopologyTestDriver(b.build(), config=config) as driver:
            topic = driver.create_input_topic("in", S, S)
            topic.pipe_input("a", "x", 7)  # in windows [0,10) and [5,15)
            topic.pipe_input("a", "x", 8)
            store = driver.get_timestamped_window_store(
                "KSTREAM-AGGREGATE-STATE-STORE-0000000001")
            assert store.fetch("a", 5) == ks.ValueAndTimestamp(2, 8)
            cache = store.thread_cache
            assert (None if cache is None else cache.evicts) == evictions
        assert changes == [(0, 1), (5, 1), (0, 2), (5, 2)], config


def _one_key_reads(supplier, first_starts, second_starts):
    """Two records through a processor writing windows of ``a``, ``ab`` (``a``'s bytes and
    more) and ``b``: the first record's writes are flushed to the store by its commit (then
    clean in the cache), the second's stay dirty; what ``a``'s fetches saw after each."""
    seen = {}

    class Windows(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("w")

        def process(self, record):
            starts = first_starts if record.value == "first" else second_starts
            for start in starts:
                for key in ("a", "ab", "b"):
                    self.store.put(key, ks.ValueAndTimestamp(f"{key}@{start}:{record.value}",
                                                             record.timestamp), start)
            if record.value == "second":
                self.store.put("a", None, first_starts[0])  # deletes a stored window
            with self.store.fetch("a", 5, 1_000_000) as it:
                seen[record.value] = [(kv.key, kv.value.value) for kv in it]
            with self.store.backward_fetch("a", 0, 600_000) as it:
                seen[f"{record.value} back"] = [kv.key for kv in it]

    builder = ks.Stores.timestamped_window_store_builder(supplier, S, S).with_caching_enabled()
    with _driver(builder, Windows) as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_input("k", "first", timestamp=9)
        topic.pipe_input("k", "second", timestamp=9)
    return seen


def test_one_key_fetches_see_only_that_keys_cached_windows_across_segments():
    # a persistent store of 1,000 s retention has 500 s segments: fetch(a, 5, 1_000_000)
    # reads three of them one key range at a time, beside the stored windows
    supplier = ks.Stores.persistent_timestamped_window_store("w", 1_000_000, 10, False)
    seen = _one_key_reads(supplier, [10, 499_990], [500_000, 900_000])
    assert seen["first"] == [(10, "a@10:first"), (499_990, "a@499990:first")]
    assert seen["second"] == [(499_990, "a@499990:first"), (500_000, "a@500000:second"),
                              (900_000, "a@900000:second")]
    assert seen["first back"] == [499_990, 10]
    assert seen["second back"] == [500_000, 499_990]


def test_one_key_fetches_over_many_segments_scan_them_whole():
    # an in-memory store's segments are 1 ms: fetch(a, 5, 1_000_000) spans more segments than
    # the per-segment reads take, so the cached windows of the whole range are scanned
    supplier = ks.Stores.in_memory_window_store("w", 1_000_000, 10, False)
    seen = _one_key_reads(supplier, [6, 12], [7, 20])
    assert seen["first"] == [(6, "a@6:first"), (12, "a@12:first")]
    assert seen["second"] == [(7, "a@7:second"), (12, "a@12:first"), (20, "a@20:second")]
    assert seen["second back"] == [20, 12, 7]


def test_one_key_session_finds_skip_other_keys_sharing_its_bytes():
    seen = {}

    class Sessions(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            for key in ("a", "ab", "b"):
                self.store.put(Windowed(key, Window(record.timestamp, record.timestamp + 5)),
                               f"{key}:{record.value}")
            with self.store.find_sessions("a", 0, 100) as it:
                seen[record.value] = [(kv.key.key, kv.key.window.start, kv.value) for kv in it]
            with self.store.find_sessions("a", "ab", 0, 100) as it:
                seen[f"{record.value} range"] = [kv.value for kv in it]

    builder = ks.Stores.session_store_builder(ks.Stores.persistent_session_store("s", 1000),
                                              S, S).with_caching_enabled()
    with _driver(builder, Sessions) as driver:
        topic = driver.create_input_topic("in", S, S)
        topic.pipe_input("k", "first", timestamp=3)  # flushed by its commit, then clean
        topic.pipe_input("k", "second", timestamp=20)  # dirty while it is read
    assert seen == {
        "first": [("a", 3, "a:first")],
        "first range": ["a:first", "ab:first"],
        "second": [("a", 3, "a:first"), ("a", 20, "a:second")],
        "second range": ["a:first", "ab:first", "a:second", "ab:second"],
    }


def _session_finds(cached: bool, ends: list[int]) -> dict[str, list[tuple[str, int, int, str]]]:
    """Sessions of "a", "ab" and "b" ending at each of ``ends`` (one per record, put while
    the earlier ones are clean or, within a record, dirty), and what one-key finds of "a"
    return after each: from the start, and from the middle of the sessions so far."""
    seen: dict[str, list[tuple[str, int, int, str]]] = {}

    class Sessions(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("s")

        def process(self, record):
            end = int(record.value)
            for key in ("a", "ab", "b"):
                self.store.put(Windowed(key, Window(end - 5, end)), f"{key}@{end}")
            middle = ends[len([e for e in ends if e <= end]) // 2]
            for label, earliest in (("all", 0), ("middle", middle)):
                with self.store.find_sessions("a", earliest, end) as it:
                    seen[f"{end} {label}"] = [(kv.key.key, kv.key.window.start,
                                               kv.key.window.end, kv.value) for kv in it]

    supplier = ks.Stores.persistent_session_store("s", 10**9)
    builder = ks.Stores.session_store_builder(supplier, S, S)
    builder = builder.with_caching_enabled() if cached else builder.with_caching_disabled()
    with _driver(builder, Sessions) as driver:
        topic = driver.create_input_topic("in", S, S)
        for end in ends:
            topic.pipe_input("k", str(end), timestamp=end)
    return seen


def test_one_key_session_finds_over_few_and_many_segments_see_the_uncached_answer():
    """Cached sessions are keyed by the segment of their end (60 s here): a one-key find reads
    one range per segment over a few segments and scans over many, and either way returns
    exactly the sessions the store without a cache returns."""
    few = [10, 30_000, 70_000, 125_000, 190_000]  # four segments
    many = [10 + 61_000 * i for i in range(20)]  # twenty segments
    for ends in (few, many):
        cached = _session_finds(True, ends)
        assert cached == _session_finds(False, ends)
        last = ends[-1]
        assert cached[f"{last} all"] == [("a", end - 5, end, f"a@{end}") for end in ends]
    assert _session_finds(True, few)["190000 middle"] == [
        ("a", 70_000 - 5, 70_000, "a@70000"), ("a", 125_000 - 5, 125_000, "a@125000"),
        ("a", 190_000 - 5, 190_000, "a@190000")]
