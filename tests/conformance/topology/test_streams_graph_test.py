"""Kafka's ``StreamsGraphTest`` (``kstream.internals.graph``), translated to kslab's
``StreamsBuilder``.

Every assertion reads ``str(topology.describe())`` as Java does. Java's deprecated
``JoinWindows.of(5000)`` is ``of_time_difference_and_grace(5000, 24h - 10000)``, what ``of``
gives (the grace does not show in the description). ``System.out.println`` in ``peek`` becomes a
no-op. ``shouldBeAbleToBuildTopologyIncrementally`` builds three times as Java does; kslab's
``build()`` returns a new ``Topology`` each time (Java returns the same one, written
incrementally), which gives the same descriptions. Nothing is skipped.
"""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes

REPARTITION_TOPIC_PATTERN = re.compile("Sink: .*-repartition")
OPTIMIZE = {"topology.optimization": "all"}
NO_OPTIMIZATION = {"topology.optimization": "none"}
PROPERTIES = {"application.id": "test-application", "bootstrap.servers": "localhost:9092",
              "topology.optimization": "all"}


def count_of_repartition_topics_found(topology_string):
    return len(REPARTITION_TOPIC_PATTERN.findall(topology_string))


def test_should_be_able_to_build_topology_incrementally():
    builder = ks.StreamsBuilder()
    stream = builder.stream("topic")
    stream_ii = builder.stream("other-topic")
    joined_stream = stream.join(stream_ii, lambda v, v2: v + v2,
                                ks.JoinWindows.of_time_difference_and_grace(5000, 86_390_000))
    # build step one
    assert str(builder.build().describe()) == EXPECTED_JOINED_TOPOLOGY
    filtered_join_stream = joined_stream.filter(lambda k, v: v == "foo")
    # build step two
    assert str(builder.build().describe()) == EXPECTED_JOINED_FILTERED_TOPOLOGY
    filtered_join_stream.map_values(lambda v: v + "some value").to("output-topic")
    # build step three
    assert str(builder.build().describe()) == EXPECTED_FULL_TOPOLOGY


def test_should_be_able_to_process_nested_multiple_key_changing_nodes():
    builder = ks.StreamsBuilder()
    input_stream = builder.stream("inputTopic")
    changed_key_stream = input_stream.select_key(lambda k, v: v[:5])
    # first repartition
    (changed_key_stream.group_by_key(ks.Grouped.as_("count-repartition"))
        .count(ks.Materialized.as_("count-store"))
        .to_stream().to("count-topic", ks.Produced.with_(serdes.String(), serdes.Long())))
    # second repartition
    (changed_key_stream.group_by_key(ks.Grouped.as_("windowed-repartition"))
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(5000))
        .count(ks.Materialized.as_("windowed-count-store"))
        .to_stream()
        .map(lambda k, v: (k.key, v))
        .to("windowed-count", ks.Produced.with_(serdes.String(), serdes.Long())))
    builder.build(PROPERTIES)


class ForwardingProcessor(ks.Processor):
    def init(self, context):
        self.context = context

    def process(self, record):
        self.context.forward(record)


def test_should_not_throw_npe_with_merge_nodes():
    # Topology in this test from https://issues.apache.org/jira/browse/KAFKA-9739
    builder = ks.StreamsBuilder()

    def initializer():
        return ""

    def aggregator(agg_key, value, aggregate):
        return aggregate + str(len(value))

    strings = ks.Consumed.with_(serdes.String(), serdes.String())
    grouped = ks.Grouped.with_(serdes.String(), serdes.String())
    retry_stream = (
        builder.stream("retryTopic", strings)
        .process(ForwardingProcessor)
        .group_by_key(grouped)
        .aggregate(initializer, aggregator,
                   ks.Materialized.with_(serdes.String(), serdes.String()))
        .suppress(ks.Suppressed.until_time_limit(500_000, ks.BufferConfig.max_bytes(64_000_000)))
        .to_stream()
        .flat_map(lambda k, v: []))
    id_table = (
        builder.stream("id-table-topic", strings)
        .flat_map(lambda k, v: [])
        .peek(lambda subscription_id, recipient_id: None)
        .group_by_key(grouped)
        .aggregate(initializer, aggregator,
                   ks.Materialized.with_(serdes.String(), serdes.String())))
    join_stream = (
        builder.stream("internal-topic-command", strings)
        .peek(lambda subscription_id, command: None)
        .map_values(lambda k, v: v, with_key=True)
        .merge(retry_stream)
        .left_join(id_table, lambda v1, v2: v1 + v2,
                   ks.Joined.with_(serdes.String(), serdes.String(), serdes.String())))

    def default_branch(branch):
        (branch.filter(lambda k, v: v is not None)
            .peek(lambda subscription_id, wrapper: None)
            .map_values(lambda k, v: v, with_key=True)
            .to("dlq-topic", ks.Produced.with_(serdes.String(), serdes.String())))
        (branch.map(lambda k, v: (k, v))
            .to("retryTopic", ks.Produced.with_(serdes.String(), serdes.String())))

    (join_stream.split()
        .branch(lambda k, v: v == "some-value", ks.Branched.with_consumer(
            lambda branch: branch.map(lambda k, v: (k, v))
            .peek(lambda recipient_id, command: None)
            .to("external-command", ks.Produced.with_(serdes.String(), serdes.String()))))
        .default_branch(ks.Branched.with_consumer(default_branch)))

    topology = builder.build(PROPERTIES)
    assert str(topology.describe()) == EXPECTED_COMPLEX_MERGE_OPTIMIZE_TOPOLOGY


def test_should_not_optimize_with_value_or_key_changing_operators_after_initial_key_change():
    attempted_optimize = get_topology_with_changing_values_after_changing_key(OPTIMIZE)
    no_optimization = get_topology_with_changing_values_after_changing_key(NO_OPTIMIZATION)
    assert str(attempted_optimize.describe()) == str(no_optimization.describe())
    assert count_of_repartition_topics_found(str(attempted_optimize.describe())) == 2
    assert count_of_repartition_topics_found(str(no_optimization.describe())) == 2


def test_should_optimize_several_merge_nodes_with_common_key_changing_parent():
    streams_builder = ks.StreamsBuilder()
    parent_stream = (streams_builder.stream(
        "input_topic", ks.Consumed.with_(serdes.Integer(), serdes.Integer()))
        .select_key(lambda k, v: k + v))
    child_stream1 = parent_stream.map_values(lambda v: v + 1)
    child_stream2 = parent_stream.map_values(lambda v: v + 2)
    child_stream3 = parent_stream.map_values(lambda v: v + 3)
    child_stream1.merge(child_stream2).merge(child_stream3).to("output_topic")
    topology = streams_builder.build(OPTIMIZE)
    assert str(topology.describe()) == EXPECTED_MERGE_OPTIMIZED_TOPOLOGY


def test_should_not_optimize_when_repartition_operation_is_done():
    attempted_optimize = get_topology_with_repartition_operation(OPTIMIZE)
    no_optimization = get_topology_with_repartition_operation(NO_OPTIMIZATION)
    assert str(attempted_optimize.describe()) == str(no_optimization.describe())
    assert count_of_repartition_topics_found(str(attempted_optimize.describe())) == 2
    assert count_of_repartition_topics_found(str(no_optimization.describe())) == 2


def get_topology_with_changing_values_after_changing_key(properties):
    builder = ks.StreamsBuilder()
    input_stream = builder.stream("input")
    mapped_key_stream = input_stream.select_key(lambda k, v: k + v)
    (mapped_key_stream.map_values(lambda v: v.upper()).group_by_key().count().to_stream()
        .to("output"))
    (mapped_key_stream.flat_map_values(lambda v: re.split(r"\s", v)).group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(5000)).count().to_stream()
        .to("windowed-output"))
    return builder.build(properties)


def get_topology_with_repartition_operation(properties):
    builder = ks.StreamsBuilder()
    input_stream = builder.stream("input").select_key(lambda k, v: k + v)
    input_stream.repartition().group_by_key().count().to_stream().to("output")
    (input_stream.repartition().group_by_key()
        .windowed_by(ks.TimeWindows.of_size_with_no_grace(5000)).count().to_stream()
        .to("windowed-output"))
    return builder.build(properties)


EXPECTED_JOINED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
    "      --> KSTREAM-WINDOWED-0000000002\n"
    "    Source: KSTREAM-SOURCE-0000000001 (topics: [other-topic])\n"
    "      --> KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-JOINTHIS-0000000004\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-JOINOTHER-0000000005\n"
    "      <-- KSTREAM-SOURCE-0000000001\n"
    "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000002\n"
    "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
    "      --> none\n"
    "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n\n"
)

EXPECTED_JOINED_FILTERED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
    "      --> KSTREAM-WINDOWED-0000000002\n"
    "    Source: KSTREAM-SOURCE-0000000001 (topics: [other-topic])\n"
    "      --> KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-JOINTHIS-0000000004\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-JOINOTHER-0000000005\n"
    "      <-- KSTREAM-SOURCE-0000000001\n"
    "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000002\n"
    "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000007\n"
    "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n"
    "    Processor: KSTREAM-FILTER-0000000007 (stores: [])\n"
    "      --> none\n"
    "      <-- KSTREAM-MERGE-0000000006\n\n"
)

EXPECTED_FULL_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n"
    "      --> KSTREAM-WINDOWED-0000000002\n"
    "    Source: KSTREAM-SOURCE-0000000001 (topics: [other-topic])\n"
    "      --> KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-JOINTHIS-0000000004\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-JOINOTHER-0000000005\n"
    "      <-- KSTREAM-SOURCE-0000000001\n"
    "    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000003\n"
    "    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-WINDOWED-0000000002\n"
    "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000007\n"
    "      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005\n"
    "    Processor: KSTREAM-FILTER-0000000007 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000008\n"
    "      <-- KSTREAM-MERGE-0000000006\n"
    "    Processor: KSTREAM-MAPVALUES-0000000008 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000009\n"
    "      <-- KSTREAM-FILTER-0000000007\n"
    "    Sink: KSTREAM-SINK-0000000009 (topic: output-topic)\n"
    "      <-- KSTREAM-MAPVALUES-0000000008\n\n"
)

EXPECTED_MERGE_OPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [input_topic])\n"
    "      --> KSTREAM-KEY-SELECT-0000000001\n"
    "    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000002, KSTREAM-MAPVALUES-0000000003,"
    " KSTREAM-MAPVALUES-0000000004\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-MAPVALUES-0000000002 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000005\n"
    "      <-- KSTREAM-KEY-SELECT-0000000001\n"
    "    Processor: KSTREAM-MAPVALUES-0000000003 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000005\n"
    "      <-- KSTREAM-KEY-SELECT-0000000001\n"
    "    Processor: KSTREAM-MAPVALUES-0000000004 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-KEY-SELECT-0000000001\n"
    "    Processor: KSTREAM-MERGE-0000000005 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000006\n"
    "      <-- KSTREAM-MAPVALUES-0000000002, KSTREAM-MAPVALUES-0000000003\n"
    "    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000007\n"
    "      <-- KSTREAM-MERGE-0000000005, KSTREAM-MAPVALUES-0000000004\n"
    "    Sink: KSTREAM-SINK-0000000007 (topic: output_topic)\n"
    "      <-- KSTREAM-MERGE-0000000006\n\n"
)

EXPECTED_COMPLEX_MERGE_OPTIMIZE_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [retryTopic])\n"
    "      --> KSTREAM-PROCESSOR-0000000001\n"
    "    Processor: KSTREAM-PROCESSOR-0000000001 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000005\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-FILTER-0000000005 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000004\n"
    "      <-- KSTREAM-PROCESSOR-0000000001\n"
    "    Sink: KSTREAM-SINK-0000000004 (topic:"
    " KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition)\n"
    "      <-- KSTREAM-FILTER-0000000005\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: KSTREAM-SOURCE-0000000006 (topics:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000002-repartition])\n"
    "      --> KSTREAM-AGGREGATE-0000000003\n"
    "    Processor: KSTREAM-AGGREGATE-0000000003 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000002])\n"
    "      --> KTABLE-SUPPRESS-0000000007\n"
    "      <-- KSTREAM-SOURCE-0000000006\n"
    "    Source: KSTREAM-SOURCE-0000000019 (topics: [internal-topic-command])\n"
    "      --> KSTREAM-PEEK-0000000020\n"
    "    Processor: KTABLE-SUPPRESS-0000000007 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000008])\n"
    "      --> KTABLE-TOSTREAM-0000000009\n"
    "      <-- KSTREAM-AGGREGATE-0000000003\n"
    "    Processor: KSTREAM-PEEK-0000000020 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000021\n"
    "      <-- KSTREAM-SOURCE-0000000019\n"
    "    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])\n"
    "      --> KSTREAM-FLATMAP-0000000010\n"
    "      <-- KTABLE-SUPPRESS-0000000007\n"
    "    Processor: KSTREAM-FLATMAP-0000000010 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000022\n"
    "      <-- KTABLE-TOSTREAM-0000000009\n"
    "    Processor: KSTREAM-MAPVALUES-0000000021 (stores: [])\n"
    "      --> KSTREAM-MERGE-0000000022\n"
    "      <-- KSTREAM-PEEK-0000000020\n"
    "    Processor: KSTREAM-MERGE-0000000022 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000024\n"
    "      <-- KSTREAM-MAPVALUES-0000000021, KSTREAM-FLATMAP-0000000010\n"
    "    Processor: KSTREAM-FILTER-0000000024 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000023\n"
    "      <-- KSTREAM-MERGE-0000000022\n"
    "    Sink: KSTREAM-SINK-0000000023 (topic: KSTREAM-MERGE-0000000022-repartition)\n"
    "      <-- KSTREAM-FILTER-0000000024\n"
    "\n"
    "  Sub-topology: 2\n"
    "    Source: KSTREAM-SOURCE-0000000011 (topics: [id-table-topic])\n"
    "      --> KSTREAM-FLATMAP-0000000012\n"
    "    Processor: KSTREAM-FLATMAP-0000000012 (stores: [])\n"
    "      --> KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-filter\n"
    "      <-- KSTREAM-SOURCE-0000000011\n"
    "    Processor: KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-filter (stores: [])\n"
    "      --> KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-sink\n"
    "      <-- KSTREAM-FLATMAP-0000000012\n"
    "    Sink: KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-sink (topic:"
    " KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition)\n"
    "      <-- KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-filter\n"
    "\n"
    "  Sub-topology: 3\n"
    "    Source: KSTREAM-SOURCE-0000000025 (topics: [KSTREAM-MERGE-0000000022-repartition])\n"
    "      --> KSTREAM-LEFTJOIN-0000000026\n"
    "    Processor: KSTREAM-LEFTJOIN-0000000026 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000014])\n"
    "      --> KSTREAM-BRANCH-0000000027\n"
    "      <-- KSTREAM-SOURCE-0000000025\n"
    "    Processor: KSTREAM-BRANCH-0000000027 (stores: [])\n"
    "      --> KSTREAM-BRANCH-00000000270, KSTREAM-BRANCH-00000000271\n"
    "      <-- KSTREAM-LEFTJOIN-0000000026\n"
    "    Processor: KSTREAM-BRANCH-00000000270 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000033, KSTREAM-MAP-0000000037\n"
    "      <-- KSTREAM-BRANCH-0000000027\n"
    "    Processor: KSTREAM-BRANCH-00000000271 (stores: [])\n"
    "      --> KSTREAM-MAP-0000000029\n"
    "      <-- KSTREAM-BRANCH-0000000027\n"
    "    Processor: KSTREAM-FILTER-0000000033 (stores: [])\n"
    "      --> KSTREAM-PEEK-0000000034\n"
    "      <-- KSTREAM-BRANCH-00000000270\n"
    "    Source: KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-source (topics:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition])\n"
    "      --> KSTREAM-PEEK-0000000013\n"
    "    Processor: KSTREAM-MAP-0000000029 (stores: [])\n"
    "      --> KSTREAM-PEEK-0000000030\n"
    "      <-- KSTREAM-BRANCH-00000000271\n"
    "    Processor: KSTREAM-PEEK-0000000034 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000035\n"
    "      <-- KSTREAM-FILTER-0000000033\n"
    "    Processor: KSTREAM-MAP-0000000037 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000038\n"
    "      <-- KSTREAM-BRANCH-00000000270\n"
    "    Processor: KSTREAM-MAPVALUES-0000000035 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000036\n"
    "      <-- KSTREAM-PEEK-0000000034\n"
    "    Processor: KSTREAM-PEEK-0000000013 (stores: [])\n"
    "      --> KSTREAM-AGGREGATE-0000000015\n"
    "      <-- KSTREAM-AGGREGATE-STATE-STORE-0000000014-repartition-source\n"
    "    Processor: KSTREAM-PEEK-0000000030 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000031\n"
    "      <-- KSTREAM-MAP-0000000029\n"
    "    Processor: KSTREAM-AGGREGATE-0000000015 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000014])\n"
    "      --> none\n"
    "      <-- KSTREAM-PEEK-0000000013\n"
    "    Sink: KSTREAM-SINK-0000000031 (topic: external-command)\n"
    "      <-- KSTREAM-PEEK-0000000030\n"
    "    Sink: KSTREAM-SINK-0000000036 (topic: dlq-topic)\n"
    "      <-- KSTREAM-MAPVALUES-0000000035\n"
    "    Sink: KSTREAM-SINK-0000000038 (topic: retryTopic)\n"
    "      <-- KSTREAM-MAP-0000000037\n\n"
)
