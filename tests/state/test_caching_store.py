"""Cached key-value stores in the driver: bounded by ``statestore.cache.max.bytes``, evicting
least recently used entries and flushing the dirty ones to the store and its changelog, as
Kafka's ``CachingKeyValueStore`` over a ``ThreadCache`` does (CachingInMemoryKeyValueStoreTest).

The processor writes one key per word of each input record, so one record makes several cache
writes before the driver commits (it commits after every record, as Java's driver does).
Each entry of these stores counts 57 bytes: key "a" (1) + node (24) + dirty flag (1) +
timestamp and value (8 + 1) + timestamp, offset, partition (20) + topic "in" (2).
"""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.state.cache import ThreadCache

S = serdes.String()
NODE = 57
CHANGELOG = "topology-test-driver-words-changelog"


class WriteWords(ks.Processor):
    """Puts (word, its 1-based position) per word; forwards what the store reads back."""

    def init(self, context):
        self.context = context
        self.store = context.get_state_store("words")

    def process(self, record):
        for position, word in enumerate(record.value.split(), start=1):
            self.store.put(word, ks.ValueAndTimestamp(str(position), record.timestamp))
            self.context.forward(record.with_key(word).with_value(self.store.get(word).value))


def topology(caching: bool = True) -> ks.Topology:
    builder = ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store("words"), S, S)
    if caching:
        builder.with_caching_enabled()
    return (ks.Topology().add_source("src", "in", key_serde=S, value_serde=S)
            .add_processor("p", WriteWords, "src").add_state_store(builder, "p")
            .add_sink("sink", "out", "p", key_serde=S, value_serde=S))


def run(config: dict, text: str, *, caching: bool = True):
    with ks.TopologyTestDriver(topology(caching), config=config) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", text, timestamp=10)
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
        log = driver.create_output_topic(CHANGELOG, S, S).read_records_to_list()
        store = driver.get_timestamped_key_value_store("words")
        contents = {kv.key: kv.value for kv in store.all()}
    return out, [(r.key, r.value, r.timestamp) for r in log], contents


def test_a_large_cache_writes_each_key_once_per_commit_in_write_order():
    out, log, contents = run({}, "a b a c a")
    # reads inside the record see the cached writes
    assert out == [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("a", "5")]
    assert log == [("b", "2", 10), ("c", "4", 10), ("a", "5", 10)]
    assert contents == {"a": ks.ValueAndTimestamp("5", 10), "b": ks.ValueAndTimestamp("2", 10),
                        "c": ks.ValueAndTimestamp("4", 10)}


def test_evicting_a_dirty_entry_flushes_every_dirty_entry_of_the_store():
    # room for two entries: writing c evicts b, the least recently used, which flushes b, a and c
    _, log, contents = run({"statestore.cache.max.bytes": 2 * NODE}, "a b a c a")
    assert log == [("b", "2", 10), ("a", "3", 10), ("c", "4", 10), ("a", "5", 10)]
    assert contents["a"] == ks.ValueAndTimestamp("5", 10)


def test_one_byte_short_of_two_entries_evicts_on_every_second_key():
    _, log, _ = run({"statestore.cache.max.bytes": 2 * NODE - 1}, "a b a c a")
    # b evicts a (flushing a and b); a evicts b (clean); c evicts a (flushing a, c); a evicts c
    assert log == [("a", "1", 10), ("b", "2", 10), ("a", "3", 10), ("c", "4", 10),
                   ("a", "5", 10)]


@pytest.mark.parametrize("config", [{"statestore.cache.max.bytes": 0},
                                    {"cache.max.bytes.buffering": 0}])
def test_a_zero_cache_turns_caching_off(config):
    _, log, _ = run(config, "a b a")
    assert log == [("a", "1", 10), ("b", "2", 10), ("a", "3", 10)]


def test_the_new_cache_size_key_wins_over_the_deprecated_one():
    _, log, _ = run({"statestore.cache.max.bytes": 10_000, "cache.max.bytes.buffering": 0},
                    "a b a")
    assert log == [("b", "2", 10), ("a", "3", 10)]


def test_uncached_store_logs_every_write():
    _, log, _ = run({}, "a b a", caching=False)
    assert log == [("a", "1", 10), ("b", "2", 10), ("a", "3", 10)]


def test_deletes_stay_cached_until_flushed_and_ranges_merge_the_cache():
    seen = []

    class PutDeleteScan(ks.Processor):
        def init(self, context):
            self.store = context.get_state_store("words")

        def process(self, record):
            self.store.put("b", ks.ValueAndTimestamp("B", 1))
            self.store.put("d", ks.ValueAndTimestamp("D", 1))
            self.store.delete("a")
            with self.store.all() as everything:
                seen.append([(kv.key, kv.value.value) for kv in everything])
            with self.store.reverse_range("a", "c") as part:
                seen.append([kv.key for kv in part])
            self.store.put("dd", ks.ValueAndTimestamp("DD", 1))
            with self.store.prefix_scan("d", S) as prefixed:
                seen.append([kv.key for kv in prefixed])

    builder = ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store("words"), S, S).with_caching_enabled()
    topo = (ks.Topology().add_source("src", "in", key_serde=S, value_serde=S)
            .add_processor("p", PutDeleteScan, "src").add_state_store(builder, "p"))
    with ks.TopologyTestDriver(topo) as driver:
        store = driver.get_timestamped_key_value_store("words")
        store.put("a", ks.ValueAndTimestamp("A", 0))
        store.put("c", ks.ValueAndTimestamp("C", 0))
        store.flush()
        driver.create_input_topic("in", S, S).pipe_input("k", "x")
        log = driver.create_output_topic(CHANGELOG, S, S).read_key_values_to_list()
    assert seen == [[("b", "B"), ("c", "C"), ("d", "D")], ["c", "b"], ["d", "dd"]]
    assert log == [("a", "A"), ("c", "C"), ("b", "B"), ("d", "D"), ("a", None), ("dd", "DD")]


def test_stores_of_a_driver_share_one_thread_cache():
    two = ks.Stores.timestamped_key_value_store_builder(
        ks.Stores.in_memory_key_value_store("other"), S, S).with_caching_enabled()
    topo = topology().add_state_store(two, "p")
    with ks.TopologyTestDriver(topo, config={"statestore.cache.max.bytes": 5000}) as driver:
        words = driver.get_timestamped_key_value_store("words")
        other = driver.get_timestamped_key_value_store("other")
        assert words.thread_cache is other.thread_cache
        assert isinstance(words.thread_cache, ThreadCache)
        assert words.thread_cache.max_cache_size_bytes == 5000
        first_cache = words.thread_cache
    with ks.TopologyTestDriver(topo) as second:
        fresh = second.get_timestamped_key_value_store("words")
        assert isinstance(fresh.thread_cache, ThreadCache)
        assert fresh.thread_cache is not first_cache


def test_forget_clean_empties_a_committed_cache_and_reads_come_back_from_the_store():
    # what a Spark streaming task kept open between micro-batches does after each commit
    with ks.TopologyTestDriver(topology()) as driver:
        lines = driver.create_input_topic("in", S, S)
        lines.pipe_input("k", "a b a", timestamp=10)
        words = driver.get_timestamped_key_value_store("words")
        assert words.thread_cache.size_bytes() == 2 * NODE  # a and b, both clean
        words.forget_clean()
        assert words.thread_cache.size_bytes() == 0
        assert words.get("a").value == "3"  # (read back from the store, cached again)
        assert words.thread_cache.size_bytes() == NODE - 2  # (read outside a record: no topic)
        lines.pipe_input("k", "c a", timestamp=20)
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
        contents = {kv.key: kv.value.value for kv in words.all()}
    assert out == [("a", "1"), ("b", "2"), ("a", "3"), ("c", "1"), ("a", "2")]
    assert contents == {"a": "2", "b": "2", "c": "1"}
