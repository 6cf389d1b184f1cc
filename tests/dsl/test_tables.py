"""KTable sources, filters, value mappers, to_table and global tables in the test driver."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
NO_CACHE = {"statestore.cache.max.bytes": 0}


def test_filter_on_an_unmaterialized_table_sends_tombstones_for_every_miss():
    # KTableFilterTest: without a store the filter cannot know whether the row matched before,
    # so every non-matching update goes out as a tombstone.
    b = ks.StreamsBuilder()
    (b.table("t", ks.Consumed.with_(S, L)).filter(lambda k, v: v % 2 == 0)
     .to_stream().to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build()) as driver:
        t = driver.create_input_topic("t", S, L)
        for key, value in [("a", 1), ("b", 2), ("b", 3), ("a", None)]:
            t.pipe_input(key, value)
        out = driver.create_output_topic("out", S, L).read_key_values_to_list()
    assert out == [("a", None), ("b", 2), ("b", None), ("a", None)]


def test_filter_on_a_materialized_table_sends_tombstones_only_for_rows_that_stop_matching():
    b = ks.StreamsBuilder()
    (b.table("t", ks.Consumed.with_(S, L), ks.Materialized.as_("src"))
     .filter(lambda k, v: v % 2 == 0)
     .to_stream().to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build(), NO_CACHE) as driver:
        t = driver.create_input_topic("t", S, L)
        for key, value in [("a", 1), ("b", 2), ("b", 3), ("b", 5), ("a", None)]:
            t.pipe_input(key, value)
        out = driver.create_output_topic("out", S, L).read_key_values_to_list()
    assert out == [("b", 2), ("b", None)]


def test_map_values_materialized_and_query_table_name():
    b = ks.StreamsBuilder()
    table = b.table("t", ks.Consumed.with_(S, S))
    mapped = table.map_values(str.upper, materialized=ks.Materialized.as_("upper")
                              .with_value_serde(S))
    assert mapped.query_table_name() == "upper"
    assert table.query_table_name() is None
    mapped.to_stream().to("out", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build()) as driver:
        t = driver.create_input_topic("t", S, S)
        t.pipe_input("k", "v")
        t.pipe_input("k", None)
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [
            ("k", "V"), ("k", None)]
        assert driver.get_key_value_store("upper").get("k") is None


def test_table_source_drops_null_keys_and_keeps_latest_value():
    b = ks.StreamsBuilder()
    b.table("t", ks.Consumed.with_(S, S), "store").to_stream().to("out",
                                                                    ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build()) as driver:
        t = driver.create_input_topic("t", S, S)
        t.pipe_input(None, "x")
        t.pipe_input("k", "1")
        t.pipe_input("k", "2")
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [
            ("k", "1"), ("k", "2")]
        assert driver.get_key_value_store("store").get("k") == "2"


def test_cached_table_does_not_forward_a_tombstone_for_an_absent_key():
    # Java's CachingKeyValueStore skips a delete of a key that is neither cached nor stored.
    def run(config):
        b = ks.StreamsBuilder()
        b.table("t", ks.Consumed.with_(S, S), "store").to_stream().to(
            "out", ks.Produced.with_(S, S))
        with ks.TopologyTestDriver(b.build(), config) as driver:
            driver.create_input_topic("t", S, S).pipe_input("k", None)
            return driver.create_output_topic("out", S, S).read_key_values_to_list()

    assert run(None) == []
    assert run(NO_CACHE) == [("k", None)]


def test_stream_to_table_and_back():
    # KStreamImplTest.shouldNotMaterializedKTableFromKStream
    b = ks.StreamsBuilder()
    b.stream("input", ks.Consumed.with_(S, S)).to_table().to_stream().to("output")
    with ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("input", S, S)
        for key, value, ts in [("A", "01", 5), ("B", "02", 100), ("C", "03", 0),
                               ("D", "04", 0), ("A", "05", 10), ("A", "06", 8)]:
            inp.pipe_input(key, value, ts)
        out = driver.create_output_topic("output", S, S).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out] == [
        ("A", "01", 5), ("B", "02", 100), ("C", "03", 0), ("D", "04", 0), ("A", "05", 10),
        ("A", "06", 8),
    ]


def test_key_changed_stream_to_table_repartitions_first():
    b = ks.StreamsBuilder()
    (b.stream("in", ks.Consumed.with_(S, S)).select_key(lambda k, v: v)
     .to_table(materialized=ks.Materialized.as_("by-value")))
    topology = b.build()
    assert "KSTREAM-TOTABLE-0000000002-repartition" in topology.internal_topics
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "v")
        assert driver.get_key_value_store("by-value").get("v") == "v"


def test_global_table_is_filled_and_named():
    b = ks.StreamsBuilder()
    g = b.global_table("g", ks.Consumed.with_(S, S), "global-store")
    assert g.query_table_name() == "global-store"
    topology = b.build()
    assert str(topology.describe()) == """\
Topologies:
   Sub-topology: 0 for global store (will not generate tasks)
    Source: KSTREAM-SOURCE-0000000000 (topics: [g])
      --> KTABLE-SOURCE-0000000001
    Processor: KTABLE-SOURCE-0000000001 (stores: [global-store])
      --> none
      <-- KSTREAM-SOURCE-0000000000
"""
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic("g", S, S).pipe_input("k", "v")
        assert driver.get_key_value_store("global-store").get("k") == "v"


def test_table_source_warnings_use_javas_words(caplog):
    # KTableSourceTest.kTableShouldLogOnOutOfOrder / kTableShouldLogAndMeterOnSkippedRecords
    b = ks.StreamsBuilder()
    b.table("topic", ks.Consumed.with_(S, S), ks.Materialized.as_("store"))
    with caplog.at_level("WARNING", logger="kslab.dsl"), \
            ks.TopologyTestDriver(b.build()) as driver:
        inp = driver.create_input_topic("topic", S, S)
        inp.pipe_input("key", "value", 10)
        inp.pipe_input("key", "value", 5)
        inp.pipe_input(None, "value")
    assert caplog.messages == [
        "Detected out-of-order KTable update for store, old timestamp=[10] new timestamp=[5]. "
        "topic=[topic] partition=[0] offset=[1].",
        "Skipping record due to null key. topic=[topic] partition=[0] offset=[2]",
    ]
