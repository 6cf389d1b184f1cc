# ruff: noqa: E501 - expected describe() texts are copied verbatim from Kafka
"""Non-windowed cogroup: one store fed by several grouped streams (CogroupedKStreamImplTest)."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()
C = ks.Consumed.with_(S, S)
STRINGS = {"default.key.serde": "string", "default.value.serde": "string"}


def concat(key, value, aggregate):
    return aggregate + value


def empty():
    return ""


# CogroupedKStreamImplTest.shouldNameRepartitionTopic
NAMED_REPARTITION = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> repartition-test-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: repartition-test-repartition-filter (stores: [])
      --> repartition-test-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: repartition-test-repartition-sink (topic: repartition-test-repartition)
      <-- repartition-test-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000008
    Source: repartition-test-repartition-source (topics: [repartition-test-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000007
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- repartition-test-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> KTABLE-TOSTREAM-0000000010
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: KTABLE-TOSTREAM-0000000010 (stores: [])
      --> KSTREAM-SINK-0000000011
      <-- COGROUPKSTREAM-MERGE-0000000009
    Sink: KSTREAM-SINK-0000000011 (topic: output)
      <-- KTABLE-TOSTREAM-0000000010

"""

# ...WithGroupedReusedInSameCogroupsWithOptimization
REUSED_OPTIMIZED = """\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [one])
      --> KSTREAM-MAP-0000000002
    Processor: KSTREAM-MAP-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink
      <-- KSTREAM-MAP-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-filter

  Sub-topology: 1
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000014, COGROUPKSTREAM-AGGREGATE-0000000007
    Source: KSTREAM-SOURCE-0000000001 (topics: [two])
      --> COGROUPKSTREAM-AGGREGATE-0000000015, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-AGGREGATE-0000000007 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000008 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> COGROUPKSTREAM-MERGE-0000000009
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-AGGREGATE-0000000014 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition-source
    Processor: COGROUPKSTREAM-AGGREGATE-0000000015 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> COGROUPKSTREAM-MERGE-0000000016
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000009 (stores: [])
      --> KTABLE-TOSTREAM-0000000019
      <-- COGROUPKSTREAM-AGGREGATE-0000000007, COGROUPKSTREAM-AGGREGATE-0000000008
    Processor: COGROUPKSTREAM-MERGE-0000000016 (stores: [])
      --> KTABLE-TOSTREAM-0000000017
      <-- COGROUPKSTREAM-AGGREGATE-0000000014, COGROUPKSTREAM-AGGREGATE-0000000015
    Processor: KTABLE-TOSTREAM-0000000017 (stores: [])
      --> KSTREAM-SINK-0000000018
      <-- COGROUPKSTREAM-MERGE-0000000016
    Processor: KTABLE-TOSTREAM-0000000019 (stores: [])
      --> KSTREAM-SINK-0000000020
      <-- COGROUPKSTREAM-MERGE-0000000009
    Sink: KSTREAM-SINK-0000000018 (topic: output)
      <-- KTABLE-TOSTREAM-0000000017
    Sink: KSTREAM-SINK-0000000020 (topic: OUTPUT2)
      <-- KTABLE-TOSTREAM-0000000019

"""


def test_grouped_name_names_the_cogroup_repartition_topic():
    # Rule: store index 3 precedes the repartition and the per-stream aggregate names.
    b = ks.StreamsBuilder()
    one, two = b.stream("one", C), b.stream("two", C)
    grouped_one = one.map(lambda k, v: (v, k)).group_by_key(ks.Grouped.as_("repartition-test"))
    (grouped_one.cogroup(concat).cogroup(two.group_by_key(), concat).aggregate(empty)
     .to_stream().to("output"))
    assert str(b.build().describe()) == NAMED_REPARTITION


def test_two_cogroups_of_one_key_changer_share_one_topic_when_optimized():
    b = ks.StreamsBuilder()
    one, two = b.stream("one", C), b.stream("two", C)
    grouped_one, grouped_two = one.map(lambda k, v: (v, k)).group_by_key(), two.group_by_key()
    second = grouped_one.cogroup(concat).cogroup(grouped_two, concat).aggregate(empty)
    first = grouped_one.cogroup(concat).cogroup(grouped_two, concat).aggregate(empty)
    first.to_stream().to("output")
    second.to_stream().to("OUTPUT2")
    assert str(b.build({"topology.optimization": "all"}).describe()) == REUSED_OPTIMIZED


def test_cogroup_and_aggregate_two_streams_with_shared_keys():
    # CogroupedKStreamImplTest.shouldCogroupAndAggregateTwoKStreamsWithSharedKeys
    b = ks.StreamsBuilder()
    one, two = b.stream("one", C), b.stream("two", C)
    (one.group_by_key().cogroup(concat).cogroup(two.group_by_key(), concat).aggregate(empty)
     .to_stream().to("output"))
    with ks.TopologyTestDriver(b.build(), STRINGS) as driver:
        first, second = driver.create_input_topic("one", S, S), driver.create_input_topic("two", S, S)
        for key, ts in [("k1", 0), ("k2", 1), ("k1", 10), ("k2", 100)]:
            first.pipe_input(key, "A", ts)
        for key, ts in [("k2", 100), ("k2", 200), ("k1", 1), ("k2", 500), ("k1", 500),
                        ("k2", 500), ("k3", 500), ("k2", 100)]:
            second.pipe_input(key, "B", ts)
        out = driver.create_output_topic("output", S, S).read_records_to_list()
    assert [(r.key, r.value, r.timestamp) for r in out][:10] == [
        ("k1", "A", 0), ("k2", "A", 1), ("k1", "AA", 10), ("k2", "AA", 100),
        ("k2", "AAB", 100), ("k2", "AABB", 200), ("k1", "AAB", 10), ("k2", "AABBB", 500),
        ("k1", "AABB", 500), ("k2", "AABBBB", 500)]


def test_cogroup_named_processors_and_store():
    # CogroupedKStreamImplTest.shouldNameProcessorsAndStoreBasedOnNamedParameter
    b = ks.StreamsBuilder()
    one, two = b.stream("one", C), b.stream("two", C)
    (one.group_by_key().cogroup(concat).cogroup(two.group_by_key(), concat)
     .aggregate(empty, ks.Named.as_("test"), ks.Materialized.as_("store"))
     .to_stream().to("output"))
    text = str(b.build().describe())
    assert "Processor: test-cogroup-agg-0 (stores: [store])" in text
    assert "Processor: test-cogroup-agg-1 (stores: [store])" in text
    assert "Processor: test-cogroup-merge (stores: [])" in text
