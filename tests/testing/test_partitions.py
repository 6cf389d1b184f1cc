"""Multi-partition driving: why a key-changing step needs a repartition before a stateful one."""

from __future__ import annotations

import pytest

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition


class KeyByWord(ks.Processor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record.with_key(record.value))


class CountByKey(ks.Processor):
    def init(self, context):
        self.context = context
        self.store = context.get_state_store("counts")

    def process(self, record):
        n = (self.store.get(record.key) or 0) + 1
        self.store.put(record.key, n)
        self.context.forward(record.with_value(n))


def counts_store():
    return ks.Stores.key_value_store_builder(
        ks.Stores.in_memory_key_value_store("counts"), serdes.String(), serdes.Long()
    )


def without_repartition():
    """Re-key and count in the same task: the count only sees its own input partition."""
    topo = ks.Topology()
    topo.add_source("src", "clicks", key_serde="string", value_serde="string")
    topo.add_processor("by-word", KeyByWord, "src")
    topo.add_processor("count", CountByKey, "by-word")
    topo.add_state_store(counts_store(), "count")
    topo.add_sink("out", "counts", "count", key_serde="string", value_serde="long")
    return topo


def with_repartition():
    """Re-key, write to a topic partitioned by the new key, count from that topic."""
    topo = ks.Topology()
    topo.add_source("src", "clicks", key_serde="string", value_serde="string")
    topo.add_processor("by-word", KeyByWord, "src")
    topo.add_sink("to-rekeyed", "clicks-by-word", "by-word", key_serde="string",
                  value_serde="string")
    topo.add_source("rekeyed", "clicks-by-word", key_serde="string", value_serde="string")
    topo.add_processor("count", CountByKey, "rekeyed")
    topo.add_state_store(counts_store(), "count")
    topo.add_sink("out", "counts", "count", key_serde="string", value_serde="long")
    return topo


USERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
WORDS = ["kafka", "streams", "python", "lab"]
CLICKS = [(USERS[i % 6], WORDS[(i * 7) % 4], i) for i in range(48)]


def final_counts(topology, partitions):
    """The last count per word, the merged store contents, and the tasks' store contents."""
    with ks.TopologyTestDriver(topology, partitions=partitions) as driver:
        inp = driver.create_input_topic("clicks")
        for user, word, ts in CLICKS:
            inp.pipe_input(user, word, ts)
        out = driver.create_output_topic("counts")
        with driver.get_key_value_store("counts").all() as entries:
            merged = sorted(entries)
        per_task = {tid: dict(task.stores["counts"].all()) for tid, task in driver.tasks.items()
                    if "counts" in task.stores}
        return out.read_key_values_to_map(), merged, per_task


def test_users_land_on_several_partitions():
    parts = {default_partition(serdes.String().serialize("clicks", u), 4) for u in USERS}
    assert len(parts) > 1  # otherwise the example would prove nothing


EXPECTED = {"kafka": 12, "streams": 12, "python": 12, "lab": 12}


def test_single_partition_counts_every_click_of_a_word():
    counts, merged, per_task = final_counts(without_repartition(), None)
    assert counts == EXPECTED
    assert merged == sorted(EXPECTED.items())
    assert list(per_task) == [ks.TaskId(0, 0)]


def test_key_change_without_repartition_splits_counts_across_partitions():
    counts, _, per_task = final_counts(without_repartition(), {"clicks": 4})
    assert sorted(per_task) == [ks.TaskId(0, p) for p in range(4)]
    # each partition counted only its own users' clicks: every word is split, no total is right
    assert all(n < 12 for n in counts.values())
    for word, total in EXPECTED.items():
        parts = [store[word] for store in per_task.values() if word in store]
        assert len(parts) > 1
        assert sum(parts) == total


def test_repartition_by_new_key_makes_counts_equal_to_single_partition():
    counts, merged, per_task = final_counts(with_repartition(),
                                            {"clicks": 4, "clicks-by-word": 4})
    assert counts == EXPECTED
    assert merged == sorted(EXPECTED.items())
    assert len(per_task) == 4  # the counting sub-topology (1) on each of four partitions
    for word in WORDS:
        partition = default_partition(serdes.String().serialize("clicks-by-word", word), 4)
        assert per_task[ks.TaskId(1, partition)][word] == 12


def test_join_inputs_with_different_partition_counts_are_refused_naming_both_topics():
    builder = ks.StreamsBuilder()
    table = builder.table("users", key_serde="string", value_serde="string")
    builder.stream("clicks", key_serde="string", value_serde="string").join(
        table, lambda click, user: f"{click}/{user}"
    ).to("enriched")
    with pytest.raises(ks.TopologyError) as info:
        ks.TopologyTestDriver(builder.build(), partitions={"clicks": 4, "users": 2})
    assert "clicks" in str(info.value)
    assert "users" in str(info.value)


def test_a_one_partition_topic_of_a_partitioned_driver_is_written_and_read_back_in_order():
    # "mid" and "out" have one partition beside the 4 of "clicks": the sinks write them
    # directly (partition 0, as the default partitioner picks), and "mid", which the second
    # sub-topology reads, is looped back record by record as it is written
    b = ks.StreamsBuilder()
    b.stream("clicks", key_serde="string", value_serde="string") \
        .map_values(str.upper).to("mid", ks.Produced.with_("string", "string"))
    b.stream("mid", key_serde="string", value_serde="string") \
        .map_values(lambda v: v + "!").to("out", ks.Produced.with_("string", "string"))
    pairs = [("u1", "a"), ("u2", "b"), ("u3", "c"), ("u1", "d"), ("u4", "e")]
    with ks.TopologyTestDriver(b.build(), partitions={"clicks": 4}) as driver:
        driver.create_input_topic("clicks", "string", "string").pipe_key_value_list(pairs)
        mid = driver.create_output_topic("mid", "string", "string").read_key_values_to_list()
        out = driver.create_output_topic("out", "string", "string").read_key_values_to_list()
    assert mid == [ks.KeyValue("u1", "A"), ks.KeyValue("u2", "B"), ks.KeyValue("u3", "C"),
                   ks.KeyValue("u1", "D"), ks.KeyValue("u4", "E")]
    assert out == [ks.KeyValue("u1", "A!"), ks.KeyValue("u2", "B!"), ks.KeyValue("u3", "C!"),
                   ks.KeyValue("u1", "D!"), ks.KeyValue("u4", "E!")]


def test_every_kind_of_store_spread_over_partitions_reads_as_one():
    """``get_*_store`` of a store in four tasks: one read-only view per kind, as Java's
    composite stores (a key-value facade without timestamps, window and session views that
    fetch and scan across the partitions)."""
    s = serdes.String()
    builder = ks.StreamsBuilder()
    grouped = builder.stream("in").group_by_key()
    grouped.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count(ks.Materialized.as_("w"))
    grouped.windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(10)) \
        .count(ks.Materialized.as_("s"))
    grouped.count(ks.Materialized.as_("kv"))
    config = {"default.key.serde": "string", "default.value.serde": "string"}
    with ks.TopologyTestDriver(builder.build(), config, partitions={"in": 4}) as driver:
        inp = driver.create_input_topic("in", s, s)
        for key in "abcdefgh":
            inp.pipe_input(key, "v", 5)
        inp.pipe_input("a", "v", 7)
        assert {t.id.partition for t in driver.tasks.values()} == {0, 1, 2, 3}
        assert driver.get_key_value_store("kv").get("a") == 2
        assert driver.get_timestamped_key_value_store("kv").get("a") == ks.ValueAndTimestamp(2, 7)
        window = driver.get_window_store("w")
        with window.fetch("a", 0, 10) as found:
            assert list(found) == [ks.KeyValue(0, 2)]
        assert window.fetch("h", 0) == 1
        with window.all() as every:
            assert [(kv.key.key, kv.value) for kv in every] == \
                [(k, 2 if k == "a" else 1) for k in "abcdefgh"]
        with driver.get_timestamped_window_store("w").fetch_all(0, 10) as every:
            assert next(iter(every)).value == ks.ValueAndTimestamp(2, 7)
        session = driver.get_session_store("s")
        with session.fetch("a") as found:
            assert list(found) == [ks.KeyValue(ks.Windowed("a", ks.Window(5, 7)), 2)]
        with session.fetch("g", None) as to_end:
            assert [kv.key.key for kv in to_end] == ["g", "h"]
        with pytest.raises(ks.StoreError, match="read-only"):
            window.put("a", 1, 0)


def test_joined_repartition_topics_take_the_larger_count():
    """Both sides of a join repartitioned from topics of 4 and 2 partitions: Java's
    ``CopartitionedTopicsEnforcer`` gives both repartition topics 4 partitions (the larger), so
    every key meets its partner; with 4 and 2 a third of the keys were routed apart."""
    s = serdes.String()
    builder = ks.StreamsBuilder()
    a = builder.stream("A").select_key(lambda k, v: v, named=ks.Named.as_("ka"))
    b = builder.stream("B").select_key(lambda k, v: v, named=ks.Named.as_("kb"))
    a.join(b, lambda x, y: f"{x}+{y}", ks.JoinWindows.of_time_difference_with_no_grace(100)) \
        .to("out")
    config = {"default.key.serde": "string", "default.value.serde": "string"}
    with ks.TopologyTestDriver(builder.build(), config, partitions={"A": 4, "B": 2}) as driver:
        assert driver.partition_count("topology-test-driver-kb-repartition") == 4
        left, right = driver.create_input_topic("A", s, s), driver.create_input_topic("B", s, s)
        for i in range(20):
            left.pipe_input(f"x{i}", f"k{i}", 10)
            right.pipe_input(f"y{i}", f"k{i}", 10)
        joined = driver.create_output_topic("out", s, s).read_key_values_to_list()
    assert sorted(joined) == sorted((f"k{i}", f"k{i}+k{i}") for i in range(20))
