"""Kafka's ``RepartitionTopicNamingTest``, translated to kslab's ``StreamsBuilder``.

Every assertion reads ``str(topology.describe())`` as Java does. ``TopologyException`` is
``ks.TopologyError``. ``System.out.println`` in ``peek`` becomes a no-op. Nothing is skipped.
"""

from __future__ import annotations

import re

import pytest

import kslab as ks
from kslab import serdes

INPUT_TOPIC = "input"
COUNT_TOPIC = "outputTopic_0"
AGGREGATION_TOPIC = "outputTopic_1"
REDUCE_TOPIC = "outputTopic_2"
JOINED_TOPIC = "outputTopicForJoin"

FIRST_REPARTITION_TOPIC_NAME = "count-stream"
SECOND_REPARTITION_TOPIC_NAME = "aggregate-stream"
THIRD_REPARTITION_TOPIC_NAME = "reduced-stream"
FOURTH_REPARTITION_TOPIC_NAME = "joined-stream"
REPARTITION_TOPIC_PATTERN = re.compile("Sink: .*-repartition")


def kv_mapper(k, v):
    return k + v


def count_of_repartition_topics_found(topology_string, pattern=REPARTITION_TOPIC_PATTERN):
    return len(pattern.findall(topology_string))


def test_should_reuse_first_repartition_topic_name_when_optimizing():
    optimized_topology = str(build_topology("all").describe())
    un_optimized_topology = str(build_topology("none").describe())

    assert optimized_topology == EXPECTED_OPTIMIZED_TOPOLOGY
    # only one repartition topic
    assert count_of_repartition_topics_found(optimized_topology) == 1
    # the first named repartition topic
    assert FIRST_REPARTITION_TOPIC_NAME + "-repartition" in optimized_topology

    assert un_optimized_topology == EXPECTED_UNOPTIMIZED_TOPOLOGY
    # now 4 repartition topic
    assert count_of_repartition_topics_found(un_optimized_topology) == 4
    # all 4 named repartition topics present
    assert FIRST_REPARTITION_TOPIC_NAME + "-repartition" in un_optimized_topology
    assert SECOND_REPARTITION_TOPIC_NAME + "-repartition" in un_optimized_topology
    assert THIRD_REPARTITION_TOPIC_NAME + "-repartition" in un_optimized_topology
    assert FOURTH_REPARTITION_TOPIC_NAME + "-left-repartition" in un_optimized_topology


def test_should_fail_with_same_repartition_topic_name():
    builder = ks.StreamsBuilder()
    (builder.stream("topic").select_key(lambda k, v: k)
        .group_by_key(ks.Grouped.as_("grouping")).count().to_stream())
    (builder.stream("topicII").select_key(lambda k, v: k)
        .group_by_key(ks.Grouped.as_("grouping")).count().to_stream())
    with pytest.raises(ks.TopologyError):
        builder.build()


def test_should_not_fail_with_same_repartition_topic_name_using_same_k_grouped_stream():
    builder = ks.StreamsBuilder()
    k_grouped_stream = (builder.stream("topic").select_key(lambda k, v: k)
                        .group_by_key(ks.Grouped.as_("grouping")))
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count().to_stream()
        .to("output-one"))
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count().to_stream()
        .to("output-two"))
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 1
    assert "grouping-repartition" in topology_string


def test_should_not_fail_with_same_repartition_topic_name_using_same_time_window_stream():
    builder = ks.StreamsBuilder()
    k_grouped_stream = (builder.stream("topic").select_key(lambda k, v: k)
                        .group_by_key(ks.Grouped.as_("grouping")))
    time_windowed_k_stream = k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(10))
    time_windowed_k_stream.count().to_stream().to("output-one")
    time_windowed_k_stream.reduce(lambda v, v2: v + v2).to_stream().to("output-two")
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count().to_stream()
        .to("output-two"))
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 1
    assert "grouping-repartition" in topology_string


def test_should_not_fail_with_same_repartition_topic_name_using_same_session_window_stream():
    builder = ks.StreamsBuilder()
    k_grouped_stream = (builder.stream("topic").select_key(lambda k, v: k)
                        .group_by_key(ks.Grouped.as_("grouping")))
    session_windowed_k_stream = k_grouped_stream.windowed_by(
        ks.SessionWindows.of_inactivity_gap_with_no_grace(10))
    session_windowed_k_stream.count().to_stream().to("output-one")
    session_windowed_k_stream.reduce(lambda v, v2: v + v2).to_stream().to("output-two")
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count().to_stream()
        .to("output-two"))
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 1
    assert "grouping-repartition" in topology_string


def test_should_not_fail_with_same_repartition_topic_name_using_same_k_grouped_table():
    builder = ks.StreamsBuilder()
    k_grouped_table = builder.table("topic").group_by(lambda k, v: (k, v),
                                                      ks.Grouped.as_("grouping"))
    k_grouped_table.count().to_stream().to("output-count")
    k_grouped_table.reduce(lambda v, v2: v2, lambda v, v2: v2).to_stream().to("output-reduce")
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 1
    assert "grouping-repartition" in topology_string


def test_should_not_reuse_repartition_node_with_unnamed_repartition_topics():
    builder = ks.StreamsBuilder()
    k_grouped_stream = builder.stream("topic").select_key(lambda k, v: k).group_by_key()
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count().to_stream()
        .to("output-one"))
    (k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count().to_stream()
        .to("output-two"))
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 2


def test_should_not_reuse_repartition_node_with_unnamed_repartition_topics_k_grouped_table():
    builder = ks.StreamsBuilder()
    k_grouped_table = builder.table("topic").group_by(lambda k, v: (k, v))
    k_grouped_table.count().to_stream().to("output-count")
    k_grouped_table.reduce(lambda v, v2: v2, lambda v, v2: v2).to_stream().to("output-reduce")
    topology_string = str(builder.build().describe())
    assert count_of_repartition_topics_found(topology_string) == 2


def test_should_not_fail_with_same_repartition_topic_name_using_same_k_grouped_stream_optimizations_on():  # noqa: E501
    builder = ks.StreamsBuilder()
    k_grouped_stream = (builder.stream("topic").select_key(lambda k, v: k)
                        .group_by_key(ks.Grouped.as_("grouping")))
    k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count()
    k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count()
    topology = builder.build({"topology.optimization": "all"})
    assert count_of_repartition_topics_found(str(topology.describe())) == 1


def test_should_fail_with_same_repartition_topic_name_in_join():
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("topic").select_key(lambda k, v: k)
    stream2 = builder.stream("topic2").select_key(lambda k, v: k)
    stream3 = builder.stream("topic3").select_key(lambda k, v: k)
    joined = stream1.join(stream2, lambda v1, v2: v1 + v2,
                          ks.JoinWindows.of_time_difference_with_no_grace(30),
                          ks.StreamJoined.as_("join-store").with_name("join-repartition"))
    joined.join(stream3, lambda v1, v2: v1 + v2,
                ks.JoinWindows.of_time_difference_with_no_grace(30),
                ks.StreamJoined.as_("join-store").with_name("join-repartition"))
    with pytest.raises(ks.TopologyError):
        builder.build()


def test_should_pass_with_same_repartition_topic_name_using_same_k_grouped_stream_optimized():
    builder = ks.StreamsBuilder()
    k_grouped_stream = (builder.stream("topic").select_key(lambda k, v: k)
                        .group_by_key(ks.Grouped.as_("grouping")))
    k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count()
    k_grouped_stream.windowed_by(ks.TimeWindows.of_size_with_no_grace(30)).count()
    builder.build({"topology.optimization": "all"})


def test_should_keep_repartition_topic_name_for_joins():
    expected_left_repartition_topic = "(topic: my-join-left-repartition)"
    expected_right_repartition_topic = "(topic: my-join-right-repartition)"
    join_topology_first = build_stream_join(False)
    assert expected_left_repartition_topic in join_topology_first
    assert expected_right_repartition_topic in join_topology_first
    join_topology_updated = build_stream_join(True)
    assert expected_left_repartition_topic in join_topology_updated
    assert expected_right_repartition_topic in join_topology_updated


def test_should_keep_repartition_topic_name_for_group_by_key_time_windows():
    expected = "(topic: time-window-grouping-repartition)"
    assert expected in build_stream_group_by_key_time_windows(False, True)
    assert expected in build_stream_group_by_key_time_windows(True, True)


def test_should_keep_repartition_topic_name_for_group_by_time_windows():
    expected = "(topic: time-window-grouping-repartition)"
    assert expected in build_stream_group_by_key_time_windows(False, False)
    assert expected in build_stream_group_by_key_time_windows(True, False)


def test_should_keep_repartition_topic_name_for_group_by_key_no_windows():
    expected = "(topic: kstream-grouping-repartition)"
    assert expected in build_stream_group_by_key_no_windows(False, True)
    assert expected in build_stream_group_by_key_no_windows(True, True)


def test_should_keep_repartition_topic_name_for_group_by_no_windows():
    expected = "(topic: kstream-grouping-repartition)"
    assert expected in build_stream_group_by_key_no_windows(False, False)
    assert expected in build_stream_group_by_key_no_windows(True, False)


def test_should_keep_repartition_topic_name_for_group_by_key_session_windows():
    expected = "(topic: session-window-grouping-repartition)"
    assert expected in build_stream_group_by_key_session_windows(False, True)
    assert expected in build_stream_group_by_key_session_windows(True, True)


def test_should_keep_repartition_topic_name_for_group_by_session_windows():
    expected = "(topic: session-window-grouping-repartition)"
    assert expected in build_stream_group_by_key_session_windows(False, False)
    assert expected in build_stream_group_by_key_session_windows(True, False)


def test_should_keep_repartition_name_for_group_by_k_table():
    expected = "(topic: ktable-group-by-repartition)"
    assert expected in build_k_table_group_by(False)
    assert expected in build_k_table_group_by(True)


def build_k_table_group_by(other_operations):
    builder = ks.StreamsBuilder()
    ktable = builder.table("topic")
    if other_operations:
        ktable = ktable.filter(lambda k, v: True)
    ktable.group_by(lambda k, v: (k, v), ks.Grouped.as_("ktable-group-by")).count()
    return str(builder.build().describe())


def _select_key_stream(builder, other_operations):
    stream = builder.stream("topic").select_key(lambda k, v: k + v)
    if other_operations:
        stream = stream.filter(lambda k, v: True).map_values(lambda v: v)
    return stream


def _grouped(stream, is_group_by_key, name):
    if is_group_by_key:
        return stream.group_by_key(ks.Grouped.as_(name))
    return stream.group_by(kv_mapper, ks.Grouped.as_(name))


def build_stream_group_by_key_time_windows(other_operations, is_group_by_key):
    builder = ks.StreamsBuilder()
    grouped = _grouped(_select_key_stream(builder, other_operations), is_group_by_key,
                       "time-window-grouping")
    if is_group_by_key:
        grouped.windowed_by(ks.TimeWindows.of_size_with_no_grace(10)).count()
    else:  # Java's groupBy branch counts without windows
        grouped.count()
    return str(builder.build().describe())


def build_stream_group_by_key_session_windows(other_operations, is_group_by_key):
    builder = ks.StreamsBuilder()
    grouped = _grouped(_select_key_stream(builder, other_operations), is_group_by_key,
                       "session-window-grouping")
    grouped.windowed_by(ks.SessionWindows.of_inactivity_gap_with_no_grace(10)).count()
    return str(builder.build().describe())


def build_stream_group_by_key_no_windows(other_operations, is_group_by_key):
    builder = ks.StreamsBuilder()
    _grouped(_select_key_stream(builder, other_operations), is_group_by_key,
             "kstream-grouping").count()
    return str(builder.build().describe())


def build_stream_join(include_other_operations):
    builder = ks.StreamsBuilder()
    initial_stream_one = builder.stream("topic-one")
    initial_stream_two = builder.stream("topic-two")
    if include_other_operations:
        updated_stream_one = (initial_stream_one.select_key(lambda k, v: k + v)
                              .filter(lambda k, v: True).peek(lambda k, v: None))
        updated_stream_two = (initial_stream_two.select_key(lambda k, v: k + v)
                              .filter(lambda k, v: True).peek(lambda k, v: None))
    else:
        updated_stream_one = initial_stream_one.select_key(lambda k, v: k + v)
        updated_stream_two = initial_stream_two.select_key(lambda k, v: k + v)
    updated_stream_one.join(
        updated_stream_two, lambda v1, v2: v1 + v2,
        ks.JoinWindows.of_time_difference_with_no_grace(1000),
        ks.StreamJoined.with_(serdes.String(), serdes.String(), serdes.String())
        .with_name("my-join"))
    return str(builder.build().describe())


class SimpleProcessor(ks.Processor):
    def __init__(self, value_list):
        self.value_list = value_list

    def process(self, record):
        self.value_list.append(record.value)


def build_topology(optimization_config):
    def initializer():
        return 0

    def aggregator(k, v, agg):
        return agg + len(v)

    def reducer(v1, v2):
        return v1 + ":" + v2

    processor_value_collector = []
    builder = ks.StreamsBuilder()
    source_stream = builder.stream(INPUT_TOPIC, ks.Consumed.with_(serdes.String(), serdes.String()))
    mapped_stream = source_stream.map(lambda k, v: (k.upper(), v))
    (mapped_stream.filter(lambda k, v: k == "B").map_values(lambda v: v.upper())
        .process(lambda: SimpleProcessor(processor_value_collector)))
    count_stream = (mapped_stream.group_by_key(ks.Grouped.as_(FIRST_REPARTITION_TOPIC_NAME))
                    .count(ks.Materialized.with_(serdes.String(), serdes.Long())).to_stream())
    count_stream.to(COUNT_TOPIC, ks.Produced.with_(serdes.String(), serdes.Long()))
    (mapped_stream.group_by_key(ks.Grouped.as_(SECOND_REPARTITION_TOPIC_NAME))
        .aggregate(initializer, aggregator,
                   ks.Materialized.with_(serdes.String(), serdes.Integer()))
        .to_stream().to(AGGREGATION_TOPIC, ks.Produced.with_(serdes.String(), serdes.Integer())))
    # adding operators for case where the repartition node is further downstream
    (mapped_stream.filter(lambda k, v: True).peek(lambda k, v: None)
        .group_by_key(ks.Grouped.as_(THIRD_REPARTITION_TOPIC_NAME))
        .reduce(reducer, ks.Materialized.with_(serdes.String(), serdes.String()))
        .to_stream().to(REDUCE_TOPIC, ks.Produced.with_(serdes.String(), serdes.String())))
    (mapped_stream.filter(lambda k, v: k == "A")
        .join(count_stream, lambda v1, v2: v1 + ":" + str(v2),
              ks.JoinWindows.of_time_difference_with_no_grace(5000),
              ks.StreamJoined.with_(serdes.String(), serdes.String(), serdes.Long())
              .with_store_name(FOURTH_REPARTITION_TOPIC_NAME)
              .with_name(FOURTH_REPARTITION_TOPIC_NAME))
        .to(JOINED_TOPIC))
    return builder.build({"topology.optimization": optimization_config})


EXPECTED_OPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n"
    "      --> KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-MAP-0000000001 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000002, count-stream-repartition-filter\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-FILTER-0000000002 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000003\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-MAPVALUES-0000000003 (stores: [])\n"
    "      --> KSTREAM-PROCESSOR-0000000004\n"
    "      <-- KSTREAM-FILTER-0000000002\n"
    "    Processor: count-stream-repartition-filter (stores: [])\n"
    "      --> count-stream-repartition-sink\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-PROCESSOR-0000000004 (stores: [])\n"
    "      --> none\n"
    "      <-- KSTREAM-MAPVALUES-0000000003\n"
    "    Sink: count-stream-repartition-sink (topic: count-stream-repartition)\n"
    "      <-- count-stream-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: count-stream-repartition-source (topics: [count-stream-repartition])\n"
    "      --> KSTREAM-FILTER-0000000020, KSTREAM-AGGREGATE-0000000007,"
    " KSTREAM-AGGREGATE-0000000014, KSTREAM-FILTER-0000000029\n"
    "    Processor: KSTREAM-AGGREGATE-0000000007 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000006])\n"
    "      --> KTABLE-TOSTREAM-0000000011\n"
    "      <-- count-stream-repartition-source\n"
    "    Processor: KTABLE-TOSTREAM-0000000011 (stores: [])\n"
    "      --> joined-stream-other-windowed, KSTREAM-SINK-0000000012\n"
    "      <-- KSTREAM-AGGREGATE-0000000007\n"
    "    Processor: KSTREAM-FILTER-0000000020 (stores: [])\n"
    "      --> KSTREAM-PEEK-0000000021\n"
    "      <-- count-stream-repartition-source\n"
    "    Processor: KSTREAM-FILTER-0000000029 (stores: [])\n"
    "      --> joined-stream-this-windowed\n"
    "      <-- count-stream-repartition-source\n"
    "    Processor: KSTREAM-PEEK-0000000021 (stores: [])\n"
    "      --> KSTREAM-REDUCE-0000000023\n"
    "      <-- KSTREAM-FILTER-0000000020\n"
    "    Processor: joined-stream-other-windowed (stores: [joined-stream-other-join-store])\n"
    "      --> joined-stream-other-join\n"
    "      <-- KTABLE-TOSTREAM-0000000011\n"
    "    Processor: joined-stream-this-windowed (stores: [joined-stream-this-join-store])\n"
    "      --> joined-stream-this-join\n"
    "      <-- KSTREAM-FILTER-0000000029\n"
    "    Processor: KSTREAM-AGGREGATE-0000000014 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000013])\n"
    "      --> KTABLE-TOSTREAM-0000000018\n"
    "      <-- count-stream-repartition-source\n"
    "    Processor: KSTREAM-REDUCE-0000000023 (stores: [KSTREAM-REDUCE-STATE-STORE-0000000022])\n"
    "      --> KTABLE-TOSTREAM-0000000027\n"
    "      <-- KSTREAM-PEEK-0000000021\n"
    "    Processor: joined-stream-other-join (stores: [joined-stream-this-join-store])\n"
    "      --> joined-stream-merge\n"
    "      <-- joined-stream-other-windowed\n"
    "    Processor: joined-stream-this-join (stores: [joined-stream-other-join-store])\n"
    "      --> joined-stream-merge\n"
    "      <-- joined-stream-this-windowed\n"
    "    Processor: KTABLE-TOSTREAM-0000000018 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000019\n"
    "      <-- KSTREAM-AGGREGATE-0000000014\n"
    "    Processor: KTABLE-TOSTREAM-0000000027 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000028\n"
    "      <-- KSTREAM-REDUCE-0000000023\n"
    "    Processor: joined-stream-merge (stores: [])\n"
    "      --> KSTREAM-SINK-0000000038\n"
    "      <-- joined-stream-this-join, joined-stream-other-join\n"
    "    Sink: KSTREAM-SINK-0000000012 (topic: outputTopic_0)\n"
    "      <-- KTABLE-TOSTREAM-0000000011\n"
    "    Sink: KSTREAM-SINK-0000000019 (topic: outputTopic_1)\n"
    "      <-- KTABLE-TOSTREAM-0000000018\n"
    "    Sink: KSTREAM-SINK-0000000028 (topic: outputTopic_2)\n"
    "      <-- KTABLE-TOSTREAM-0000000027\n"
    "    Sink: KSTREAM-SINK-0000000038 (topic: outputTopicForJoin)\n"
    "      <-- joined-stream-merge\n\n"
)

EXPECTED_UNOPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: KSTREAM-SOURCE-0000000000 (topics: [input])\n"
    "      --> KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-MAP-0000000001 (stores: [])\n"
    "      --> KSTREAM-FILTER-0000000029, KSTREAM-FILTER-0000000002, KSTREAM-FILTER-0000000020,"
    " aggregate-stream-repartition-filter, count-stream-repartition-filter\n"
    "      <-- KSTREAM-SOURCE-0000000000\n"
    "    Processor: KSTREAM-FILTER-0000000020 (stores: [])\n"
    "      --> KSTREAM-PEEK-0000000021\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-FILTER-0000000002 (stores: [])\n"
    "      --> KSTREAM-MAPVALUES-0000000003\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-FILTER-0000000029 (stores: [])\n"
    "      --> joined-stream-left-repartition-filter\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: KSTREAM-PEEK-0000000021 (stores: [])\n"
    "      --> reduced-stream-repartition-filter\n"
    "      <-- KSTREAM-FILTER-0000000020\n"
    "    Processor: KSTREAM-MAPVALUES-0000000003 (stores: [])\n"
    "      --> KSTREAM-PROCESSOR-0000000004\n"
    "      <-- KSTREAM-FILTER-0000000002\n"
    "    Processor: aggregate-stream-repartition-filter (stores: [])\n"
    "      --> aggregate-stream-repartition-sink\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: count-stream-repartition-filter (stores: [])\n"
    "      --> count-stream-repartition-sink\n"
    "      <-- KSTREAM-MAP-0000000001\n"
    "    Processor: joined-stream-left-repartition-filter (stores: [])\n"
    "      --> joined-stream-left-repartition-sink\n"
    "      <-- KSTREAM-FILTER-0000000029\n"
    "    Processor: reduced-stream-repartition-filter (stores: [])\n"
    "      --> reduced-stream-repartition-sink\n"
    "      <-- KSTREAM-PEEK-0000000021\n"
    "    Processor: KSTREAM-PROCESSOR-0000000004 (stores: [])\n"
    "      --> none\n"
    "      <-- KSTREAM-MAPVALUES-0000000003\n"
    "    Sink: aggregate-stream-repartition-sink (topic: aggregate-stream-repartition)\n"
    "      <-- aggregate-stream-repartition-filter\n"
    "    Sink: count-stream-repartition-sink (topic: count-stream-repartition)\n"
    "      <-- count-stream-repartition-filter\n"
    "    Sink: joined-stream-left-repartition-sink (topic: joined-stream-left-repartition)\n"
    "      <-- joined-stream-left-repartition-filter\n"
    "    Sink: reduced-stream-repartition-sink (topic: reduced-stream-repartition)\n"
    "      <-- reduced-stream-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: count-stream-repartition-source (topics: [count-stream-repartition])\n"
    "      --> KSTREAM-AGGREGATE-0000000007\n"
    "    Processor: KSTREAM-AGGREGATE-0000000007 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000006])\n"
    "      --> KTABLE-TOSTREAM-0000000011\n"
    "      <-- count-stream-repartition-source\n"
    "    Processor: KTABLE-TOSTREAM-0000000011 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000012, joined-stream-other-windowed\n"
    "      <-- KSTREAM-AGGREGATE-0000000007\n"
    "    Source: joined-stream-left-repartition-source (topics: [joined-stream-left-repartition])\n"
    "      --> joined-stream-this-windowed\n"
    "    Processor: joined-stream-other-windowed (stores: [joined-stream-other-join-store])\n"
    "      --> joined-stream-other-join\n"
    "      <-- KTABLE-TOSTREAM-0000000011\n"
    "    Processor: joined-stream-this-windowed (stores: [joined-stream-this-join-store])\n"
    "      --> joined-stream-this-join\n"
    "      <-- joined-stream-left-repartition-source\n"
    "    Processor: joined-stream-other-join (stores: [joined-stream-this-join-store])\n"
    "      --> joined-stream-merge\n"
    "      <-- joined-stream-other-windowed\n"
    "    Processor: joined-stream-this-join (stores: [joined-stream-other-join-store])\n"
    "      --> joined-stream-merge\n"
    "      <-- joined-stream-this-windowed\n"
    "    Processor: joined-stream-merge (stores: [])\n"
    "      --> KSTREAM-SINK-0000000038\n"
    "      <-- joined-stream-this-join, joined-stream-other-join\n"
    "    Sink: KSTREAM-SINK-0000000012 (topic: outputTopic_0)\n"
    "      <-- KTABLE-TOSTREAM-0000000011\n"
    "    Sink: KSTREAM-SINK-0000000038 (topic: outputTopicForJoin)\n"
    "      <-- joined-stream-merge\n"
    "\n"
    "  Sub-topology: 2\n"
    "    Source: aggregate-stream-repartition-source (topics: [aggregate-stream-repartition])\n"
    "      --> KSTREAM-AGGREGATE-0000000014\n"
    "    Processor: KSTREAM-AGGREGATE-0000000014 (stores:"
    " [KSTREAM-AGGREGATE-STATE-STORE-0000000013])\n"
    "      --> KTABLE-TOSTREAM-0000000018\n"
    "      <-- aggregate-stream-repartition-source\n"
    "    Processor: KTABLE-TOSTREAM-0000000018 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000019\n"
    "      <-- KSTREAM-AGGREGATE-0000000014\n"
    "    Sink: KSTREAM-SINK-0000000019 (topic: outputTopic_1)\n"
    "      <-- KTABLE-TOSTREAM-0000000018\n"
    "\n"
    "  Sub-topology: 3\n"
    "    Source: reduced-stream-repartition-source (topics: [reduced-stream-repartition])\n"
    "      --> KSTREAM-REDUCE-0000000023\n"
    "    Processor: KSTREAM-REDUCE-0000000023 (stores: [KSTREAM-REDUCE-STATE-STORE-0000000022])\n"
    "      --> KTABLE-TOSTREAM-0000000027\n"
    "      <-- reduced-stream-repartition-source\n"
    "    Processor: KTABLE-TOSTREAM-0000000027 (stores: [])\n"
    "      --> KSTREAM-SINK-0000000028\n"
    "      <-- KSTREAM-REDUCE-0000000023\n"
    "    Sink: KSTREAM-SINK-0000000028 (topic: outputTopic_2)\n"
    "      <-- KTABLE-TOSTREAM-0000000027\n\n"
)
