"""Kafka's ``InternalStreamsBuilderTest``, translated to kslab's ``StreamsBuilder``.

Java drives ``InternalStreamsBuilder`` directly; kslab's ``StreamsBuilder`` is that builder
(``new_processor_name`` / ``new_store_name`` are its name counter), ``ConsumedInternal`` and
``MaterializedInternal`` are ``ks.Consumed`` / ``ks.Materialized``, ``buildAndOptimizeTopology``
is ``build(props)``. What Java reads off ``InternalTopologyBuilder`` / ``ProcessorTopology`` is
read off the built ``Topology``: ``offsetResetStrategy(topic)`` and a source's timestamp
extractor from ``source_for_topic``, global stores and their topics from ``global_stores``,
``sourceTopicsForStore`` from ``describe()`` (the source topics of the sub-topology whose
processors use the store, internal topics with the application id prefix). Graph-node checks of
the self-join rewrite (``StreamStreamJoinNode.getSelfJoin()``, ``countJoinWindowNodes``) read the
built topology: a rewritten join has no ``-JOINTHIS-`` / ``-JOINOTHER-`` processors, and its
merge-named processor (Java's ``KStreamKStreamSelfJoin``) reads the one window store; the
``KSTREAM-WINDOWED-`` processors are the join-window nodes. ``TopologyException`` is
``ks.TopologyError``.

Skipped, as outside kslab's API: ``shouldHaveCorrectSourceTopicsForTableFromMergedStream``
(``stateStoreNameToFullSourceTopicNames``, an internal map kslab does not keep), and the
``should(Not)SetUseVersionedSemantics...`` tests, which assert a flag on internal processor
suppliers (``isUseVersionedSemantics``); what the flag changes is asserted through the driver by
the versioned-table tests.
"""

from __future__ import annotations

import re

import pytest

import kslab as ks

APP_ID = "app-id"
STORE_PREFIX = "prefix-"
WINDOWS = ks.JoinWindows.of_time_difference_with_no_grace(100)
OPTIMIZE = {"topology.optimization": "all"}


def TOSTRING_JOINER(value1, value2):  # MockValueJoiner.TOSTRING_JOINER
    return f"{value1}+{value2}"


@pytest.fixture
def builder():
    return ks.StreamsBuilder()


def join_window_nodes(topology):
    return [name for name in topology.nodes if name.startswith("KSTREAM-WINDOWED-")]


def is_self_join(topology, merge_name):
    """The join whose merge node is ``merge_name`` was rewritten into a single-store self-join."""
    node = topology.nodes[merge_name]
    if len(node.parents) != 1:
        return False
    (parent,) = node.parents
    return parent.startswith("KSTREAM-WINDOWED-") and list(node.stores) == list(
        topology.nodes[parent].stores)


def source_topics_for_store(topology, store):
    """Java's ``sourceTopicsForStore``: the topics of the sources upstream of the first
    processor connected to the store, internal ones with the application id prefix."""
    first = topology.store_users(store)[0]
    topics, stack, seen = [], list(topology.nodes[first].parents), set()
    while stack:
        node = topology.nodes[stack.pop()]
        if node.name in seen:
            continue
        seen.add(node.name)
        if not node.parents:  # a source
            topics.extend(node.topics)
        stack.extend(node.parents)
    return [topology.resolve_topic(t, APP_ID) for t in topics]


def test_new_name(builder):
    assert builder.new_processor_name("X-") == "X-0000000000"
    assert builder.new_processor_name("Y-") == "Y-0000000001"
    assert builder.new_processor_name("Z-") == "Z-0000000002"
    new_builder = ks.StreamsBuilder()
    assert new_builder.new_processor_name("X-") == "X-0000000000"
    assert new_builder.new_processor_name("Y-") == "Y-0000000001"
    assert new_builder.new_processor_name("Z-") == "Z-0000000002"


def test_new_store_name(builder):
    assert builder.new_store_name("X-") == "X-STATE-STORE-0000000000"
    assert builder.new_store_name("Y-") == "Y-STATE-STORE-0000000001"
    assert builder.new_store_name("Z-") == "Z-STATE-STORE-0000000002"
    new_builder = ks.StreamsBuilder()
    assert new_builder.new_store_name("X-") == "X-STATE-STORE-0000000000"
    assert new_builder.new_store_name("Y-") == "Y-STATE-STORE-0000000001"
    assert new_builder.new_store_name("Z-") == "Z-STATE-STORE-0000000002"


def test_should_not_materialize_source_k_table_if_not_required(builder):
    table1 = builder.table("topic2", ks.Consumed.with_(), ks.Materialized.with_(None, None))
    topology = builder.build()
    assert len(topology.state_stores) == 0
    assert [s for s in topology.state_stores if topology.changelog_topic_for(s, APP_ID)] == []
    assert table1.query_table_name() is None


def test_should_build_global_table_with_non_queryable_store_name(builder):
    table1 = builder.global_table("topic2", ks.Consumed.with_(), ks.Materialized.with_(None, None))
    assert table1.query_table_name() is None


def test_should_build_global_table_with_queryaible_store_name(builder):
    table1 = builder.global_table("topic2", ks.Consumed.with_(), ks.Materialized.as_("globalTable"))
    assert table1.query_table_name() == "globalTable"


def test_should_build_simple_global_table_topology(builder):
    builder.global_table("table", ks.Consumed.with_(), ks.Materialized.as_("globalTable"))
    topology = builder.build()
    assert list(topology.global_stores) == ["globalTable"]


def test_should_throw_on_versioned_store_supplier_for_global_table(builder):
    with pytest.raises(ks.TopologyError):
        builder.global_table(
            "table", ks.Consumed.with_(),
            ks.Materialized.as_(ks.Stores.persistent_versioned_key_value_store("store", 0)))


def test_should_build_global_topology_with_all_global_tables(builder):
    builder.global_table("table", ks.Consumed.with_(), ks.Materialized.as_("global1"))
    builder.global_table("table2", ks.Consumed.with_(), ks.Materialized.as_("global2"))
    topology = builder.build()
    assert {spec.topic for spec in topology.global_stores.values()} == {"table", "table2"}
    assert len(topology.global_stores) == 2


def test_should_add_global_tables_to_each_group(builder):
    one = "globalTable"
    two = "globalTable2"
    global_table = builder.global_table("table", ks.Consumed.with_(), ks.Materialized.as_(one))
    global_table2 = builder.global_table("table2", ks.Consumed.with_(), ks.Materialized.as_(two))
    builder.table("not-global", ks.Consumed.with_(), ks.Materialized.as_("not-global"))

    def kv_mapper(key, value):
        return value

    stream = builder.stream(["t1"])
    stream.left_join(global_table, kv_mapper, TOSTRING_JOINER)
    stream2 = builder.stream(["t2"])
    stream2.left_join(global_table2, kv_mapper, TOSTRING_JOINER)
    topology = builder.build()
    # every task sees every global store: kslab keeps them topology-wide
    assert set(topology.global_stores) == {one, two}
    assert len(topology.describe().subtopologies) == 3


def test_should_map_state_stores_to_correct_source_topics(builder):
    play_events = builder.stream(["events"])
    table = builder.table("table-topic", ks.Consumed.with_(), ks.Materialized.as_("table-store"))
    mapped = play_events.map(lambda key, value: (value, value))
    mapped.left_join(table, TOSTRING_JOINER).group_by_key().count(ks.Materialized.as_("count"))
    topology = builder.build()
    assert source_topics_for_store(topology, "table-store") == ["table-topic"]
    assert source_topics_for_store(topology, "count") == [
        APP_ID + "-KSTREAM-MAP-0000000003-repartition"]


def test_should_add_topic_to_earliest_auto_offset_reset_list(builder):
    builder.stream(["topic-1"], ks.Consumed.with_(offset_reset="earliest"))
    assert builder.build().source_for_topic("topic-1").offset_reset == "earliest"


def test_should_add_topic_to_latest_auto_offset_reset_list(builder):
    builder.stream(["topic-1"], ks.Consumed.with_(offset_reset="latest"))
    assert builder.build().source_for_topic("topic-1").offset_reset == "latest"


def test_should_add_table_to_earliest_auto_offset_reset_list(builder):
    builder.table("topic-1", ks.Consumed.with_(offset_reset="earliest"),
                  ks.Materialized.as_("test-store"))
    assert builder.build().source_for_topic("topic-1").offset_reset == "earliest"


def test_should_add_table_to_latest_auto_offset_reset_list(builder):
    builder.table("topic-1", ks.Consumed.with_(offset_reset="latest"),
                  ks.Materialized.as_("test-store"))
    assert builder.build().source_for_topic("topic-1").offset_reset == "latest"


def test_should_not_add_table_to_offset_reset_lists(builder):
    builder.table("topic-1", ks.Consumed.with_(), ks.Materialized.as_("test-store"))
    assert builder.build().source_for_topic("topic-1").offset_reset is None


def test_should_not_add_regex_topics_to_offset_reset_lists(builder):
    builder.stream(re.compile(r"topic-\d"), ks.Consumed.with_())
    assert builder.build().source_for_topic("topic-5").offset_reset is None


def test_should_add_regex_topic_to_earliest_auto_offset_reset_list(builder):
    builder.stream(re.compile(r"topic-\d+"), ks.Consumed.with_(offset_reset="earliest"))
    assert builder.build().source_for_topic("topic-500000").offset_reset == "earliest"


def test_should_add_regex_topic_to_latest_auto_offset_reset_list(builder):
    builder.stream(re.compile(r"topic-\d+"), ks.Consumed.with_(offset_reset="latest"))
    assert builder.build().source_for_topic("topic-1000000").offset_reset == "latest"


class MockTimestampExtractor:
    def __call__(self, record, partition_time):
        return record.timestamp


def test_should_have_null_timestamp_extractor_when_none_supplied(builder):
    builder.stream(["topic"], ks.Consumed.with_())
    assert builder.build().source_for_topic("topic").timestamp_extractor is None


def test_should_use_provided_timestamp_extractor(builder):
    builder.stream(["topic"], ks.Consumed.with_(timestamp_extractor=MockTimestampExtractor()))
    extractor = builder.build().source_for_topic("topic").timestamp_extractor
    assert isinstance(extractor, MockTimestampExtractor)


def test_ktable_should_have_null_timestamp_extractor_when_none_supplied(builder):
    builder.table("topic", ks.Consumed.with_(), ks.Materialized.as_("test-store"))
    assert builder.build().source_for_topic("topic").timestamp_extractor is None


def test_ktable_should_use_provided_timestamp_extractor(builder):
    builder.table("topic", ks.Consumed.with_(timestamp_extractor=MockTimestampExtractor()),
                  ks.Materialized.as_("test-store"))
    extractor = builder.build().source_for_topic("topic").timestamp_extractor
    assert isinstance(extractor, MockTimestampExtractor)


# -- single.store.self.join -----------------------------------------------------------------------


def test_should_mark_stream_stream_join_as_self_join_single_stream(builder):
    stream = builder.stream(["t1"])
    stream.join(stream, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, "KSTREAM-MERGE-0000000005")
    assert len(join_window_nodes(topology)) == 1
    assert str(topology.describe()) == (
        "Topologies:\n"
        "   Sub-topology: 0\n"
        "    Source: KSTREAM-SOURCE-0000000000 (topics: [t1])\n"
        "      --> KSTREAM-WINDOWED-0000000001\n"
        "    Processor: KSTREAM-WINDOWED-0000000001 (stores: [KSTREAM-JOINTHIS-0000000003-store])\n"
        "      --> KSTREAM-MERGE-0000000005\n"
        "      <-- KSTREAM-SOURCE-0000000000\n"
        "    Processor: KSTREAM-MERGE-0000000005 (stores: [KSTREAM-JOINTHIS-0000000003-store])\n"
        "      --> none\n"
        "      <-- KSTREAM-WINDOWED-0000000001\n\n"
    )


def test_should_mark_stream_stream_join_as_self_join_two_streams(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, "KSTREAM-MERGE-0000000006")
    assert len(join_window_nodes(topology)) == 1


def test_should_mark_stream_stream_join_as_self_join_merge_two_streams(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t2"])
    stream3 = stream1.merge(stream2)
    stream3.join(stream3, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, "KSTREAM-MERGE-0000000007")
    assert len(join_window_nodes(topology)) == 1


def test_should_mark_first_stream_stream_join_as_self_join3_way_join(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream3 = builder.stream(["t3"])
    stream1.join(stream2, TOSTRING_JOINER, WINDOWS).join(stream3, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, "KSTREAM-MERGE-0000000007")
    assert not is_self_join(topology, "KSTREAM-MERGE-0000000012")
    assert len(join_window_nodes(topology)) == 3


def test_should_mark_all_stream_stream_joins_as_self_join(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream3 = builder.stream(["t2"])
    stream4 = builder.stream(["t2"])
    first_result = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    second_result = stream3.join(stream4, TOSTRING_JOINER, WINDOWS)
    first_result.merge(second_result)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, first_result.name)
    assert is_self_join(topology, second_result.name)
    assert len(join_window_nodes(topology)) == 2


def test_should_mark_first_stream_stream_join_as_self_join_nway_same_source(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream3 = builder.stream(["t1"])
    first = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    second = first.join(stream3, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, first.name)
    assert not is_self_join(topology, second.name)
    assert len(join_window_nodes(topology)) == 3


def test_should_mark_first_stream_stream_join_as_self_join_nway(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream3 = builder.stream(["t2"])
    first = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    second = first.join(stream3, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, first.name)
    assert not is_self_join(topology, second.name)
    assert len(join_window_nodes(topology)) == 3


def test_should_mark_stream_stream_join_as_self_join_two_streams_with_no_op_filter(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream1.filter(lambda key, value: value is not None)
    joined = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 1


def test_should_mark_stream_stream_join_as_self_join_two_joins_same_source(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    stream3 = builder.stream(["t1"])
    stream4 = builder.stream(["t1"])
    first = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    second = stream3.join(stream4, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert is_self_join(topology, first.name)
    assert is_self_join(topology, second.name)
    assert len(join_window_nodes(topology)) == 2


def test_should_not_mark_stream_stream_join_as_self_join_two_streams_with_filter(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t1"])
    joined = stream1.filter(lambda key, value: value is not None).join(
        stream2, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert not is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 2


def test_should_not_mark_stream_stream_join_as_self_join_one_stream_with_map(builder):
    stream1 = builder.stream(["t1"])
    stream3 = stream1.map_values(lambda v: v)
    stream2 = builder.stream(["t1"])
    joined = stream3.join(stream2, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert not is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 2


def test_should_not_mark_stream_stream_join_as_self_join_multiple_sources(builder):
    stream1 = builder.stream(["t1"])
    stream2 = builder.stream(["t2"])
    joined = stream1.join(stream2, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(OPTIMIZE)
    assert not is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 2


def test_should_optimize_join_when_in_config(builder):
    stream1 = builder.stream(["t1"])
    joined = stream1.join(stream1, TOSTRING_JOINER, WINDOWS)
    topology = builder.build({"topology.optimization": "single.store.self.join"})
    assert is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 1


def test_should_not_optimize_join_when_not_in_config(builder):
    stream1 = builder.stream(["t1"])
    joined = stream1.join(stream1, TOSTRING_JOINER, WINDOWS)
    topology = builder.build(
        {"topology.optimization": "reuse.ktable.source.topics,merge.repartition.topics"})
    assert not is_self_join(topology, joined.name)
    assert len(join_window_nodes(topology)) == 2
