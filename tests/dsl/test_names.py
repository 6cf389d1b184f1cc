"""Node and store names from Kafka's StreamsBuilderTest.shouldUseSpecifiedNameFor... tests.

The topology's nodes are listed in the order they are written, which is the order Kafka's
ProcessorTopology lists them in.
"""

from __future__ import annotations

import kslab as ks


def nodes(builder: ks.StreamsBuilder) -> list[str]:
    return list(builder.build().nodes)


def test_table_source_names_from_consumed():
    # Rule: a named table source is <name>-source + <name>; both still use an index each.
    b = ks.StreamsBuilder()
    b.table("stream-topic", ks.Consumed.as_("source-node"))
    b.table("stream-topic-two")
    assert nodes(b) == ["source-node-source", "source-node", "KSTREAM-SOURCE-0000000004",
                        "KTABLE-SOURCE-0000000005"]


def test_sink_names():
    b = ks.StreamsBuilder()
    s = b.stream("stream-topic")
    s.to("t2", ks.Produced.as_("sink-processor"))
    s.to("t2")
    assert nodes(b) == ["KSTREAM-SOURCE-0000000000", "sink-processor", "KSTREAM-SINK-0000000002"]


def test_to_stream_with_mapper_and_name():
    # toStream(mapper, named) = toStream(named).selectKey(mapper)
    b = ks.StreamsBuilder()
    b.table("stream-topic").to_stream(lambda k, v: k, ks.Named.as_("to-stream"))
    assert nodes(b) == ["KSTREAM-SOURCE-0000000001", "KTABLE-SOURCE-0000000002", "to-stream",
                        "KSTREAM-KEY-SELECT-0000000004"]


def test_table_aggregate_names_from_named_and_grouped():
    # StreamsBuilderTest.shouldUseSpecifiedNameForAggregateOperationGivenTable
    b = ks.StreamsBuilder()
    (b.table("stream-topic").group_by(lambda k, v: (k, v), ks.Grouped.as_("group-operation"))
     .count(ks.Named.as_("op")))
    topology = b.build()
    assert list(topology.nodes) == ["KSTREAM-SOURCE-0000000001", "KTABLE-SOURCE-0000000002",
                                    "group-operation", "op-sink", "op-source", "op"]
    assert list(topology.state_stores) == ["stream-topic-STATE-STORE-0000000000",
                                           "KTABLE-AGGREGATE-STATE-STORE-0000000004"]


def test_global_table_store_names():
    b = ks.StreamsBuilder()
    b.global_table("stream-topic", ks.Consumed.as_("source-processor"))
    b.global_table("stream-topic-two")
    assert list(b.build().global_stores) == ["stream-topic-STATE-STORE-0000000000",
                                             "stream-topic-two-STATE-STORE-0000000003"]


def test_named_operations():
    b = ks.StreamsBuilder()
    s = b.stream("stream-topic")
    s.print_(ks.Printed.to_sys_out().with_name("print-processor"))
    s.map(lambda k, v: (k, v), ks.Named.as_("map"))
    s.foreach(lambda k, v: None, name="each")
    s.merge(b.stream("other"), ks.Named.as_("merge-processor"))
    assert nodes(b) == ["KSTREAM-SOURCE-0000000000", "print-processor", "map", "each",
                        "KSTREAM-SOURCE-0000000004", "merge-processor"]


def test_stream_table_join_names():
    # StreamsBuilderTest.shouldUseSpecifiedNameForJoinOperationBetweenKStreamAndKTable
    b = ks.StreamsBuilder()
    b.stream("stream-topic").join(b.table("table-topic"), lambda a, c: a, ks.Joined.as_("op"))
    assert nodes(b) == ["KSTREAM-SOURCE-0000000000", "KSTREAM-SOURCE-0000000002",
                        "KTABLE-SOURCE-0000000003", "op"]


def test_global_store_names():
    class Noop(ks.Processor):
        def process(self, record):
            pass

    store = ks.Stores.key_value_store_builder(ks.Stores.in_memory_key_value_store("store"))
    b = ks.StreamsBuilder().add_global_store(store, "topic", ks.Consumed.with_name("test"), Noop)
    assert nodes(b) == ["test-source", "test"]
