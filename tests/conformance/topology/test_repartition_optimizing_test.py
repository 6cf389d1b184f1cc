"""Kafka's ``RepartitionOptimizingTest`` (streams/src/test/.../processor/internals; it runs on the
TopologyTestDriver), translated to kslab: one mapped stream feeding a processor, a count, an
aggregate, a reduce and a windowed join builds four repartition topics unoptimized and one with
``topology.optimization=all``, with identical results.

Java's ``StreamsTestUtils.getStreamsConfig(String, String)`` is ``streams_configuration()``
(a random ``application.id``, String default serdes, 10 KiB of cache, a 5 s commit interval). The
deprecated ``JoinWindows.of(5000ms)`` is kept as ``ks.JoinWindows.of(5000)`` (24 h minus the window
as grace, so the supplied 1-day stores match). ``System.out.println`` in the peek is a no-op.
Nothing skipped.
"""

from __future__ import annotations

import re
import uuid

import pytest

import kslab as ks
from kslab import serdes

INPUT_TOPIC = "input"
COUNT_TOPIC = "outputTopic_0"
AGGREGATION_TOPIC = "outputTopic_1"
REDUCE_TOPIC = "outputTopic_2"
JOINED_TOPIC = "joinedOutputTopic"

ONE_REPARTITION_TOPIC = 1
FOUR_REPARTITION_TOPICS = 4

DAY_MS = 24 * 60 * 60 * 1000
REPARTITION_TOPIC_PATTERN = re.compile(r"Sink: .*-repartition")

EXPECTED_COUNT_KEY_VALUES = [ks.KeyValue("A", 3), ks.KeyValue("B", 3), ks.KeyValue("C", 3)]
EXPECTED_AGG_KEY_VALUES = [ks.KeyValue("A", 9), ks.KeyValue("B", 9), ks.KeyValue("C", 9)]
EXPECTED_REDUCE_KEY_VALUES = [ks.KeyValue("A", "foo:bar:baz"), ks.KeyValue("B", "foo:bar:baz"),
                              ks.KeyValue("C", "foo:bar:baz")]
EXPECTED_JOIN_KEY_VALUES = [ks.KeyValue("A", "foo:3"), ks.KeyValue("A", "bar:3"),
                            ks.KeyValue("A", "baz:3")]
EXPECTED_COLLECTED_PROCESSOR_VALUES = ["FOO", "BAR", "BAZ"]


def streams_configuration() -> dict:
    """setUp(): StreamsTestUtils.getStreamsConfig(String, String) plus cache and commit."""
    return {"application.id": str(uuid.uuid4()), "bootstrap.servers": "localhost:9091",
            "default.key.serde": "string", "default.value.serde": "string",
            "statestore.cache.max.bytes": str(1024 * 10), "commit.interval.ms": str(5000)}


class SimpleProcessor(ks.Processor):
    """Collects every value it sees."""

    def __init__(self, value_list: list) -> None:
        self.value_list = value_list

    def process(self, record: ks.Record) -> None:
        self.value_list.append(record.value)


def initializer() -> int:
    return 0


def aggregator(k: str, v: str, agg: int) -> int:
    return agg + len(v)


def reducer(v1: str, v2: str) -> str:
    return v1 + ":" + v2


def key_value_list_to_map(key_value_pairs: list) -> dict:
    return {pair.key: pair.value for pair in key_value_pairs}


def get_count_of_repartition_topics_found(topology_string: str) -> int:
    return len(REPARTITION_TOPIC_PATTERN.findall(topology_string))


def get_key_values() -> list:
    return [ks.KeyValue(key, value) for key in ("a", "b", "c") for value in ("foo", "bar", "baz")]


@pytest.fixture
def drivers():
    opened: list = []
    yield opened
    for driver in opened:
        driver.close()


def run_test(drivers: list, optimization_config: str, expected_number_repartition_topics: int):
    streams_config = streams_configuration()
    processor_value_collector: list = []
    builder = ks.StreamsBuilder()

    source_stream = builder.stream(
        INPUT_TOPIC, ks.Consumed.with_(serdes.String(), serdes.String()).with_name("sourceStream"))

    mapped_stream = source_stream.map(lambda k, v: ks.KeyValue(k.upper(), v),
                                      ks.Named.as_("source-map"))

    (mapped_stream
     .filter(lambda k, v: k == "B", ks.Named.as_("process-filter"))
     .map_values(lambda v: v.upper(), ks.Named.as_("process-mapValues"))
     .process(lambda: SimpleProcessor(processor_value_collector), named=ks.Named.as_("process")))

    count_stream = (
        mapped_stream
        .group_by_key(ks.Grouped.as_("count-groupByKey"))
        .count(ks.Named.as_("count"),
               ks.Materialized.as_(ks.Stores.in_memory_key_value_store("count-store"))
               .with_key_serde(serdes.String())
               .with_value_serde(serdes.Long()))
        .to_stream(ks.Named.as_("count-toStream")))

    count_stream.to(COUNT_TOPIC,
                    ks.Produced.with_(serdes.String(), serdes.Long()).with_name("count-to"))

    (mapped_stream
     .group_by_key(ks.Grouped.as_("aggregate-groupByKey"))
     .aggregate(initializer,
                aggregator,
                ks.Named.as_("aggregate"),
                ks.Materialized.as_(ks.Stores.in_memory_key_value_store("aggregate-store"))
                .with_key_serde(serdes.String())
                .with_value_serde(serdes.Integer()))
     .to_stream(ks.Named.as_("aggregate-toStream"))
     .to(AGGREGATION_TOPIC,
         ks.Produced.with_(serdes.String(), serdes.Integer()).with_name("reduce-to")))

    # adding operators for case where the repartition node is further downstream
    (mapped_stream
     .filter(lambda k, v: True, ks.Named.as_("reduce-filter"))
     .peek(lambda k, v: None, ks.Named.as_("reduce-peek"))
     .group_by_key(ks.Grouped.as_("reduce-groupByKey"))
     .reduce(reducer,
             ks.Named.as_("reducer"),
             ks.Materialized.as_(ks.Stores.in_memory_key_value_store("reduce-store")))
     .to_stream(ks.Named.as_("reduce-toStream"))
     .to(REDUCE_TOPIC, ks.Produced.with_(serdes.String(), serdes.String())))

    (mapped_stream
     .filter(lambda k, v: k == "A", ks.Named.as_("join-filter"))
     .join(count_stream, lambda v1, v2: v1 + ":" + str(v2),
           ks.JoinWindows.of(5000),
           ks.StreamJoined.with_(
               ks.Stores.in_memory_window_store("join-store", DAY_MS, 10000, True),
               ks.Stores.in_memory_window_store("other-join-store", DAY_MS, 10000, True))
           .with_name("join")
           .with_key_serde(serdes.String())
           .with_value_serde(serdes.String())
           .with_other_value_serde(serdes.Long()))
     .to(JOINED_TOPIC, ks.Produced.as_("join-to")))

    streams_config["topology.optimization"] = optimization_config
    topology = builder.build(streams_config)

    driver = ks.TopologyTestDriver(topology, streams_config)
    drivers.append(driver)

    input_topic_a = driver.create_input_topic(INPUT_TOPIC, serdes.String(), serdes.String())
    count_output_topic = driver.create_output_topic(COUNT_TOPIC, serdes.String(), serdes.Long())
    aggregation_output_topic = driver.create_output_topic(AGGREGATION_TOPIC, serdes.String(),
                                                          serdes.Integer())
    reduce_output_topic = driver.create_output_topic(REDUCE_TOPIC, serdes.String(),
                                                     serdes.String())
    joined_output_topic = driver.create_output_topic(JOINED_TOPIC, serdes.String(),
                                                     serdes.String())

    input_topic_a.pipe_key_value_list(get_key_values())

    # Verify the topology
    topology_string = str(topology.describe())
    if optimization_config == "all":
        assert topology_string == EXPECTED_OPTIMIZED_TOPOLOGY
    else:
        assert topology_string == EXPECTED_UNOPTIMIZED_TOPOLOGY

    # Verify the number of repartition topics
    assert get_count_of_repartition_topics_found(topology_string) == (
        expected_number_repartition_topics)

    # Verify the values collected by the processor
    assert len(processor_value_collector) == 3
    assert processor_value_collector == EXPECTED_COLLECTED_PROCESSOR_VALUES

    # Verify the expected output
    assert count_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_COUNT_KEY_VALUES)
    assert aggregation_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_AGG_KEY_VALUES)
    assert reduce_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_REDUCE_KEY_VALUES)
    assert joined_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_JOIN_KEY_VALUES)


def test_should_send_correct_records_optimized(drivers):
    # shouldSendCorrectRecords_OPTIMIZED
    run_test(drivers, "all", ONE_REPARTITION_TOPIC)


def test_should_send_correct_results_no_optimization(drivers):
    # shouldSendCorrectResults_NO_OPTIMIZATION
    run_test(drivers, "none", FOUR_REPARTITION_TOPICS)


EXPECTED_OPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: sourceStream (topics: [input])\n"
    "      --> source-map\n"
    "    Processor: source-map (stores: [])\n"
    "      --> process-filter, count-groupByKey-repartition-filter\n"
    "      <-- sourceStream\n"
    "    Processor: process-filter (stores: [])\n"
    "      --> process-mapValues\n"
    "      <-- source-map\n"
    "    Processor: count-groupByKey-repartition-filter (stores: [])\n"
    "      --> count-groupByKey-repartition-sink\n"
    "      <-- source-map\n"
    "    Processor: process-mapValues (stores: [])\n"
    "      --> process\n"
    "      <-- process-filter\n"
    "    Sink: count-groupByKey-repartition-sink (topic: count-groupByKey-repartition)\n"
    "      <-- count-groupByKey-repartition-filter\n"
    "    Processor: process (stores: [])\n"
    "      --> none\n"
    "      <-- process-mapValues\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: count-groupByKey-repartition-source (topics: [count-groupByKey-repartition])\n"
    "      --> aggregate, count, join-filter, reduce-filter\n"
    "    Processor: count (stores: [count-store])\n"
    "      --> count-toStream\n"
    "      <-- count-groupByKey-repartition-source\n"
    "    Processor: count-toStream (stores: [])\n"
    "      --> join-other-windowed, count-to\n"
    "      <-- count\n"
    "    Processor: join-filter (stores: [])\n"
    "      --> join-this-windowed\n"
    "      <-- count-groupByKey-repartition-source\n"
    "    Processor: reduce-filter (stores: [])\n"
    "      --> reduce-peek\n"
    "      <-- count-groupByKey-repartition-source\n"
    "    Processor: join-other-windowed (stores: [other-join-store])\n"
    "      --> join-other-join\n"
    "      <-- count-toStream\n"
    "    Processor: join-this-windowed (stores: [join-store])\n"
    "      --> join-this-join\n"
    "      <-- join-filter\n"
    "    Processor: reduce-peek (stores: [])\n"
    "      --> reducer\n"
    "      <-- reduce-filter\n"
    "    Processor: aggregate (stores: [aggregate-store])\n"
    "      --> aggregate-toStream\n"
    "      <-- count-groupByKey-repartition-source\n"
    "    Processor: join-other-join (stores: [join-store])\n"
    "      --> join-merge\n"
    "      <-- join-other-windowed\n"
    "    Processor: join-this-join (stores: [other-join-store])\n"
    "      --> join-merge\n"
    "      <-- join-this-windowed\n"
    "    Processor: reducer (stores: [reduce-store])\n"
    "      --> reduce-toStream\n"
    "      <-- reduce-peek\n"
    "    Processor: aggregate-toStream (stores: [])\n"
    "      --> reduce-to\n"
    "      <-- aggregate\n"
    "    Processor: join-merge (stores: [])\n"
    "      --> join-to\n"
    "      <-- join-this-join, join-other-join\n"
    "    Processor: reduce-toStream (stores: [])\n"
    "      --> KSTREAM-SINK-0000000023\n"
    "      <-- reducer\n"
    "    Sink: KSTREAM-SINK-0000000023 (topic: outputTopic_2)\n"
    "      <-- reduce-toStream\n"
    "    Sink: count-to (topic: outputTopic_0)\n"
    "      <-- count-toStream\n"
    "    Sink: join-to (topic: joinedOutputTopic)\n"
    "      <-- join-merge\n"
    "    Sink: reduce-to (topic: outputTopic_1)\n"
    "      <-- aggregate-toStream\n\n"
)

EXPECTED_UNOPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: sourceStream (topics: [input])\n"
    "      --> source-map\n"
    "    Processor: source-map (stores: [])\n"
    "      --> reduce-filter, process-filter, aggregate-groupByKey-repartition-filter, "
    "count-groupByKey-repartition-filter, join-filter\n"
    "      <-- sourceStream\n"
    "    Processor: reduce-filter (stores: [])\n"
    "      --> reduce-peek\n"
    "      <-- source-map\n"
    "    Processor: join-filter (stores: [])\n"
    "      --> join-left-repartition-filter\n"
    "      <-- source-map\n"
    "    Processor: process-filter (stores: [])\n"
    "      --> process-mapValues\n"
    "      <-- source-map\n"
    "    Processor: reduce-peek (stores: [])\n"
    "      --> reduce-groupByKey-repartition-filter\n"
    "      <-- reduce-filter\n"
    "    Processor: aggregate-groupByKey-repartition-filter (stores: [])\n"
    "      --> aggregate-groupByKey-repartition-sink\n"
    "      <-- source-map\n"
    "    Processor: count-groupByKey-repartition-filter (stores: [])\n"
    "      --> count-groupByKey-repartition-sink\n"
    "      <-- source-map\n"
    "    Processor: join-left-repartition-filter (stores: [])\n"
    "      --> join-left-repartition-sink\n"
    "      <-- join-filter\n"
    "    Processor: process-mapValues (stores: [])\n"
    "      --> process\n"
    "      <-- process-filter\n"
    "    Processor: reduce-groupByKey-repartition-filter (stores: [])\n"
    "      --> reduce-groupByKey-repartition-sink\n"
    "      <-- reduce-peek\n"
    "    Sink: aggregate-groupByKey-repartition-sink (topic: aggregate-groupByKey-repartition)\n"
    "      <-- aggregate-groupByKey-repartition-filter\n"
    "    Sink: count-groupByKey-repartition-sink (topic: count-groupByKey-repartition)\n"
    "      <-- count-groupByKey-repartition-filter\n"
    "    Sink: join-left-repartition-sink (topic: join-left-repartition)\n"
    "      <-- join-left-repartition-filter\n"
    "    Processor: process (stores: [])\n"
    "      --> none\n"
    "      <-- process-mapValues\n"
    "    Sink: reduce-groupByKey-repartition-sink (topic: reduce-groupByKey-repartition)\n"
    "      <-- reduce-groupByKey-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: count-groupByKey-repartition-source (topics: [count-groupByKey-repartition])\n"
    "      --> count\n"
    "    Processor: count (stores: [count-store])\n"
    "      --> count-toStream\n"
    "      <-- count-groupByKey-repartition-source\n"
    "    Processor: count-toStream (stores: [])\n"
    "      --> join-other-windowed, count-to\n"
    "      <-- count\n"
    "    Source: join-left-repartition-source (topics: [join-left-repartition])\n"
    "      --> join-this-windowed\n"
    "    Processor: join-other-windowed (stores: [other-join-store])\n"
    "      --> join-other-join\n"
    "      <-- count-toStream\n"
    "    Processor: join-this-windowed (stores: [join-store])\n"
    "      --> join-this-join\n"
    "      <-- join-left-repartition-source\n"
    "    Processor: join-other-join (stores: [join-store])\n"
    "      --> join-merge\n"
    "      <-- join-other-windowed\n"
    "    Processor: join-this-join (stores: [other-join-store])\n"
    "      --> join-merge\n"
    "      <-- join-this-windowed\n"
    "    Processor: join-merge (stores: [])\n"
    "      --> join-to\n"
    "      <-- join-this-join, join-other-join\n"
    "    Sink: count-to (topic: outputTopic_0)\n"
    "      <-- count-toStream\n"
    "    Sink: join-to (topic: joinedOutputTopic)\n"
    "      <-- join-merge\n"
    "\n"
    "  Sub-topology: 2\n"
    "    Source: aggregate-groupByKey-repartition-source "
    "(topics: [aggregate-groupByKey-repartition])\n"
    "      --> aggregate\n"
    "    Processor: aggregate (stores: [aggregate-store])\n"
    "      --> aggregate-toStream\n"
    "      <-- aggregate-groupByKey-repartition-source\n"
    "    Processor: aggregate-toStream (stores: [])\n"
    "      --> reduce-to\n"
    "      <-- aggregate\n"
    "    Sink: reduce-to (topic: outputTopic_1)\n"
    "      <-- aggregate-toStream\n"
    "\n"
    "  Sub-topology: 3\n"
    "    Source: reduce-groupByKey-repartition-source (topics: [reduce-groupByKey-repartition])\n"
    "      --> reducer\n"
    "    Processor: reducer (stores: [reduce-store])\n"
    "      --> reduce-toStream\n"
    "      <-- reduce-groupByKey-repartition-source\n"
    "    Processor: reduce-toStream (stores: [])\n"
    "      --> KSTREAM-SINK-0000000023\n"
    "      <-- reducer\n"
    "    Sink: KSTREAM-SINK-0000000023 (topic: outputTopic_2)\n"
    "      <-- reduce-toStream\n\n"
)
