"""Kafka's ``RepartitionWithMergeOptimizingTest`` (streams/src/test/.../processor/internals; it
runs on the TopologyTestDriver), translated to kslab: two mapped streams merged and counted twice
build two repartition topics unoptimized and one with ``topology.optimization=all``, with
identical results.

Java's ``StreamsTestUtils.getStreamsConfig(String, String)`` is ``streams_configuration()``
(a random ``application.id``, String default serdes, 10 KiB of cache, a 5 s commit interval).
Nothing skipped.
"""

from __future__ import annotations

import re
import uuid

import pytest

import kslab as ks
from kslab import serdes

INPUT_A_TOPIC = "inputA"
INPUT_B_TOPIC = "inputB"
COUNT_TOPIC = "outputTopic_0"
STRING_COUNT_TOPIC = "outputTopic_1"

ONE_REPARTITION_TOPIC = 1
TWO_REPARTITION_TOPICS = 2

REPARTITION_TOPIC_PATTERN = re.compile(r"Sink: .*-repartition")

EXPECTED_COUNT_KEY_VALUES = [ks.KeyValue("A", 6), ks.KeyValue("B", 6), ks.KeyValue("C", 6)]
EXPECTED_STRING_COUNT_KEY_VALUES = [ks.KeyValue("A", "6"), ks.KeyValue("B", "6"),
                                    ks.KeyValue("C", "6")]


def streams_configuration() -> dict:
    """setUp(): StreamsTestUtils.getStreamsConfig(String, String) plus cache and commit."""
    return {"application.id": str(uuid.uuid4()), "bootstrap.servers": "localhost:9091",
            "default.key.serde": "string", "default.value.serde": "string",
            "statestore.cache.max.bytes": str(1024 * 10), "commit.interval.ms": str(5000)}


def key_value_list_to_map(key_value_pairs: list) -> dict:
    return {pair.key: pair.value for pair in key_value_pairs}


def get_count_of_repartition_topics_found(topology_string: str) -> int:
    return len(REPARTITION_TOPIC_PATTERN.findall(topology_string))


def get_key_values() -> list:
    return [ks.KeyValue(key, value)
            for key in ("X", "Y", "Z") for value in ("A:foo", "B:foo", "C:foo")]


@pytest.fixture
def drivers():
    opened: list = []
    yield opened
    for driver in opened:
        driver.close()


def run_test(drivers: list, optimization_config: str, expected_number_repartition_topics: int):
    streams_config = streams_configuration()
    streams_config["topology.optimization"] = optimization_config

    builder = ks.StreamsBuilder()

    source_a_stream = builder.stream(
        INPUT_A_TOPIC,
        ks.Consumed.with_(serdes.String(), serdes.String()).with_name("sourceAStream"))

    source_b_stream = builder.stream(
        INPUT_B_TOPIC,
        ks.Consumed.with_(serdes.String(), serdes.String()).with_name("sourceBStream"))

    mapped_a_stream = source_a_stream.map(lambda k, v: ks.KeyValue(v.split(":")[0], v),
                                          ks.Named.as_("mappedAStream"))
    mapped_b_stream = source_b_stream.map(lambda k, v: ks.KeyValue(v.split(":")[0], v),
                                          ks.Named.as_("mappedBStream"))

    merged_stream = mapped_a_stream.merge(mapped_b_stream, ks.Named.as_("mergedStream"))

    (merged_stream
     .group_by_key(ks.Grouped.as_("long-groupByKey"))
     .count(ks.Named.as_("long-count"),
            ks.Materialized.as_(ks.Stores.in_memory_key_value_store("long-store")))
     .to_stream(ks.Named.as_("long-toStream"))
     .to(COUNT_TOPIC, ks.Produced.with_(serdes.String(), serdes.Long()).with_name("long-to")))

    (merged_stream
     .group_by_key(ks.Grouped.as_("string-groupByKey"))
     .count(ks.Named.as_("string-count"),
            ks.Materialized.as_(ks.Stores.in_memory_key_value_store("string-store")))
     .to_stream(ks.Named.as_("string-toStream"))
     .map_values(lambda v: str(v), ks.Named.as_("string-mapValues"))
     .to(STRING_COUNT_TOPIC,
         ks.Produced.with_(serdes.String(), serdes.String()).with_name("string-to")))

    topology = builder.build(streams_config)

    driver = ks.TopologyTestDriver(topology, streams_config)
    drivers.append(driver)

    input_topic_a = driver.create_input_topic(INPUT_A_TOPIC, serdes.String(), serdes.String())
    input_topic_b = driver.create_input_topic(INPUT_B_TOPIC, serdes.String(), serdes.String())

    count_output_topic = driver.create_output_topic(COUNT_TOPIC, serdes.String(), serdes.Long())
    string_count_output_topic = driver.create_output_topic(STRING_COUNT_TOPIC, serdes.String(),
                                                           serdes.String())

    input_topic_a.pipe_key_value_list(get_key_values())
    input_topic_b.pipe_key_value_list(get_key_values())

    topology_string = str(topology.describe())

    # Verify the topology
    if optimization_config == "all":
        assert topology_string == EXPECTED_OPTIMIZED_TOPOLOGY
    else:
        assert topology_string == EXPECTED_UNOPTIMIZED_TOPOLOGY

    # Verify the number of repartition topics
    assert get_count_of_repartition_topics_found(topology_string) == (
        expected_number_repartition_topics)

    # Verify the expected output
    assert count_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_COUNT_KEY_VALUES)
    assert string_count_output_topic.read_key_values_to_map() == key_value_list_to_map(
        EXPECTED_STRING_COUNT_KEY_VALUES)


def test_should_send_correct_records_optimized(drivers):
    # shouldSendCorrectRecords_OPTIMIZED
    run_test(drivers, "all", ONE_REPARTITION_TOPIC)


def test_should_send_correct_results_no_optimization(drivers):
    # shouldSendCorrectResults_NO_OPTIMIZATION
    run_test(drivers, "none", TWO_REPARTITION_TOPICS)


EXPECTED_OPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: sourceAStream (topics: [inputA])\n"
    "      --> mappedAStream\n"
    "    Source: sourceBStream (topics: [inputB])\n"
    "      --> mappedBStream\n"
    "    Processor: mappedAStream (stores: [])\n"
    "      --> mergedStream\n"
    "      <-- sourceAStream\n"
    "    Processor: mappedBStream (stores: [])\n"
    "      --> mergedStream\n"
    "      <-- sourceBStream\n"
    "    Processor: mergedStream (stores: [])\n"
    "      --> long-groupByKey-repartition-filter\n"
    "      <-- mappedAStream, mappedBStream\n"
    "    Processor: long-groupByKey-repartition-filter (stores: [])\n"
    "      --> long-groupByKey-repartition-sink\n"
    "      <-- mergedStream\n"
    "    Sink: long-groupByKey-repartition-sink (topic: long-groupByKey-repartition)\n"
    "      <-- long-groupByKey-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: long-groupByKey-repartition-source (topics: [long-groupByKey-repartition])\n"
    "      --> long-count, string-count\n"
    "    Processor: string-count (stores: [string-store])\n"
    "      --> string-toStream\n"
    "      <-- long-groupByKey-repartition-source\n"
    "    Processor: long-count (stores: [long-store])\n"
    "      --> long-toStream\n"
    "      <-- long-groupByKey-repartition-source\n"
    "    Processor: string-toStream (stores: [])\n"
    "      --> string-mapValues\n"
    "      <-- string-count\n"
    "    Processor: long-toStream (stores: [])\n"
    "      --> long-to\n"
    "      <-- long-count\n"
    "    Processor: string-mapValues (stores: [])\n"
    "      --> string-to\n"
    "      <-- string-toStream\n"
    "    Sink: long-to (topic: outputTopic_0)\n"
    "      <-- long-toStream\n"
    "    Sink: string-to (topic: outputTopic_1)\n"
    "      <-- string-mapValues\n\n"
)

EXPECTED_UNOPTIMIZED_TOPOLOGY = (
    "Topologies:\n"
    "   Sub-topology: 0\n"
    "    Source: sourceAStream (topics: [inputA])\n"
    "      --> mappedAStream\n"
    "    Source: sourceBStream (topics: [inputB])\n"
    "      --> mappedBStream\n"
    "    Processor: mappedAStream (stores: [])\n"
    "      --> mergedStream\n"
    "      <-- sourceAStream\n"
    "    Processor: mappedBStream (stores: [])\n"
    "      --> mergedStream\n"
    "      <-- sourceBStream\n"
    "    Processor: mergedStream (stores: [])\n"
    "      --> long-groupByKey-repartition-filter, string-groupByKey-repartition-filter\n"
    "      <-- mappedAStream, mappedBStream\n"
    "    Processor: long-groupByKey-repartition-filter (stores: [])\n"
    "      --> long-groupByKey-repartition-sink\n"
    "      <-- mergedStream\n"
    "    Processor: string-groupByKey-repartition-filter (stores: [])\n"
    "      --> string-groupByKey-repartition-sink\n"
    "      <-- mergedStream\n"
    "    Sink: long-groupByKey-repartition-sink (topic: long-groupByKey-repartition)\n"
    "      <-- long-groupByKey-repartition-filter\n"
    "    Sink: string-groupByKey-repartition-sink (topic: string-groupByKey-repartition)\n"
    "      <-- string-groupByKey-repartition-filter\n"
    "\n"
    "  Sub-topology: 1\n"
    "    Source: long-groupByKey-repartition-source (topics: [long-groupByKey-repartition])\n"
    "      --> long-count\n"
    "    Processor: long-count (stores: [long-store])\n"
    "      --> long-toStream\n"
    "      <-- long-groupByKey-repartition-source\n"
    "    Processor: long-toStream (stores: [])\n"
    "      --> long-to\n"
    "      <-- long-count\n"
    "    Sink: long-to (topic: outputTopic_0)\n"
    "      <-- long-toStream\n"
    "\n"
    "  Sub-topology: 2\n"
    "    Source: string-groupByKey-repartition-source (topics: [string-groupByKey-repartition])\n"
    "      --> string-count\n"
    "    Processor: string-count (stores: [string-store])\n"
    "      --> string-toStream\n"
    "      <-- string-groupByKey-repartition-source\n"
    "    Processor: string-toStream (stores: [])\n"
    "      --> string-mapValues\n"
    "      <-- string-count\n"
    "    Processor: string-mapValues (stores: [])\n"
    "      --> string-to\n"
    "      <-- string-toStream\n"
    "    Sink: string-to (topic: outputTopic_1)\n"
    "      <-- string-mapValues\n\n"
)
